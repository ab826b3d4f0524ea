/**
 * `codegen-sandbox demo`: the four demonstration tasks (factorial, squared evens, character
 * frequency, Fibonacci), each solved by the graph, then the statistics. A task counts as solved
 * only when its known answer is in what the program showed (its output, or its result), not
 * merely when the run ended without an error.
 */
import type { Command } from "./command.js";
import { UsageError } from "./usage-error.js";
import { languageFlag, numberFlag, parseCommandArgs, textFlag } from "./args.js";
import { MAX_RETRIES_RULE, runResultValue } from "../graph/shared.js";
import { textRule } from "../options/index.js";
import { LIMIT_RULES } from "../sandbox/options.js";
import { createCliGraph, formatFinal, streamTask, type FinalState } from "./graph-run.js";

/** A demonstration task and how to recognise its answer in a program's output. */
export interface DemoTask {
  task: string;
  /** The answer in words, for the report. */
  answer: string;
  /** Whether `shown` (the program's output, or its result as text) holds the answer. */
  answered(shown: string): boolean;
}

const numbersIn = (text: string) => [...text.matchAll(/-?\d+/g)].map((m) => Number(m[0]));
const holdsNumber = (text: string, n: number) => numbersIn(text).includes(n);
const holdsRun = (text: string, run: number[]) => {
  const numbers = numbersIn(text);
  return numbers.some((_, i) => run.every((n, j) => numbers[i + j] === n));
};
/** A character and its count side by side: `l: 3`, `'l': 3`, `l -> 3`, `'l' => 3`, `l appears 3 times`. */
const holdsCount = (text: string, char: string, count: number) =>
  new RegExp(`(?:^|[^\\w])['"]?${char}['"]?\\W{0,4}(?:[A-Za-z]+\\W+){0,2}?${count}(?!\\d)`, "m").test(text);
const FIBONACCI = [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377];

const MODEL_FLAG_RULE = textRule({ what: 'a "provider:model" name, e.g. openai:gpt-4o-mini' });

/** The demonstration tasks, in order. */
export const DEMO_TASKS: readonly DemoTask[] = [
  { task: "Calculate the factorial of 10 and print the result.", answer: "3628800", answered: (shown) => holdsNumber(shown, 3628800) },
  { task: "Add up the squares of the even numbers from 1 to 20 and print the sum.", answer: "1540", answered: (shown) => holdsNumber(shown, 1540) },
  {
    task: "Count how often each character appears in the string 'hello world' and print each character with its count.",
    answer: "l 3, o 2, h e w r d 1",
    answered: (shown) => holdsCount(shown, "l", 3) && holdsCount(shown, "o", 2) && ["h", "e", "w", "r", "d"].every((c) => holdsCount(shown, c, 1)),
  },
  {
    task: "Print the first 15 Fibonacci numbers, computed with a loop (not recursion).",
    answer: "0 1 1 2 3 5 8 13 21 34 55 89 144 233 377 (or from 1 to 610)",
    answered: (shown) => holdsRun(shown, FIBONACCI) || holdsRun(shown, [...FIBONACCI.slice(1), 610]),
  },
];

const HELP = `usage: codegen-sandbox demo [options]

Solves four demonstration tasks with the code-generation graph and prints each result, then
the summary: tasks answered right (the known answer is in the output), execution attempts,
successful executions, success rate, and the breakdown by status. Exit code 0 only when every
task was answered right.

options:
  --language L       ${["javascript", "typescript", "python"].join(" | ")} (default javascript)
  --model M          provider:model (default: CODEGEN_MODEL)
  --max-retries N    refinements after the first attempt (default 2)
  --timeout-ms N     time limit of each run (default 5000)
  --json             print the runs and the summary as JSON

The model is configured like "solve": OPENAI_API_KEY, OPENAI_BASE_URL, CODEGEN_MODEL.`;

/** What the program showed: its output, or (when it printed nothing) its result's JSON. */
function shownText(final: FinalState): string {
  const result = final.result;
  if (result === undefined) return "";
  if (result.stdout.trim() !== "" || result.resultJson === undefined) return result.stdout;
  const value = runResultValue(result);
  return typeof value === "string" ? value : (result.resultJson ?? "");
}

/** The `demo` subcommand. */
export const demoCommand: Command = {
  help: HELP,
  summary: "solve the four demonstration tasks and print success statistics",
  async run(argv) {
    const { values } = parseCommandArgs("demo", {
      args: argv,
      options: {
        language: { type: "string" },
        model: { type: "string" },
        "max-retries": { type: "string" },
        "timeout-ms": { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: false,
    });
    if (values.help) {
      process.stdout.write(HELP + "\n");
      return 0;
    }
    const language = languageFlag("demo", values.language);
    const maxRetries = numberFlag("demo", "max-retries", values["max-retries"], MAX_RETRIES_RULE);
    const timeoutMs = numberFlag("demo", "timeout-ms", values["timeout-ms"], LIMIT_RULES.timeoutMs);
    textFlag("demo", "model", values.model, MODEL_FLAG_RULE);

    const graph = await createCliGraph({ model: values.model, maxRetries, timeoutMs });
    const [{ ExecutionHistory, formatSummary }, { disposeDefaultSandbox }] = await Promise.all([import("../graph/shared.js"), import("../sandbox/run-code.js")]);
    const history = new ExecutionHistory();
    const runs: (FinalState & { task: string; answered: boolean })[] = [];
    try {
      for (const [index, demo] of DEMO_TASKS.entries()) {
        process.stderr.write(`\n=== task ${index + 1}/${DEMO_TASKS.length}: ${demo.task}\n`);
        const final = await streamTask(graph, language === undefined ? { task: demo.task } : { task: demo.task, language });
        const answered = final.status === "success" && demo.answered(shownText(final));
        history.record(demo.task, final);
        runs.push({ task: demo.task, answered, ...final });
        if (!values.json) process.stdout.write(`\n=== ${demo.task}\n${formatFinal(final)}\n--- answer: ${answered ? "right" : "NOT FOUND"} (expected ${demo.answer}) ---\n`);
      }
      const summary = history.summary();
      const answered = runs.filter((r) => r.answered).length;
      if (values.json) {
        const compact = runs.map(({ task, status, answered: right, language: lang, code, result, attempts, explanation }) => ({ task, status, answered: right, language: lang, code, result, attempts, explanation }));
        process.stdout.write(JSON.stringify({ runs: compact, summary: { ...summary, tasksAnswered: answered } }, null, 2) + "\n");
      } else {
        process.stdout.write(`\n=== summary\nRight answers: ${answered}/${summary.tasks}\n${formatSummary(summary)}\n`);
      }
      return answered === summary.tasks ? 0 : 1;
    } finally {
      await disposeDefaultSandbox();
    }
  },
};
