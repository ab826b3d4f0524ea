/** The failing line of the code, quoted, and one-line descriptions of errors. */
import type { ExecutionError } from "../sandbox/types.js";
import { MAX_QUOTED_LINE_CHARS, truncate } from "./truncate.js";

/** Bound of an error's `Name: message` in a one-line description, in characters. */
const MAX_ERROR_CHARS = 300;

/**
 * The line `line` (1-based) of `code`, trimmed and bounded, or undefined when out of range or blank.
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
  return truncate(text.trim(), MAX_QUOTED_LINE_CHARS);
}

/**
 * One line for an error: `Name: message (line N: `source`)`; only the message's first line is kept.
 *
 * @example
 * ```ts
 * describeError({ name: "ReferenceError", message: "x is not defined", line: 1 }, "print(x)");
 * // "ReferenceError: x is not defined (line 1: `print(x)`)"
 * ```
 */
export function describeError(error: ExecutionError, code: string): string {
  const message = truncate(`${error.name}: ${error.message}`.split("\n")[0]!, MAX_ERROR_CHARS);
  if (error.line === undefined) return message;
  const where = error.column === undefined ? `line ${error.line}` : `line ${error.line}:${error.column}`;
  const quoted = quoteLine(code, error.line);
  return quoted === undefined ? `${message} (${where})` : `${message} (${where}: \`${quoted}\`)`;
}

/**
 * Code with right-aligned line numbers, so a model can match an error's line.
 *
 * @example
 * ```ts
 * numberLines("a\nb"); // "1 | a\n2 | b"
 * ```
 */
export function numberLines(code: string): string {
  const lines = code.split("\n");
  const width = String(lines.length).length;
  return lines.map((line, i) => `${String(i + 1).padStart(width)} | ${line}`).join("\n");
}
