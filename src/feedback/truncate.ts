/**
 * The one truncation rule of text a model (or a person) reads: keep the start, end with one
 * marker that says how much was cut. The result never exceeds the bound.
 */
import { integerRule } from "../options/index.js";

/** Default bound of an explanation (what went wrong and what to try), in characters. */
export const MAX_EXPLANATION_CHARS = 700;

/** Default bound of the text a tool returns to the model, in characters. */
export const DEFAULT_MAX_CONTENT_CHARS = 4000;

/** Bound of the text a tool returns to the model (`maxContentChars` of the tools and the MCP server). */
export const MAX_CONTENT_CHARS_RULE = integerRule({ min: 1, max: 10_000_000, unit: "characters" });

/** Bound of one quoted source line, in characters. */
export const MAX_QUOTED_LINE_CHARS = 160;

/**
 * Cuts `text` to at most `maxChars` characters; a cut text ends with
 * ` [... N more characters cut]`.
 *
 * @example
 * ```ts
 * truncate("x".repeat(100), 50); // "xxxxxxxxxxxxxxxxxxxxxx [... 78 more characters cut]"
 * ```
 */
export function truncate(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  // The marker's width depends on the count it prints; the count is at most text.length.
  const markerWidth = marker(text.length).length;
  const kept = Math.max(0, maxChars - markerWidth);
  return `${text.slice(0, kept)}${marker(text.length - kept)}`.slice(0, Math.max(maxChars, 0));
}

function marker(cut: number): string {
  return ` [... ${cut} more characters cut]`;
}
