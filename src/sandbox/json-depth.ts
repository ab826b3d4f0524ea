/**
 * A bound on the nesting of JSON that comes out of a sandbox. A guest can return (or pass to a
 * host function) arrays nested thousands of levels deep: the text parses, but the host's own
 * recursive code then fails on it (V8's `JSON.stringify` throws `RangeError` from about 4,000
 * levels on the main thread, measured), so in a tool, a checkpointer or an MCP reply it would
 * throw far from the sandbox. The host therefore refuses such JSON where it enters.
 */

/**
 * Deepest nesting of arrays and objects accepted in a result or in host-call arguments: far
 * above what a program means to return, far below where the host's recursion fails.
 */
export const MAX_JSON_DEPTH = 1000;

/**
 * True when JSON text nests arrays and objects deeper than `maxDepth`, counted without parsing
 * (brackets inside strings do not count). Text shorter than `2 * (maxDepth + 1)` characters
 * cannot nest that deep and is not scanned.
 *
 * @example
 * jsonNestingExceeds("[[[1]]]", 2); // true
 * jsonNestingExceeds('{"a":"[[[["}', 2); // false
 */
export function jsonNestingExceeds(text: string, maxDepth = MAX_JSON_DEPTH): boolean {
  if (text.length < 2 * (maxDepth + 1)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}
