/**
 * Turns execution records into the short text a model reads as a tool result. The full record
 * travels as the tool message's artifact; this text is bounded so a chatty program cannot
 * flood the model's context.
 */
import type { ExecutionResult, JsonValue } from "../sandbox/types.js";
import { quoteLine } from "../graph/explain.js";

/** Default bound of the text a tool returns to the model, in characters. */
export const DEFAULT_MAX_CONTENT_CHARS = 4000;

/** What to tell the model to try next, per failed status. */
const NEXT_STEP: Record<ExecutionResult["status"], string> = {
  success: "",
  syntax_error: "Fix the syntax at the line shown and call the tool again.",
  runtime_error: "Fix the error at the line shown (check names, types and edge cases) and call the tool again.",
  timeout: "The code ran too long: remove infinite loops, use a faster algorithm or smaller inputs.",
  memory_limit: "The code used too much memory: use smaller data structures or stream the work.",
  output_limit: "The code printed too much: print a summary instead of every value.",
  forbidden: "That module is not available in the sandbox: use only the standard language features.",
  cancelled: "The run was cancelled by the caller; call the tool again only if asked to.",
};

/**
 * Cuts `text` to at most `maxChars` characters, saying how much was left out.
 *
 * @example
 * ```ts
 * truncateText("x".repeat(100), 50); // "xxxxxxxxxx\n... [90 more characters cut]"
 * ```
 */
export function truncateText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const kept = Math.max(0, maxChars - 40);
  return `${text.slice(0, kept)}\n... [${text.length - kept} more characters cut]`;
}

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

/**
 * Formats one execution as bounded text for a model: status, output, result, and for a failure
 * the error with its line quoted and what to try.
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
  options: { maxChars?: number } = {},
): string {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CONTENT_CHARS;
  // Output gets most of the budget; the error and hint are short and always kept whole.
  const parts: string[] = [`status: ${result.status}`];
  const tail: string[] = [];
  if (result.error) {
    const where = result.error.line !== undefined ? ` (line ${result.error.line})` : "";
    tail.push(`error: ${result.error.name}: ${truncateText(result.error.message, 500)}${where}`);
    const quoted = quoteLine(code, result.error.line);
    if (quoted) tail.push(`  ${result.error.line} | ${quoted}`);
  }
  const hint = NEXT_STEP[result.status];
  if (hint) tail.push(`hint: ${hint}`);
  const rendered = renderResult(result.result);
  const resultLine = rendered === undefined ? undefined : `result: ${truncateText(rendered, 1000)}`;
  const fixedLength = [...parts, ...tail, resultLine ?? ""].join("\n").length + 40;
  const outputBudget = Math.max(200, maxChars - fixedLength);
  const stdoutBudget = result.stderr ? Math.floor(outputBudget * 0.7) : outputBudget;
  if (result.stdout) parts.push(`stdout:\n${truncateText(result.stdout.trimEnd(), stdoutBudget)}`);
  if (result.stderr) parts.push(`stderr:\n${truncateText(result.stderr.trimEnd(), outputBudget - stdoutBudget)}`);
  if (result.outputTruncated) parts.push("(output was cut at the sandbox's output limit)");
  if (resultLine) parts.push(resultLine);
  if (!result.stdout && !result.stderr && resultLine === undefined && result.status === "success") {
    parts.push("(no output: print values or end with an expression to see them)");
  }
  return truncateText([...parts, ...tail].join("\n"), maxChars);
}
