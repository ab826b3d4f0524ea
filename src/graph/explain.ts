/**
 * Failures in words a person (or the model) can act on: what went wrong, the failing line
 * quoted, and what to try. Bounded length.
 */
import type { CheckResult, ExecutionError, ExecutionResult } from "../sandbox/types.js";

/** Default upper bound of an explanation, in characters. */
export const MAX_EXPLANATION_CHARS = 700;

/**
 * The line `line` (1-based) of `code`, trimmed and bounded, or undefined when out of range.
 *
 * @example
 * ```ts
 * quoteLine("let a = 1;\nfoo();", 2); // "foo();"
 * ```
 */
export function quoteLine(code: string, line: number | undefined): string | undefined {
  if (line === undefined || line < 1) return undefined;
  const text = code.split("\n")[line - 1];
  if (text === undefined || text.trim() === "") return undefined;
  const trimmed = text.trim();
  return trimmed.length > 160 ? `${trimmed.slice(0, 157)}...` : trimmed;
}

/**
 * One line for an error: `Name: message (line N: `source`)`.
 *
 * @example
 * ```ts
 * describeError({ name: "ReferenceError", message: "x is not defined", line: 1 }, "print(x)");
 * // "ReferenceError: x is not defined (line 1: `print(x)`)"
 * ```
 */
export function describeError(error: ExecutionError, code: string): string {
  const message = bound(`${error.name}: ${error.message}`.split("\n")[0], 300);
  if (error.line === undefined) return message;
  const quoted = quoteLine(code, error.line);
  return quoted === undefined ? `${message} (line ${error.line})` : `${message} (line ${error.line}: \`${quoted}\`)`;
}

/**
 * Explains a failed check (syntax or forbidden import) of `code`.
 *
 * @example
 * ```ts
 * explainCheck({ ok: false, language: "python", status: "forbidden", error: { name: "ImportError", message: "requests is not available", line: 1 } }, "import requests");
 * ```
 */
export function explainCheck(check: Extract<CheckResult, { ok: false }>, code: string): string {
  const what = describeError(check.error, code);
  const advice =
    check.status === "syntax_error"
      ? "The code does not parse; fix the syntax on that line (a missing bracket or quote, or markup around the code)."
      : "The code imports a module the sandbox does not provide; use only the language's built-ins (no packages, files, network or processes).";
  return bound(`${advice} ${what}`, MAX_EXPLANATION_CHARS);
}

/**
 * Explains a failed run (any status but `success`). `timeoutMs` and friends fill in the limits
 * when known.
 *
 * @example
 * ```ts
 * explainResult(result, code); // "The code threw an error: TypeError: ... (line 3: `...`). ..."
 * ```
 */
export function explainResult(
  result: ExecutionResult,
  code: string,
  limits: { timeoutMs?: number; memoryLimitBytes?: number; maxOutputBytes?: number } = {},
): string {
  const what = result.error === undefined ? "" : ` ${describeError(result.error, code)}.`;
  let text: string;
  switch (result.status) {
    case "success":
      text = "The code ran without error.";
      break;
    case "syntax_error":
      text = `The code does not parse.${what} Fix the syntax on that line.`;
      break;
    case "forbidden":
      text = `The code imports a module the sandbox does not provide.${what} Use only built-ins: no packages, files, network or processes.`;
      break;
    case "runtime_error":
      text = `The code threw an error while running.${what} Fix the cause on that line.`;
      break;
    case "timeout":
      text = `The code ran longer than the time limit${limits.timeoutMs === undefined ? "" : ` of ${limits.timeoutMs} ms`} and was stopped: look for a loop that never ends, or use a faster algorithm.${what}`;
      break;
    case "memory_limit":
      text = `The code used more memory than allowed${limits.memoryLimitBytes === undefined ? "" : ` (${Math.round(limits.memoryLimitBytes / 1048576)} MiB)`}: avoid building huge arrays or strings.${what}`;
      break;
    case "output_limit":
      text = `The code printed more than the output limit${limits.maxOutputBytes === undefined ? "" : ` of ${limits.maxOutputBytes} bytes`}; print less (a summary instead of every item).`;
      break;
    case "cancelled":
      text = "The run was cancelled by the caller before it finished.";
      break;
  }
  return bound(text.trim(), MAX_EXPLANATION_CHARS);
}

/** Cuts `text` to `maxChars`, marking the cut. */
export function bound(text: string, maxChars: number): string {
  return text.length > maxChars ? `${text.slice(0, maxChars - 3)}...` : text;
}

/** The first `maxChars` characters of printed output, marking a cut. */
export function excerpt(output: string, maxChars = 500): string {
  return output.length > maxChars ? `${output.slice(0, maxChars)}\n[... ${output.length - maxChars} more characters]` : output;
}
