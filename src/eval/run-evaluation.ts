/**
 * Runs evaluation tasks through a solver (normally the code-generation graph) and measures
 * pass@1 on the first attempt and after repair, attempts, tokens and time per task.
 */
import type { EvalTask } from "./eval-task.js";
import { InvalidOptionError } from "../errors.js";
import { checkOptions, functionRule, integerRule, rule, signalRule, textRule, type OptionRules } from "../options/index.js";
import { MAX_RETRIES_RULE } from "../graph/shared.js";
import type { RepairStrategy } from "../graph/shared.js";
import type { SandboxTime } from "./sandbox-timer.js";

/** One attempt of a solver, reduced to what the evaluation counts. */
export interface EvalAttempt {
  /** True when this attempt's code ran and passed the task's tests. */
  passed: boolean;
  /** The attempt's outcome, e.g. `success`, `syntax_error`, `runtime_error`, `timeout`. */
  status: string;
  inputTokens: number;
  outputTokens: number;
  /** Time of this attempt in the sandbox (its check or run), when the solver knows it. */
  sandboxMs?: number;
  /** Model calls the attempt made (samples, explanations, repeats). Default 1. */
  modelCalls?: number;
  /** Programs the model wrote again in this attempt (same as an earlier one; not run). */
  repeats?: number;
}

/** What a solver returns for one task. */
export interface SolveOutcome {
  /** True when the final code passed the tests. */
  passed: boolean;
  attempts: EvalAttempt[];
  /** Why the task failed, in words (the graph's explanation or the last error). */
  explanation?: string;
  /** The final code. */
  code?: string;
  /** Attempts that ran a program the same as an earlier attempt's (the graph should make this 0). */
  repeatsExecuted?: number;
}

/** Solves one task; failures of the model's code are outcomes, not exceptions. */
export type EvalSolver = (task: EvalTask, signal?: AbortSignal) => Promise<SolveOutcome>;

/** One task's row of the report. */
export interface EvalTaskResult {
  id: string;
  language: EvalTask["language"];
  difficulty?: string;
  /** The first attempt passed the tests (pass@1 without repair). */
  passedFirstAttempt: boolean;
  /** The final code passed the tests (pass@1 with the repair loop). */
  passedAfterRepair: boolean;
  /** Attempts used (generate + refinements that produced code). */
  attempts: number;
  /** Status of each attempt, in order. */
  attemptStatuses: string[];
  /**
   * The attempt (1-based) whose program passed the judged tests, when one did. The loop stops
   * at a pass, so with `maxRetries: r` the task would have passed when this is at most r + 1.
   */
  passedAtAttempt?: number;
  /** Tokens (input + output) of each attempt, in order. */
  attemptTokens: number[];
  /** Model calls over all attempts. */
  modelCalls: number;
  /** Programs written again and not run. */
  repeatsSkipped: number;
  /** Programs run again that were the same as an earlier attempt's. */
  repeatsExecuted: number;
  inputTokens: number;
  outputTokens: number;
  /** Wall time of the whole task, model and sandbox included. */
  durationMs: number;
  /** Of which in the sandbox (sum over attempts, when the solver reports it). */
  sandboxMs: number;
  /** Why the task failed, or the message of an error the solver threw. */
  explanation?: string;
  /** Set when the solver threw instead of returning an outcome. */
  solverError?: string;
}

/** Pass rates and totals over a group of task results. */
export interface EvalSummary {
  tasks: number;
  passedFirstAttempt: number;
  passedAfterRepair: number;
  /** `passedFirstAttempt / tasks` (0 for no tasks). */
  passAt1FirstAttempt: number;
  /** `passedAfterRepair / tasks` (0 for no tasks). */
  passAt1AfterRepair: number;
  meanAttempts: number;
  inputTokens: number;
  outputTokens: number;
  meanDurationMs: number;
  medianDurationMs: number;
  totalDurationMs: number;
  /** Tasks whose solver threw (counted as failed). */
  solverErrors: number;
  /**
   * `byRetries[r]`: what a run with `maxRetries: r` would have given, from the same attempts
   * (the loop stops at the first pass): tasks passed, pass@1, tokens.
   */
  byRetries: { retries: number; passed: number; passAt1: number; tokens: number }[];
  modelCalls: number;
  repeatsSkipped: number;
  repeatsExecuted: number;
}

/** How much of the evaluation's wall time the sandbox took. */
export interface EvalSandboxShare extends SandboxTime {
  /** `busyMs / wallMs`: the share of the evaluation's wall time with a sandbox call in flight. */
  shareOfWall: number;
}

/** The result of an evaluation run. */
export interface EvalReport {
  /** Model name as given, for the record. */
  model?: string;
  maxRetries?: number;
  seed?: number;
  shownTests?: number;
  repair?: RepairStrategy;
  startedAt: string;
  /** Tasks solved at once. */
  concurrency: number;
  /** Wall time of the whole evaluation. */
  wallMs: number;
  /** The sandbox's share of the wall time (when `sandboxTime` was given). */
  sandbox?: EvalSandboxShare;
  results: EvalTaskResult[];
  summary: EvalSummary;
  /** Summaries per language and per difficulty. */
  byLanguage: Record<string, EvalSummary>;
  byDifficulty: Record<string, EvalSummary>;
}

