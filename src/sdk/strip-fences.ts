/** `stripCodeFences`: the package's one extractor, in the form backends and servers need. */
import { extractProgram } from "../graph/shared.js";
import type { Language } from "../sandbox/types.js";

/**
 * The program of a model reply (see `extractProgram`: the last complete code block of the
 * language, joined after the blocks that define what it uses; examples, output samples and
 * other languages are never taken), or the reply itself, trimmed, when it holds no program, so
 * that the caller's check can say what is wrong with it.
 *
 * @example
 * ```ts
 * stripCodeFences("Here:\n```js\nfunction add(a, b) { return a + b; }\n```"); // "function add(a, b) { return a + b; }"
 * ```
 */
export function stripCodeFences(reply: string, language: Language = "javascript"): string {
  const found = extractProgram(reply, language);
  return found.ok ? found.code : reply.trim();
}
