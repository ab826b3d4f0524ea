/**
 * `execute`: runs the program in the sandbox with the caller's tests as their own evaluation
 * (`RunOptions.tests`), then judges the run: the program's status, the tests' outcome and
 * `expectedOutput` against the program's own output.
 */
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { ExecutionError, ExecutionResult } from "../../sandbox/types.js";
import type { GraphSettings } from "../configuration.js";
import { emitEvent } from "../events.js";
import { explain, explainNoOutput, explainWrongOutput } from "../../feedback/explain.js";
import { describeError } from "../../feedback/quote.js";
import { truncate } from "../../feedback/truncate.js";
import { explainTestReport } from "../../feedback/test-report.js";
import type { Attempt, AttemptStatus, CodeGenStateType, CodeGenUpdate } from "../state.js";
import { restoreRunResult, storeRunResult } from "../stored-result.js";
import { normalizeOutput, outputRequest, shownOutput } from "../shown-output.js";

export { normalizeOutput, shownOutput } from "../shown-output.js";

/** One line for an error raised by the tests: its line (and column) named as a place in the tests. */
export function describeTestError(error: ExecutionError, tests: string): string {
  const text = describeError(error, tests);
  if (error.line === undefined) return text;
  const where = error.column === undefined ? `line ${error.line}` : `line ${error.line}:${error.column}`;
  return text.replace(` (${where}`, ` (${where} of the tests`);
}

/** The verdict on one run. */
export interface RunVerdict {
  status: AttemptStatus;
  /** One paragraph for the attempt and the model; absent on success. */
  error?: string;
}

/** What a run is judged against: the program, and the task's tests, expected output and words. */
export interface RunTask {
  code: string;
  /** The tests' source (`""` when none). */
  tests: string;
  expectedOutput?: string | undefined;
  /** The task in words: decides whether a run that shows nothing did the job. */
  task?: string | undefined;
}

/**
 * Judges a run of `code` with `tests`:
 * - the program failed (any status but `success`) and the tests did not fail on their own:
 *   the program's status, located in `code`;
 * - the tests raised or hit a limit (`result.tests.status === "failed"`): `test_failed`, with
 *   the failing line of the tests, never blamed on the code;
 * - the program succeeded but the tests did not run (`sys.exit`, a rejected or never-settled
 *   top-level promise, or an engine that reported nothing): `tests_not_run`, with the reason;
 * - the output differs from `expectedOutput` (the program's own stdout, not the tests'):
 *   `wrong_output`;
 * - without tests or `expectedOutput`, the program printed nothing and its last expression has
 *   no value while the task asks to print or return something: `no_output`, quoting the task's
 *   words (a program that only defines a function the task asked to be printed with).
 *
 * @example
 * ```ts
 * judgeRun(result, { code, tests: "assert add(2, 3) == 5" }); // { status: "success" }
 * ```
 */
export function judgeRun(result: ExecutionResult, { code, tests, expectedOutput, task }: RunTask): RunVerdict {
  const outcome = result.tests;
  if (tests !== "" && outcome?.status === "failed") {
    // Tests that ran one by one: every failing test with its values (feedback/test-report.ts).
    const report = explainTestReport(outcome, { code });
    if (report !== undefined) return { status: "test_failed", error: report };
    const what = outcome.error === undefined ? "The tests failed without an error message." : describeTestError(outcome.error, tests);
    const printed = outcome.stdout.trim();
    return { status: "test_failed", error: explain("test_failed", printed === "" ? what : `${what}\nThe tests printed:\n${truncate(printed, 200)}`) };
  }
  if (result.status !== "success") {
    if (result.error === undefined) return { status: result.status, error: `The run ended with status ${result.status}.` };
    return { status: result.status, error: describeError(result.error, code) };
  }
  if (tests !== "" && outcome?.status !== "passed") {
    const reason = outcome?.reason ?? (outcome === undefined ? "the sandbox did not report on them" : "no reason was given");
    return { status: "tests_not_run", error: explain("tests_not_run", `Why: ${reason}`) };
  }
  if (expectedOutput === undefined) {
    const asked = tests === "" && task !== undefined && shownOutput(result).trim() === "" ? outputRequest(task) : undefined;
    if (asked === undefined) return { status: "success" };
    return { status: "no_output", error: explainNoOutput(asked) };
  }
  const actual = normalizeOutput(shownOutput(result));
  const expected = normalizeOutput(expectedOutput);
  if (actual === expected) return { status: "success" };
  return { status: "wrong_output", error: explainWrongOutput(expected, actual) };
}

/** Runs `code` in the run's sandbox with the task's tests (and the graph's tools, when it has them). */
export async function runProgram(settings: GraphSettings, state: CodeGenStateType, config: LangGraphRunnableConfig, code: string): Promise<ExecutionResult> {
  const language = state.language ?? settings.defaultLanguage(config);
  const tests = state.tests?.trim() ?? "";
  const sandbox = await settings.sandbox();
  const runOptions = {
    language,
    ...settings.runLimitsFor(config),
    ...(tests === "" ? {} : { tests }),
    ...(config.signal === undefined ? {} : { signal: config.signal }),
  };
  return settings.codeTools ? settings.codeTools.run(sandbox, code, runOptions, config) : sandbox.run(code, runOptions);
}

/** Builds the `execute` node. Every run is recorded as an attempt in phase `execute`. */
export function createExecuteNode(settings: GraphSettings) {
  return async function execute(state: CodeGenStateType, config: LangGraphRunnableConfig): Promise<CodeGenUpdate> {
    const code = state.code ?? "";
    const number = state.refinements + 1;
    const tests = state.tests?.trim() ?? "";
    // A candidate chosen by running it is not run a second time.
    const result = state.trialRun !== undefined && state.trialRun.code === code ? restoreRunResult(state.trialRun.result) : await runProgram(settings, state, config, code);
    const verdict = judgeRun(result, { code, tests, expectedOutput: state.expectedOutput, task: state.task });
    const stdout = truncate(result.stdout, 500);
    const attempt: Attempt = {
      number,
      code,
      phase: "execute",
      status: verdict.status,
      stdout,
      durationMs: result.durationMs,
      ...(state.pendingTokens ?? { inputTokens: 0, outputTokens: 0 }),
    };
    if (verdict.error !== undefined) attempt.error = verdict.error;
    emitEvent(config, {
      node: "execute",
      attempt: number,
      status: verdict.status,
      ...(verdict.error === undefined ? {} : { message: verdict.error }),
      stdout,
      durationMs: result.durationMs,
    });
    return { result: storeRunResult(result), attempts: [attempt], pendingTokens: undefined, trialRun: undefined };
  };
}
