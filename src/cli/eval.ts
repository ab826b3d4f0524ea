/**
 * `codegen-sandbox eval --tasks FILE.jsonl [--model M] [--max-retries N] [--json OUT]`:
 * runs a task set through the code-generation graph and prints pass@1 on the first attempt
 * and after repair, attempts, tokens and time per task.
 */
import { writeFile } from "node:fs/promises";
import type { Command } from "./command.js";
import { UsageError } from "./usage-error.js";
import { languageFlag, numberFlag, parseCommandArgs, shareFlag, textFlag } from "./args.js";
import { MAX_RETRIES_RULE, resolveRepairStrategy } from "../graph/shared.js";
import { integerRule, oneOfRule, textRule } from "../options/index.js";
import { InvalidOptionError } from "../errors.js";
import { EvalModelUnavailableError } from "../eval/errors.js";
import { LANGUAGES } from "../sandbox/types.js";
import { TASK_FILE_FORMATS, type TaskFileFormat } from "../eval/task-set.js";
import { REPAIR_FLAGS_HELP, REPAIR_FLAG_OPTIONS, repairFlags } from "./repair-flags.js";

/** Seed of `--sample` when none is given (recorded in the report either way). */
const DEFAULT_SAMPLE_SEED = 20261203;

const HELP = `usage: codegen-sandbox eval --tasks FILE.jsonl [options]

Runs every task of FILE through the generate -> validate -> execute -> refine graph and
reports pass@1 on the first attempt and after repair, attempts, tokens and time per task.

options:
  --tasks FILE         JSONL task file (our format, HumanEval or HumanEval-X JavaScript),
                       or MBPP's JSON (sanitized-mbpp.json: its test split, ids 11-510)
  --format F           ${TASK_FILE_FORMATS.join(" | ")} (default auto)
  --model M            provider:model, e.g. openai:gpt-4o-mini (default: CODEGEN_MODEL)
  --max-retries N      repairs after the first attempt, 0 to 20 (default 2)
  --json OUT           also write the report as JSON to OUT ("-" for stdout instead of the table)
  --language L         only tasks in ${LANGUAGES.join(" | ")}
  --ids A,B            only these task ids
  --limit N            only the first N tasks (after the filters)
  --concurrency N      tasks solved at once, sharing the sandbox's pool (default 1)
  --sample N           N tasks drawn with --seed (after the filters, before --limit)
  --seed S             seed of --sample, recorded in the report (default 20261203)
  --shown-tests K      show the model only the first K test cases (MBPP's asserts) and
                       judge on all of them; hidden tests (a task's hiddenTests) never show
${REPAIR_FLAGS_HELP}
  --min-pass P         exit 1 when pass@1 after repair is below P (0.8, 80%); without it
                       the exit code says only whether the evaluation ran

The report ends with the wall time and the sandbox's share of it (time with a check or run in
flight); the sandbox's start-up (Python takes seconds) happens before the clock starts.

The model is configured like "solve": OPENAI_API_KEY, OPENAI_BASE_URL, CODEGEN_MODEL.`;

function percent(share: number): string {
  return `${(share * 100).toFixed(1).replace(/\.0$/, "")}%`;
}

/**
 * The `eval` subcommand; `main.ts` loads it lazily.
 *
 * @example
 * ```ts
 * const exitCode = await evalCommand.run(["--tasks", "evals/tasks.jsonl", "--limit", "5"]);
 * ```
 */