/** Options of {@link runEvaluation}. */
export interface RunEvaluationOptions {
  tasks: EvalTask[];
  solve: EvalSolver;
  /** Recorded in the report. */
  model?: string;
  /** Recorded in the report. */
  maxRetries?: number;
  /** Recorded in the report: the seed the tasks were sampled with. */
  seed?: number;
  /** Recorded in the report: test cases shown to the model. */
  shownTests?: number;
  /** Recorded in the report: the repair strategy. */
  repair?: RepairStrategy;
  /** Tasks solved at once. Default 1 (timings per task stay meaningful). */
  concurrency?: number;
  /** Called as each task finishes (progress output). */
  onResult?: (result: EvalTaskResult, index: number, total: number) => void;
  /**
   * Decides whether an error the solver threw ends the whole run (true: rethrown) or only
   * fails that task. Default: every error only fails its task.
   */
  isFatal?: (error: unknown) => boolean;
  signal?: AbortSignal;
  /**
   * Reads the time spent in the sandbox so far (e.g. `timeSandbox(sandbox).time`); the report
   * then gives the sandbox's share of the evaluation's wall time.
   */
  sandboxTime?: () => SandboxTime;
}

/** The options of {@link runEvaluation} and their rules (keys from the interface itself). */
const RUN_EVALUATION_RULES = {
  tasks: rule("an array of tasks (from parseTaskFile or loadTaskFile)", (v) => Array.isArray(v) && v.every((t) => typeof t === "object" && t !== null && typeof (t as { id?: unknown }).id === "string")),
  solve: functionRule("a solver (task, signal) => Promise<SolveOutcome>, e.g. graphSolver(createCodeGenGraph())"),
  model: textRule({ what: "a model name" }),
  maxRetries: MAX_RETRIES_RULE,
  seed: integerRule({ min: 0, max: 2 ** 32 - 1 }),
  shownTests: integerRule({ min: 0, max: 1000, unit: "test cases" }),
  repair: rule("the repair strategy (an object)", (v) => typeof v === "object" && v !== null),
  concurrency: integerRule({ min: 1, max: 256, unit: "tasks at once" }),
  onResult: functionRule("a function (result, index, total) => void"),
  isFatal: functionRule("a function (error) => boolean"),
  signal: signalRule,
  sandboxTime: functionRule("a function () => SandboxTime, e.g. timeSandbox(sandbox).time"),
} satisfies OptionRules<RunEvaluationOptions>;

/**
 * Runs every task through `solve` and builds the report.
 *
 * @example
 * ```ts
 * const report = await runEvaluation({ tasks, solve: graphSolver(graph) });
 * console.log(report.summary.passAt1FirstAttempt, report.summary.passAt1AfterRepair);
 * ```
 */
export async function runEvaluation(given: RunEvaluationOptions): Promise<EvalReport> {
  if (given === null || typeof given !== "object") throw new InvalidOptionError("options", given, "{ tasks, solve, ... }");
  const options = checkOptions<RunEvaluationOptions>(given, RUN_EVALUATION_RULES, "runEvaluation");
  for (const required of ["tasks", "solve"] as const) {
    if (options[required] === undefined) throw new InvalidOptionError(required, undefined, RUN_EVALUATION_RULES[required].expected);
  }
  const { tasks, solve } = options;
  const startedAt = new Date().toISOString();
  const results: EvalTaskResult[] = new Array(tasks.length);
  const concurrency = options.concurrency ?? 1;
  const startedAtMs = performance.now();
  const sandboxAtStart = options.sandboxTime?.();
  let next = 0;
  let finished = 0;

  async function worker(): Promise<void> {
    while (next < tasks.length) {
      options.signal?.throwIfAborted();
      const index = next++;
      const task = tasks[index]!;
      const started = performance.now();
      let result: EvalTaskResult;
      try {
        const outcome = await solve(task, options.signal);
        result = toResult(task, outcome, performance.now() - started);
      } catch (error) {
        if (options.isFatal?.(error) || options.signal?.aborted) throw error;
        const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        result = {
          ...baseResult(task),
          durationMs: performance.now() - started,
          explanation: message,
          solverError: message,
        };
      }
      results[index] = result;
      options.onResult?.(result, finished++, tasks.length);
    }
  }

  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, tasks.length)) }, () => worker()));
  const group = (key: (r: EvalTaskResult) => string | undefined) => {
    const groups: Record<string, EvalTaskResult[]> = {};
    for (const r of results) (groups[key(r) ?? "unspecified"] ??= []).push(r);
    return Object.fromEntries(Object.entries(groups).map(([name, rows]) => [name, summarize(rows)]));
  };
  const wallMs = performance.now() - startedAtMs;
  const report: EvalReport = {
    startedAt,
    concurrency,
    wallMs,
    results,
    summary: summarize(results),
    byLanguage: group((r) => r.language),
    byDifficulty: group((r) => r.difficulty),
  };
  if (options.sandboxTime !== undefined && sandboxAtStart !== undefined) {
    const now = options.sandboxTime();
    const busyMs = now.busyMs - sandboxAtStart.busyMs;
    report.sandbox = { calls: now.calls - sandboxAtStart.calls, busyMs, callMs: now.callMs - sandboxAtStart.callMs, shareOfWall: wallMs > 0 ? busyMs / wallMs : 0 };
  }
  if (options.model !== undefined) report.model = options.model;
  if (options.maxRetries !== undefined) report.maxRetries = options.maxRetries;
  if (options.seed !== undefined) report.seed = options.seed;
  if (options.shownTests !== undefined) report.shownTests = options.shownTests;
  if (options.repair !== undefined) report.repair = options.repair;
  return report;
}

