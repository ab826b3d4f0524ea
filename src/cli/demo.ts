/**
 * `codegen-sandbox demo`: the four demonstration tasks (factorial, squared evens, character
 * frequency, Fibonacci), each solved by the graph, then the success statistics.
 */
import type { Command } from "./command.js";
import { UsageError } from "./usage-error.js";
import { languageFlag, numberFlag, parseCommandArgs, textFlag } from "./args.js";
import { MAX_RETRIES_RULE } from "../graph/retries.js";
import { textRule } from "../options/index.js";
import { LIMIT_RULES } from "../sandbox/options.js";
import { createCliGraph, formatFinal, streamTask, type FinalState } from "./graph-run.js";

const MODEL_FLAG_RULE = textRule({ what: 'a "provider:model" name, e.g. openai:gpt-4o-mini' });

/** The demonstration tasks, in order. */
export const DEMO_TASKS: readonly string[] = [
  "Calculate the factorial of 10 and print the result.",
  "Add up the squares of the even numbers from 1 to 20 and print the sum.",
  "Count how often each character appears in the string 'hello world' and print each character with its count.",
  "Print the first 15 Fibonacci numbers, computed with a loop (not recursion).",
];

const HELP = `usage: codegen-sandbox demo [options]

Solves four demonstration tasks with the code-generation graph and prints each result, then
the summary: tasks, execution attempts, successful executions, success rate, and the
breakdown by status.

options:
  --language L       ${["javascript", "typescript", "python"].join(" | ")} (default javascript)
  --model M          provider:model (default: CODEGEN_MODEL)
  --max-retries N    refinements after the first attempt (default 2)
  --timeout-ms N     time limit of each run (default 5000)
  --json             print the runs and the summary as JSON

The model is configured like "solve": OPENAI_API_KEY, OPENAI_BASE_URL, CODEGEN_MODEL.`;

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
    const [{ ExecutionHistory, formatSummary }, { disposeDefaultSandbox }] = await Promise.all([import("../graph/history.js"), import("../sandbox/run-code.js")]);
    const history = new ExecutionHistory();
    const runs: (FinalState & { task: string })[] = [];
    try {
      for (const [index, task] of DEMO_TASKS.entries()) {
        process.stderr.write(`\n=== task ${index + 1}/${DEMO_TASKS.length}: ${task}\n`);
        const final = await streamTask(graph, language === undefined ? { task } : { task, language });
        history.record(task, final);
        runs.push({ task, ...final });
        if (!values.json) process.stdout.write(`\n=== ${task}\n${formatFinal(final)}\n`);
      }
      const summary = history.summary();
      if (values.json) {
        const compact = runs.map(({ task, status, language: lang, code, result, attempts, explanation }) => ({ task, status, language: lang, code, result, attempts, explanation }));
        process.stdout.write(JSON.stringify({ runs: compact, summary }, null, 2) + "\n");
      } else {
        process.stdout.write(`\n=== summary\n${formatSummary(summary)}\n`);
      }
      return summary.tasksSolved === summary.tasks ? 0 : 1;
    } finally {
      await disposeDefaultSandbox();
    }
  },
};
