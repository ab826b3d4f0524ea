/**
 * An execution record as the short text a model reads as a tool result. The full record
 * travels as the tool message's artifact; this text is bounded so a chatty program cannot flood
 * the model's context.
 */
import type { ExecutionResult, JsonValue } from "../sandbox/types.js";
import { NEXT_STEP, type FeedbackStatus } from "./next-step.js";
import { quoteLine } from "./quote.js";
import { renderTestReport, testCountLine } from "./test-report.js";
import { DEFAULT_MAX_CONTENT_CHARS, truncate } from "./truncate.js";
import type { ExecutionError } from "../sandbox/types.js";

/**
 * Renders a JSON result for a model; `undefined` means the program produced none.
 *
 * @example
 * ```ts
 * renderResult({ a: [1, 2] }); // '{"a":[1,2]}'
 * ```
 */
export function renderResult(result: JsonValue | undefined): string | undefined {
  if (result === undefined) return undefined;
  return JSON.stringify(result);
}

function errorLines(label: string, error: ExecutionError, code: string): string[] {
  const where = error.line !== undefined ? ` (line ${error.line})` : "";
  const lines = [`${label}: ${error.name}: ${truncate(error.message, 500)}${where}`];
  const quoted = quoteLine(code, error.line);
  if (quoted) lines.push(`  ${error.line} | ${quoted}`);
  return lines;
}

/**
 * Formats one execution as bounded text for a model: status, output, result, and for a failure
 * the error with its line quoted and what to try (the same table the graph uses). With
 * `tests` (their source), a run given tests also reports them; `hint` replaces the table's
 * "what to try" line.
 *
 * @example
 * ```ts
 * const text = formatExecutionForModel(result, code, { maxChars: 2000 });
 * // "status: success\nstdout:\n3628800\nresult: 3628800"
 * ```
 */
export function formatExecutionForModel(
  result: ExecutionResult,
  code: string,
  options: { maxChars?: number; tests?: string; hint?: string } = {},
): string {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CONTENT_CHARS;
  // Output gets most of the budget; the error and hint are short and always kept whole.
  const parts: string[] = [`status: ${result.status}`];
  const tail: string[] = [];
  let hintStatus: FeedbackStatus = result.status;
  if (result.error) tail.push(...errorLines("error", result.error, code));
  if (result.tests !== undefined) {
    tail.push(`tests: ${result.tests.status}${result.tests.reason === undefined ? "" : ` (${truncate(result.tests.reason, 300)})`}`);
    const report = result.tests.status === "failed" ? renderTestReport(result.tests, { code, maxFailures: 3 }) : undefined;
    if (report !== undefined) tail.push(report);
    else if (result.tests.error) tail.push(...errorLines("test error", result.tests.error, options.tests ?? ""));
    else if (result.tests.status === "passed") {
      const count = testCountLine(result.tests);
      if (count !== undefined) tail.push(count);
    }
    if (result.status === "success" && result.tests.status === "failed") hintStatus = "test_failed";
    if (result.status === "success" && result.tests.status === "not_run") hintStatus = "tests_not_run";
  }
  // A caller that knows better what to try (e.g. code mode, for its own refusals) says so.
  const hint = options.hint ?? NEXT_STEP[hintStatus];
  if (hint) tail.push(`hint: ${hint}`);
  const rendered = renderResult(result.result);
  const resultLine = rendered === undefined ? undefined : `result: ${truncate(rendered, 1000)}`;
  const fixedLength = [...parts, ...tail, resultLine ?? ""].join("\n").length + 40;
  const outputBudget = Math.max(200, maxChars - fixedLength);
  const stdoutBudget = result.stderr ? Math.floor(outputBudget * 0.7) : outputBudget;
  if (result.stdout) parts.push(`stdout:\n${truncate(result.stdout.trimEnd(), stdoutBudget)}`);
  if (result.stderr) parts.push(`stderr:\n${truncate(result.stderr.trimEnd(), outputBudget - stdoutBudget)}`);
  if (result.outputTruncated) parts.push("(output was cut at the sandbox's output limit)");
  if (resultLine) parts.push(resultLine);
  if (!result.stdout && !result.stderr && resultLine === undefined && result.status === "success") {
    parts.push("(no output: print values or end with an expression to see them)");
  }
  return truncate([...parts, ...tail].join("\n"), maxChars);
}