export const evalCommand: Command = {
  help: HELP,
  summary: "run a task set through the graph and report pass@1 (first attempt / after repair)",
  async run(argv) {
    const { values } = parseCommandArgs("eval", {
      args: argv,
      options: {
        tasks: { type: "string" },
        format: { type: "string" },
        model: { type: "string" },
        "max-retries": { type: "string" },
        json: { type: "string" },
        language: { type: "string" },
        ids: { type: "string" },
        limit: { type: "string" },
        concurrency: { type: "string" },
        "min-pass": { type: "string" },
        sample: { type: "string" },
        seed: { type: "string" },
        "shown-tests": { type: "string" },
        ...REPAIR_FLAG_OPTIONS,
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: false,
    });
    if (values.help) {
      process.stdout.write(HELP + "\n");
      return 0;
    }
    if (values.tasks === undefined) throw new UsageError("eval: --tasks FILE.jsonl is required (try evals/tasks.jsonl)");
    const format: TaskFileFormat | "auto" = textFlag("eval", "format", values.format, oneOfRule(TASK_FILE_FORMATS)) ?? "auto";
    textFlag("eval", "model", values.model, textRule({ what: 'a "provider:model" name, e.g. openai:gpt-4o-mini' }));
    const language = languageFlag("eval", values.language);
    const maxRetries = numberFlag("eval", "max-retries", values["max-retries"], MAX_RETRIES_RULE);
    const limit = numberFlag("eval", "limit", values.limit, integerRule({ min: 1, max: Number.MAX_SAFE_INTEGER, unit: "tasks" }));
    const concurrency = numberFlag("eval", "concurrency", values.concurrency, integerRule({ min: 1, max: 256, unit: "tasks at once" }));
    const minPass = shareFlag("eval", "min-pass", values["min-pass"]);
    const sample = numberFlag("eval", "sample", values.sample, integerRule({ min: 1, max: Number.MAX_SAFE_INTEGER, unit: "tasks" }));
    const seed = numberFlag("eval", "seed", values.seed, integerRule({ min: 0, max: 2 ** 32 - 1 })) ?? DEFAULT_SAMPLE_SEED;
    const shownTests = numberFlag("eval", "shown-tests", values["shown-tests"], integerRule({ min: 0, max: 1000, unit: "test cases" }));
    const repair = repairFlags("eval", values);

    // LangChain is loaded only now, so `--help` and usage errors stay instant.
    const [{ loadTaskFile }, { runEvaluation }, { renderEvalReport, renderTime }, { graphSolver }, { createCodeGenGraph }, models, { timeSandbox }, sandboxes] =
      await Promise.all([
        import("../eval/task-set.js"),
        import("../eval/run-evaluation.js"),
        import("../eval/render-report.js"),
        import("../eval/graph-solver.js"),
        import("../graph/index.js"),
        import("../models/index.js"),
        import("../eval/sandbox-timer.js"),
        import("../sandbox/run-code.js"),
      ]);

    let tasks = await loadTaskFile(values.tasks, { format });
    if (tasks.some((t) => t.id.startsWith("mbpp/"))) {
      const { readFile } = await import("node:fs/promises");
      const { createHash } = await import("node:crypto");
      const { MBPP_SANITIZED_SHA256 } = await import("../eval/mbpp.js");
      const sha256 = createHash("sha256").update(await readFile(values.tasks, "utf8")).digest("hex");
      process.stderr.write(
        sha256 === MBPP_SANITIZED_SHA256
          ? `eval: ${values.tasks} is the known sanitized MBPP file (sha256 ${sha256.slice(0, 8)}…${sha256.slice(-4)})\n`
          : `eval: WARNING: ${values.tasks} has sha256 ${sha256}, not the known sanitized MBPP file's ${MBPP_SANITIZED_SHA256}; results are not comparable\n`,
      );
    }
    if (language !== undefined) tasks = tasks.filter((t) => t.language === language);
    if (values.ids !== undefined) {
      const wanted = new Set(values.ids.split(",").map((s) => s.trim()).filter(Boolean));
      const unknown = [...wanted].filter((id) => !tasks.some((t) => t.id === id));
      if (unknown.length > 0) throw new UsageError(`eval: no task with id ${unknown.map((u) => `"${u}"`).join(", ")} in ${values.tasks}`);
      tasks = tasks.filter((t) => wanted.has(t.id));
    }
    if (sample !== undefined) {
      const { sampleTasks } = await import("../eval/mbpp.js");
      tasks = sampleTasks(tasks, sample, seed);
      process.stderr.write(`eval: sampled ${tasks.length} tasks with seed ${seed}: ${tasks.map((t) => t.id).join(", ")}\n`);
    }
    if (limit !== undefined) tasks = tasks.slice(0, limit);
    if (tasks.length === 0) throw new UsageError(`eval: no tasks left to run from ${values.tasks}`);

    const settings = models.readModelSettings(process.env);
    const modelName = values.model ?? settings.model;
    // Every task's checks and runs go through the shared sandbox (its pools serve concurrent
    // tasks), timed to report the sandbox's share of the evaluation's wall time.
    const shared = sandboxes.getSharedSandbox();
    const sandbox = timeSandbox(shared);
    const graph = createCodeGenGraph({
      ...(values.model !== undefined ? { model: values.model } : {}),
      ...(maxRetries !== undefined ? { maxRetries } : {}),
      ...(repair !== undefined ? { repair } : {}),
      sandbox,
    });
    process.stderr.write(`eval: ${tasks.length} tasks from ${values.tasks}, model ${modelName}, concurrency ${concurrency ?? 1}\n`);
    try {
      const languages = [...new Set(tasks.map((t) => t.language))];
      const warmStartedAt = performance.now();
      await shared.warm(languages);
      process.stderr.write(`eval: sandbox ready for ${languages.join(", ")} in ${((performance.now() - warmStartedAt) / 1000).toFixed(2)} s\n`);
      // The judged tests run in the same sandbox, apart from the graph (it never sees them).
      const { judgeRun } = await import("../graph/shared-nodes.js");
      const solveWithGraph = graphSolver(graph, {}, {
        ...(shownTests !== undefined ? { shownTests } : {}),
        async judge(code, judged, task) {
          const result = await shared.run(code, { language: task.language, tests: judged });
          return judgeRun(result, { code, tests: judged }).status === "success";
        },
      });
      let modelAnswered = false;
      const report = await runEvaluation({
        tasks,
        async solve(task, signal) {
          const outcome = await solveWithGraph(task, signal);
          const silent = outcome.attempts.length > 0 && outcome.attempts.every((a) => a.status === "model_error");
          // Until the model has answered once, a silent model is a setup problem, not a result.
          if (silent && !modelAnswered) throw new EvalModelUnavailableError(task.id, outcome.explanation ?? "no reply");
          if (!silent) modelAnswered = true;
          return outcome;
        },
        model: modelName,
        maxRetries: maxRetries ?? 2,
        ...(sample !== undefined ? { seed } : {}),
        ...(shownTests !== undefined ? { shownTests } : {}),
        repair: resolveRepairStrategy(repair),
        ...(concurrency !== undefined ? { concurrency } : {}),
        sandboxTime: () => sandbox.time(),
        // A missing key, a bad option or a model that never answers fails every task alike: stop at once.
        isFatal: (error) =>
          error instanceof models.ModelConfigurationError || error instanceof InvalidOptionError || error instanceof EvalModelUnavailableError,
        onResult(result, index, total) {
          const verdict = result.passedFirstAttempt ? "pass (first attempt)" : result.passedAfterRepair ? "pass (after repair)" : "FAIL";
          process.stderr.write(
            `[${index + 1}/${total}] ${result.id}: ${verdict}, ${result.attempts} attempt(s) ${result.attemptStatuses.join(">")}, ` +
              `${result.inputTokens + result.outputTokens} tokens, ${(result.durationMs / 1000).toFixed(2)} s\n`,
          );
        },
      });
      process.stderr.write(`eval: ${renderTime(report)}\n`);
      const json = JSON.stringify(report, null, 2) + "\n";
      if (values.json === "-") process.stdout.write(json);
      else {
        process.stdout.write(renderEvalReport(report) + "\n");
        if (values.json !== undefined) {
          await writeFile(values.json, json);
          process.stderr.write(`eval: JSON report written to ${values.json}\n`);
        }
      }
      if (minPass === undefined) return 0;
      const { passedAfterRepair, tasks: total, passAt1AfterRepair } = report.summary;
      const met = passAt1AfterRepair >= minPass;
      process.stderr.write(
        `eval: pass@1 after repair ${passedAfterRepair}/${total} (${percent(passAt1AfterRepair)}) is ${met ? "at or above" : "BELOW"} --min-pass ${percent(minPass)}\n`,
      );
      return met ? 0 : 1;
    } finally {
      await sandboxes.disposeDefaultSandbox();
    }
  },
};
