/** `execute`: runs the code in the sandbox, with the caller's tests and expected output. */
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { ExecutionResult } from "../../sandbox/types.js";
import type { CodeGenContext } from "../configuration.js";
import { emitEvent } from "../events.js";
import { explainWrongOutput } from "../../feedback/explain.js";
import { describeError } from "../../feedback/quote.js";
import { truncate } from "../../feedback/truncate.js";
import type { Attempt, AttemptStatus, CodeGenStateType, CodeGenUpdate } from "../state.js";

/** Output compared with `expectedOutput`: line endings and trailing spaces do not count. */
export function normalizeOutput(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .trim();
}

/**
 * What the program showed as its output: stdout, or (when it printed nothing) its result value.
 */
export function shownOutput(result: ExecutionResult): string {
  if (result.stdout.trim() !== "" || result.result === undefined) return result.stdout;
  return typeof result.result === "string" ? result.result : JSON.stringify(result.result);
}

/**
 * Judges a run: the sandbox's status, `test_failed` when the error is in the appended tests,
 * `wrong_output` when the output differs from `expectedOutput`.
 */
export function judgeRun(
  result: ExecutionResult,
  program: string,
  codeLineCount: number,
  expectedOutput: string | undefined,
): { status: AttemptStatus; error?: string } {
  if (result.status === "success") {
    if (expectedOutput === undefined) return { status: "success" };
    const actual = normalizeOutput(shownOutput(result));
    const expected = normalizeOutput(expectedOutput);
    if (actual === expected) return { status: "success" };
    return {
      status: "wrong_output",
      error: explainWrongOutput(expected, actual),
    };
  }
  if (result.error === undefined) return { status: result.status, error: `The run ended with status ${result.status}.` };
  const error = describeError(result.error, program);
  if (result.status === "runtime_error" && result.error.line !== undefined && result.error.line > codeLineCount) {
    return { status: "test_failed", error: `A test failed: ${error}` };
  }
  return { status: result.status, error };
}

/** Builds the `execute` node. Every run is recorded as an attempt in phase `execute`. */
export function createExecuteNode(context: CodeGenContext) {
  return async function execute(state: CodeGenStateType, config: LangGraphRunnableConfig): Promise<CodeGenUpdate> {
    const language = state.language ?? context.defaultLanguage(config);
    const code = state.code ?? "";
    const number = state.refinements + 1;
    const tests = state.tests?.trim() ?? "";
    // Tests follow the code in the same program, so they see its functions and variables.
    const program = tests === "" ? code : `${code}\n\n${tests}\n`;
    const sandbox = await context.sandbox();
    const result = await sandbox.run(program, { language, ...context.runLimits });
    const verdict = judgeRun(result, program, code.split("\n").length, state.expectedOutput);
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
    return { result, attempts: [attempt], pendingTokens: undefined };
  };
}