function baseResult(task: EvalTask): EvalTaskResult {
  const result: EvalTaskResult = {
    id: task.id,
    language: task.language,
    passedFirstAttempt: false,
    passedAfterRepair: false,
    attempts: 0,
    attemptStatuses: [],
    inputTokens: 0,
    outputTokens: 0,
    durationMs: 0,
    sandboxMs: 0,
    attemptTokens: [],
    modelCalls: 0,
    repeatsSkipped: 0,
    repeatsExecuted: 0,
  };
  if (task.difficulty !== undefined) result.difficulty = task.difficulty;
  return result;
}

function toResult(task: EvalTask, outcome: SolveOutcome, durationMs: number): EvalTaskResult {
  const result: EvalTaskResult = {
    ...baseResult(task),
    passedFirstAttempt: outcome.attempts[0]?.passed ?? false,
    passedAfterRepair: outcome.passed,
    attempts: outcome.attempts.length,
    attemptStatuses: outcome.attempts.map((a) => a.status),
    inputTokens: outcome.attempts.reduce((sum, a) => sum + a.inputTokens, 0),
    outputTokens: outcome.attempts.reduce((sum, a) => sum + a.outputTokens, 0),
    durationMs,
    sandboxMs: outcome.attempts.reduce((sum, a) => sum + (a.sandboxMs ?? 0), 0),
    attemptTokens: outcome.attempts.map((a) => a.inputTokens + a.outputTokens),
    modelCalls: outcome.attempts.reduce((sum, a) => sum + (a.modelCalls ?? 1), 0),
    repeatsSkipped: outcome.attempts.reduce((sum, a) => sum + (a.repeats ?? 0), 0),
    repeatsExecuted: outcome.repeatsExecuted ?? 0,
  };
  const passedAt = outcome.attempts.findIndex((a) => a.passed);
  if (passedAt >= 0) result.passedAtAttempt = passedAt + 1;
  else if (outcome.passed) result.passedAtAttempt = outcome.attempts.length;
  if (!outcome.passed && outcome.explanation !== undefined) result.explanation = outcome.explanation;
  return result;
}

/**
 * Pass rates, attempts, tokens and time over a list of task results.
 *
 * @example
 * ```ts
 * summarize(report.results.filter((r) => r.language === "python")).passAt1AfterRepair;
 * ```
 */
export function summarize(results: EvalTaskResult[]): EvalSummary {
  const n = results.length;
  const sum = (f: (r: EvalTaskResult) => number) => results.reduce((s, r) => s + f(r), 0);
  const durations = results.map((r) => r.durationMs).sort((a, b) => a - b);
  const median =
    n === 0 ? 0 : n % 2 === 1 ? durations[(n - 1) / 2]! : (durations[n / 2 - 1]! + durations[n / 2]!) / 2;
  const first = results.filter((r) => r.passedFirstAttempt).length;
  const after = results.filter((r) => r.passedAfterRepair).length;
  return {
    tasks: n,
    passedFirstAttempt: first,
    passedAfterRepair: after,
    passAt1FirstAttempt: n === 0 ? 0 : first / n,
    passAt1AfterRepair: n === 0 ? 0 : after / n,
    meanAttempts: n === 0 ? 0 : sum((r) => r.attempts) / n,
    inputTokens: sum((r) => r.inputTokens),
    outputTokens: sum((r) => r.outputTokens),
    meanDurationMs: n === 0 ? 0 : sum((r) => r.durationMs) / n,
    medianDurationMs: median,
    totalDurationMs: sum((r) => r.durationMs),
    solverErrors: results.filter((r) => r.solverError !== undefined).length,
    byRetries: Array.from({ length: Math.max(0, ...results.map((r) => r.attempts)) }, (_, retries) => {
      const passed = results.filter((r) => r.passedAtAttempt !== undefined && r.passedAtAttempt <= retries + 1).length;
      const tokens = sum((r) => r.attemptTokens.slice(0, retries + 1).reduce((s, t) => s + t, 0));
      return { retries, passed, passAt1: n === 0 ? 0 : passed / n, tokens };
    }),
    modelCalls: sum((r) => r.modelCalls),
    repeatsSkipped: sum((r) => r.repeatsSkipped),
    repeatsExecuted: sum((r) => r.repeatsExecuted),
  };
}
