/**
 * Which functions a task asks for, and which a generated program defines: generated code that
 * defines none of the functions its task names is sent back for repair instead of loading as an
 * instance nothing can be called on.
 */
import { callableNames } from "../graph/shared.js";
import type { Language } from "../sandbox/types.js";

/** Words that are followed by `(` in prose without naming a function. */
const NOT_FUNCTION_NAMES = new Set(["e", "g", "i", "ie", "eg", "etc", "or", "and", "the", "a", "an", "of", "in", "is", "it", "see", "note", "optional", "default"]);

/**
 * The function names `task` asks for: `name(...)` written as a call, or "a function/method
 * called NAME" / "named NAME".
 *
 * @example
 * ```ts
 * requestedFunctionNames("Create a function add(a, b, c) that returns the sum"); // ["add"]
 * requestedFunctionNames("Write a method called total"); // ["total"]
 * ```
 */
export function requestedFunctionNames(task: string): string[] {
  const names = new Set<string>();
  for (const match of task.matchAll(/(?<![\w$.])([A-Za-z_$][\w$]*)\(/g)) {
    if (!NOT_FUNCTION_NAMES.has(match[1]!.toLowerCase())) names.add(match[1]!);
  }
  for (const match of task.matchAll(/\b(?:function|method)s?\s+(?:called|named)\s+[`'"]?([A-Za-z_$][\w$]*)/gi)) names.add(match[1]!);
  return [...names];
}

/**
 * Functions `code` defines at the top level, as seen by the host (the session lists what it can
 * see; JavaScript's `const f = () => ...` is a lexical binding the session cannot list, so it is
 * read from the code).
 *
 * @example
 * ```ts
 * declaredFunctionNames("const add = (a, b) => a + b;", "javascript"); // ["add"]
 * ```
 */
export function declaredFunctionNames(code: string, language: Language): string[] {
  if (language === "python") return [...code.matchAll(/^(?:async\s+)?def\s+([A-Za-z_]\w*)|^([A-Za-z_]\w*)\s*=\s*lambda\b/gm)].map((m) => m[1] ?? m[2]!);
  return callableNames(code, language);
}
