/**
 * `codegen-sandbox solve "TASK"`: runs one task through the code-generation graph, with
 * progress on stderr and the final code, output and result on stdout.
 * Exit codes: 0 solved, 1 not solved or the model is not configured, 2 usage error.
 */
import { REPAIR_FLAGS_HELP, REPAIR_FLAG_OPTIONS, repairFlags } from "./repair-flags.js";
import { readFile } from "node:fs/promises";
import type { Command } from "./command.js";
import { UsageError } from "./usage-error.js";
import { languageFlag, numberFlag, parseCommandArgs, textFlag } from "./args.js";
import { MAX_RETRIES_RULE, inferLanguage, runResultValue, type CodeGenInput } from "../graph/shared.js";
import { textRule } from "../options/index.js";
import { LIMIT_RULES } from "../sandbox/options.js";
import { createCliGraph, formatFinal, streamTask } from "./graph-run.js";
import { LANGUAGES } from "../sandbox/types.js";

const MODEL_FLAG_RULE = textRule({ what: 'a "provider:model" name, e.g. openai:gpt-4o-mini' });

const HELP = `usage: codegen-sandbox solve "TASK" [options]

A model writes code for TASK; the code is checked, run in the sandbox and repaired on errors.
Progress goes to stderr; the final code, output and result go to stdout.

options:
  --language L           ${LANGUAGES.join(" | ")} (default: the one the task names, e.g.
                         "a Python program", else javascript)
  --model M              provider:model, e.g. openai:gpt-4o-mini (default: CODEGEN_MODEL)
  --max-retries N        repairs after the first attempt, 0 to 20 (default 2)
  --details TEXT         extra information for the model
  --tests FILE           tests in the same language, run after the program in its scope; they must not raise
  --expected-output TEXT what the program must print
  --timeout-ms N         time limit of each run (default 5000)
  --json                 print the final state as JSON on stdout
${REPAIR_FLAGS_HELP}

model configuration (environment):
  OPENAI_API_KEY         key for OpenAI models
  OPENAI_BASE_URL        an OpenAI-compatible server (vLLM, llama.cpp, Ollama's /v1); no key needed
  CODEGEN_MODEL          default model (default openai:gpt-4o-mini)
Exit code: 0 solved, 1 not solved or no usable model, 2 usage error.`;

/** The language the task names, said on stderr; undefined (the graph's default) when it names none. */
function chosenFromTask(task: string) {
  const inferred = inferLanguage(task);
  if (inferred === undefined) return undefined;
  process.stderr.write(`solve: writing ${inferred.language} (the task says "${inferred.words}"); pass --language to choose another\n`);
  return inferred.language;
}

/** The `solve` subcommand. */
export const solveCommand: Command = {
  help: HELP,
  summary: "generate, check, run and repair code for one task",
  async run(argv) {
    const { values, positionals } = parseCommandArgs("solve", {
      args: argv,
      options: {
        language: { type: "string" },
        model: { type: "string" },
        "max-retries": { type: "string" },
        details: { type: "string" },
        tests: { type: "string" },
        "expected-output": { type: "string" },
        "timeout-ms": { type: "string" },
        json: { type: "boolean" },
        ...REPAIR_FLAG_OPTIONS,
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
    });
    if (values.help) {
      process.stdout.write(HELP + "\n");
      return 0;
    }
    const task = positionals.join(" ").trim();
    if (task === "") throw new UsageError('solve: give the task in quotes, e.g. codegen-sandbox solve "Print the factorial of 10"');
    const language = languageFlag("solve", values.language) ?? chosenFromTask(task);
    const maxRetries = numberFlag("solve", "max-retries", values["max-retries"], MAX_RETRIES_RULE);
    const timeoutMs = numberFlag("solve", "timeout-ms", values["timeout-ms"], LIMIT_RULES.timeoutMs);
    textFlag("solve", "model", values.model, MODEL_FLAG_RULE);
    const repair = repairFlags("solve", values);
    let tests: string | undefined;
    if (values.tests !== undefined) {
      try {
        tests = await readFile(values.tests, "utf8");
      } catch (error) {
        throw new UsageError(`solve: cannot read --tests file "${values.tests}": ${(error as Error).message}`);
      }
    }

    // LangChain is loaded only now, so `--help` and usage errors stay instant.
    const graph = await createCliGraph({ model: values.model, maxRetries, timeoutMs, ...(repair === undefined ? {} : { repair }) });
    const { disposeDefaultSandbox } = await import("../sandbox/run-code.js");
    const input: CodeGenInput = { task };
    if (language !== undefined) input.language = language;
    if (values.details !== undefined) input.details = values.details;
    if (tests !== undefined) input.tests = tests;
    if (values["expected-output"] !== undefined) input.expectedOutput = values["expected-output"];

    try {
      const final = await streamTask(graph, input);
      if (values.json) {
        const { status, code, language: lang, result: stored, attempts, explanation } = final;
        // The program's value as JSON again (the state keeps it as text, see stored-result.ts).
        const result = stored === undefined ? undefined : (({ resultJson: _json, ...rest }) => ({ ...rest, result: runResultValue(stored) }))(stored);
        process.stdout.write(JSON.stringify({ task, status, language: lang, code, result, attempts, explanation }, null, 2) + "\n");
      } else {
        process.stdout.write(formatFinal(final) + "\n");
      }
      return final.status === "success" ? 0 : 1;
    } finally {
      await disposeDefaultSandbox();
    }
  },
};
