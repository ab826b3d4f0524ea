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
 * ` [... N more characters cut]`. The cut falls after the last sentence or line that ends in the
 * last third of the room, else at the last space near the end, so a reader never gets half a
 * word; text without either (a long identifier, base64) is cut where the room ends.
 *
 * @example
 * ```ts
 * truncate("x".repeat(100), 50); // "xxxxxxxxxxxxxxxxxxxxxx [... 78 more characters cut]"
 * truncate("First sentence here. Second part that goes on and on.", 50); // "First sentence here. [... 33 more characters cut]"
 * ```
 */
export function truncate(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  // The marker's width depends on the count it prints; the count is at most text.length.
  const markerWidth = marker(text.length).length;
  const kept = boundaryBefore(text, Math.max(0, maxChars - markerWidth));
  return `${text.slice(0, kept)}${marker(text.length - kept)}`.slice(0, Math.max(maxChars, 0));
}

/** Where to cut `text` keeping at most `room` characters: after a sentence or line, else before a word. */
function boundaryBefore(text: string, room: number): number {
  const head = text.slice(0, room + 1);
  const sentence = /[.!?:;](?=\s)|\n/g;
  let end = -1;
  for (const match of head.matchAll(sentence)) if (match.index + 1 <= room) end = match.index + 1;
  if (end >= Math.ceil((room * 2) / 3)) return trimmedEnd(text, end);
  const space = head.lastIndexOf(" ", room);
  if (space > 0 && space >= room - Math.max(20, Math.floor(room / 5))) return trimmedEnd(text, space);
  return room;
}

/** `end` moved back over whitespace (the marker brings its own space). */
function trimmedEnd(text: string, end: number): number {
  let at = end;
  while (at > 0 && /\s/.test(text[at - 1]!)) at--;
  return at;
}

function marker(cut: number): string {
  return ` [... ${cut} more characters cut]`;
}
