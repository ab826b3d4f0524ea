/**
 * When two programs are the same: equal after comments and whitespace that carries no meaning
 * are removed. The graph never runs a program again that is the same as an earlier attempt.
 */
import type { Language } from "../sandbox/types.js";

/**
 * The normal form of `code`: comments outside strings removed, trailing spaces and blank lines
 * dropped, runs of spaces inside a line reduced to one space, spaces next to punctuation
 * removed. Python keeps each line's indentation depth (it is syntax); JavaScript and TypeScript
 * drop it. A scanner, not a parser: a `#` or `//` inside a string stays.
 *
 * @example
 * ```ts
 * normalizeProgram("def f(x):  # add\n    return x+1\n", "python") === normalizeProgram("def f( x ):\n    return x + 1", "python"); // true
 * ```
 */
export function normalizeProgram(code: string, language: Language): string {
  // String literals are set aside (kept exactly) while the code around them is normalised.
  const literals: string[] = [];
  const stripped = stripComments(code.replace(/\r\n?/g, "\n"), language, (literal) => `\u0000${literals.push(literal) - 1}\u0000`);
  const lines: string[] = [];
  for (const raw of stripped.split("\n")) {
    const line = raw.replace(/\s+$/, "");
    if (line.trim() === "") continue;
    const indent = language === "python" ? /^[ \t]*/.exec(line)![0].replace(/\t/g, "    ").length : 0;
    const body = line
      .trim()
      .replace(/[ \t]+/g, " ")
      .replace(/ ?([^\w\s$]) ?/g, "$1");
    lines.push(`${" ".repeat(indent)}${body}`);
  }
  return lines.join("\n").replace(/\u0000(\d+)\u0000/g, (_, index: string) => literals[Number(index)]!);
}

/**
 * The number of the first earlier attempt (or candidate) whose program is the same as `code`,
 * or undefined.
 *
 * @example
 * ```ts
 * findSameProgram("print(1) # one", [{ number: 1, code: "print(1)" }], "python"); // 1
 * ```
 */
export function findSameProgram(code: string, earlier: readonly { number: number; code: string }[], language: Language): number | undefined {
  if (code.trim() === "") return undefined;
  const normal = normalizeProgram(code, language);
  return earlier.find((attempt) => attempt.code.trim() !== "" && normalizeProgram(attempt.code, language) === normal)?.number;
}

/**
 * Removes comments outside string literals (Python `#`; JavaScript `//` and block comments);
 * each literal is replaced by what `literal` returns for it.
 */
function stripComments(code: string, language: Language, literal: (text: string) => string): string {
  let out = "";
  let i = 0;
  const n = code.length;
  while (i < n) {
    const c = code[i]!;
    if (language === "python" && c === "#") {
      while (i < n && code[i] !== "\n") i++;
      continue;
    }
    if (language !== "python" && c === "/" && code[i + 1] === "/") {
      while (i < n && code[i] !== "\n") i++;
      continue;
    }
    if (language !== "python" && c === "/" && code[i + 1] === "*") {
      const end = code.indexOf("*/", i + 2);
      // Keep line breaks so that line structure stays the same.
      const comment = code.slice(i, end === -1 ? n : end + 2);
      out += comment.replace(/[^\n]/g, "");
      i += comment.length;
      continue;
    }
    if (c === '"' || c === "'" || c === "`") {
      const triple = language === "python" && code.startsWith(c.repeat(3), i);
      const quote = triple ? c.repeat(3) : c;
      let j = i + quote.length;
      while (j < n) {
        if (code[j] === "\\") {
          j += 2;
          continue;
        }
        if (code.startsWith(quote, j)) {
          j += quote.length;
          break;
        }
        // An unterminated one-line string ends at the line's end.
        if (!triple && c !== "`" && code[j] === "\n") break;
        j++;
      }
      out += literal(code.slice(i, j));
      i = j;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}
