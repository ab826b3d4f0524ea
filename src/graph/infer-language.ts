/**
 * The language a task's own words ask for ("a Python program", "in TypeScript"), for every front
 * door that runs the graph on a task without a language: the CLI's `solve`, MCP `solve` and the
 * `solve_with_code` tool give the same answer for the same words.
 */
import type { Language } from "../sandbox/types.js";

const NAMES: readonly [Language, RegExp][] = [
  ["typescript", /\b(?:typescript|ts)\b/gi],
  ["javascript", /\b(?:javascript|js|node\.?js)\b/gi],
  ["python", /\b(?:python3?|py)\b/gi],
];

/** Words around a language name that make it the language to write in ("in X", "a X program", "to X"). */
const TARGET_BEFORE = /\b(?:in|using|with|to|into|write|a|an)\s+$/i;
const TARGET_AFTER = /^\s+(?:program|script|function|code|class|module|solution|snippet|one-liner|implementation)\b/i;

/** A language the task names, and the words that name it. */
export interface InferredLanguage {
  language: Language;
  /** The words of the task that decided, e.g. "a Python program". */
  words: string;
}

/**
 * The language `task` asks for, or undefined when it names none. When it names several ("port
 * this Python to JavaScript"), the one written as the target ("to JavaScript", "a JavaScript
 * function") wins; when that does not decide, the last one named.
 *
 * @example
 * ```ts
 * inferLanguage("Write a python program that prints the primes below 30"); // { language: "python", words: "a python program" }
 * inferLanguage("Print the primes below 30"); // undefined
 * ```
 */
export function inferLanguage(task: string): InferredLanguage | undefined {
  const found: { language: Language; index: number; target: boolean; words: string }[] = [];
  for (const [language, pattern] of NAMES) {
    for (const match of task.matchAll(pattern)) {
      const before = task.slice(Math.max(0, match.index - 12), match.index);
      const after = task.slice(match.index + match[0].length, match.index + match[0].length + 20);
      // "TS" and "py" alone are too short to trust unless they read as a language name.
      if (match[0].length <= 2 && !TARGET_BEFORE.test(before) && !TARGET_AFTER.test(after)) continue;
      const lead = /(?:\b(?:in|using|with|to|into|a|an)\s+)$/i.exec(before)?.[0] ?? "";
      const tail = TARGET_AFTER.exec(after)?.[0] ?? "";
      found.push({ language, index: match.index, target: TARGET_BEFORE.test(before) || TARGET_AFTER.test(after), words: `${lead}${match[0]}${tail}`.trim() });
    }
  }
  if (found.length === 0) return undefined;
  found.sort((a, b) => a.index - b.index);
  const chosen = found.filter((f) => f.target).at(-1) ?? found.at(-1)!;
  return { language: chosen.language, words: chosen.words };
}
