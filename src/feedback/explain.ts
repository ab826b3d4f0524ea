/**
 * Failures in words a model (or a person) can act on: what went wrong, the failing line quoted,
 * and what to try, from the one table in `next-step.ts`, bounded by the one truncation rule.
 */
import type { CheckResult, ExecutionResult, Language, TestsOutcome } from "../sandbox/types.js";
import type { TypeDiagnostic } from "../typecheck/types.js";
import { NEXT_STEP, whatHappened, type FeedbackLimits, type FeedbackStatus } from "./next-step.js";
import { describeError, quoteLine } from "./quote.js";
import { explainTestReport } from "./test-report.js";
import { MAX_EXPLANATION_CHARS, truncate } from "./truncate.js";

/** A failed validation: the sandbox's check, or a type check (status `type_error`). */
export type FailedValidation =
  | Extract<CheckResult, { ok: false }>
  | { ok: false; language: Language; status: "type_error"; diagnostics: TypeDiagnostic[] };

/**
 * The explanation of one outcome: what happened, the detail (error with its line), what to try.
 *
 * @example
 * ```ts
 * explain("runtime_error", "TypeError: x is undefined (line 3: `x.y`)");
 * // "The code threw an error while running. TypeError: x is undefined (line 3: `x.y`). Fix the cause on that line (...)."
 * ```
 */
export function explain(status: FeedbackStatus, detail?: string, limits: FeedbackLimits = {}): string {
  const text = detail?.trim() ?? "";
  let what = whatHappened(status, limits);
  if (text === "" && what.endsWith(":")) what = `${what.slice(0, -1)}.`;
  let explanation = text === "" ? what : `${what} ${text}`;
  const next = NEXT_STEP[status];
  if (next !== "") {
    // A one-line detail reads as a sentence; after a multi-line one (output samples) the next step starts a line.
    if (text.includes("\n")) explanation += `\n${next}`;
    else explanation += `${text === "" || /[.!?:]$/.test(text) ? "" : "."} ${next}`;
  }
  return truncate(explanation, MAX_EXPLANATION_CHARS);
}

/**
 * Explains a failed validation of `code`: syntax, forbidden import, or type errors.
 *
 * @example
 * ```ts
 * explainCheck({ ok: false, language: "python", status: "forbidden", error: { name: "ImportError", message: "requests is not available", line: 1 } }, "import requests");
 * ```
 */
export function explainCheck(check: FailedValidation, code: string): string {
  if (check.status === "type_error") return explain("type_error", describeTypeErrors(check.diagnostics, code));
  return explain(check.status, describeError(check.error, code));
}

/**
 * Explains a run of `code`: its status with the error and its line, and, for a run that
 * succeeded but was given tests, how the tests went (`tests` is their source).
 *
 * @example
 * ```ts
 * explainResult(result, code, { timeoutMs: 5000 }); // "The code ran longer than the time limit of 5000 ms and was stopped. ..."
 * ```
 */
export function explainResult(result: ExecutionResult, code: string, limits: FeedbackLimits = {}, tests?: string): string {
  if (result.status === "success" && result.tests !== undefined && result.tests.status !== "passed") {
    return explainTests(result.tests, tests ?? "", code);
  }
  return explain(result.status, result.error === undefined ? undefined : describeError(result.error, code), limits);
}

/**
 * Explains tests that failed (the failing test's line quoted from `tests`) or did not run.
 * Passed tests get the success sentence. Tests that ran one by one get the per-test report
 * (test-report.ts: counts, values, exceptions located in `code`).
 *
 * @example
 * ```ts
 * explainTests({ status: "failed", stdout: "", stderr: "", error: { name: "AssertionError", message: "", line: 1 } }, "assert add(2, 3) == 5");
 * // "A test failed: AssertionError:  (line 1: `assert add(2, 3) == 5`). Fix the code so the test passes; ..."
 * ```
 */
export function explainTests(outcome: TestsOutcome, tests: string, code?: string): string {
  if (outcome.status === "passed") return explain("success");
  if (outcome.status === "failed") {
    const report = explainTestReport(outcome, code === undefined ? {} : { code });
    if (report !== undefined) return report;
  }
  if (outcome.status === "not_run") return explain("tests_not_run", outcome.reason === undefined ? undefined : `The program ended before the tests could run (${outcome.reason})`);
  return explain("test_failed", outcome.error === undefined ? "the tests failed without an error message" : describeError(outcome.error, tests));
}

/**
 * Explains output that differs from the expected output, showing both (bounded).
 *
 * @example
 * ```ts
 * explainWrongOutput("42", "41"); // "The output differs from the expected output. Expected:\n42\nGot:\n41 ..."
 * ```
 */
export function explainWrongOutput(expected: string, actual: string): string {
  return explain("wrong_output", `Expected:\n${truncate(expected, 250)}\nGot:\n${actual === "" ? "(nothing printed)" : truncate(actual, 250)}`);
}

/**
 * Explains a run that showed nothing for a task that asks for output; `asked` quotes the task.
 *
 * @example
 * ```ts
 * explainNoOutput("Calculate the factorial of 10 and print it");
 * // "The program ran but printed nothing ... The task asks: \"Calculate the factorial of 10 and print it\". Print the answer ..."
 * ```
 */
export function explainNoOutput(asked: string): string {
  return explain("no_output", `The task asks: "${asked}".`);
}

/**
 * Explains generated code that defines none of the functions its task names (the SDK's check
 * before an instance is handed out).
 *
 * @example
 * ```ts
 * explainMissingFunctions(["add"], ["sum"]);
 * // "The code defines none of the functions the task names (add); it defines: sum. Define them at the top level under exactly those names."
 * ```
 */
export function explainMissingFunctions(requested: readonly string[], defined: readonly string[]): string {
  const has = defined.length === 0 ? "it defines nothing at the top level" : `it defines: ${truncate(defined.join(", "), 200)}`;
  return `The code defines none of the functions the task names (${requested.join(", ")}); ${has}. Define them at the top level under exactly those names.`;
}

/**
 * Explains a reply in which no program was found; `reason` comes from the extractor.
 *
 * @example
 * ```ts
 * explainNoProgram("the reply has no code block"); // "No program was found in the reply: the reply has no code block. Answer with ..."
 * ```
 */
export function explainNoProgram(reason: string): string {
  return explain("no_program", `Why: ${reason}`);
}

/**
 * Type errors as one line each: `line L:C TS<code>: message (`source`)`, joined with "; ".
 *
 * @example
 * ```ts
 * describeTypeErrors([{ line: 1, column: 7, code: 2322, message: "Type 'string' is not assignable to type 'number'." }], 'const a: number = "x";');
 * ```
 */
export function describeTypeErrors(diagnostics: readonly TypeDiagnostic[], code: string): string {
  const shown = diagnostics.slice(0, 5).map((d) => {
    const quoted = quoteLine(code, d.line);
    return `line ${d.line}:${d.column} TS${d.code}: ${truncate(d.message, 200)}${quoted === undefined ? "" : ` (\`${quoted}\`)`}`;
  });
  if (diagnostics.length > shown.length) shown.push(`and ${diagnostics.length - shown.length} more`);
  return shown.join("; ");
}
