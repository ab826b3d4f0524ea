/**
 * What a run showed as its output, the way a person reading it would see it, and whether a
 * task asked for output at all. Used by `execute` to compare with `expectedOutput` and to tell
 * a silent run from a finished one.
 */
import { pythonStringRepr } from "../sandbox/python/shared/python-repr.js";
import type { ExecutionResult, JsonValue } from "../sandbox/types.js";

/** Output compared with `expectedOutput`: line endings and trailing spaces do not count. */
export function normalizeOutput(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .trim();
}

/**
 * What the program showed as its output: its own stdout (never the tests'), or (when it
 * printed nothing) its result value as its language prints it: a Python value as `print()`
 * shows it (`{'a': 1}`, `True`, `None`, `[1, 2]`), a JavaScript value as JSON. A string is
 * shown as it is.
 *
 * @example
 * ```ts
 * shownOutput({ stdout: "", result: { a: 1 }, language: "python" }); // "{'a': 1}"
 * shownOutput({ stdout: "", result: { a: 1 }, language: "javascript" }); // '{"a":1}'
 * ```
 */
export function shownOutput(result: Pick<ExecutionResult, "stdout" | "result"> & { language?: ExecutionResult["language"] }): string {
  if (result.stdout.trim() !== "" || result.result === undefined) return result.stdout;
  if (typeof result.result === "string") return result.result;
  return result.language === "python" ? pythonRepr(result.result) : JSON.stringify(result.result);
}

/**
 * A JSON value as Python's `repr` writes it. The value crossed as JSON, so a tuple reads as a
 * list, a float with no fraction as an integer (`3.0` as `3`), and dictionary keys as strings.
 *
 * @example
 * ```ts
 * pythonRepr({ a: [1, true, null, "it's"] }); // `{'a': [1, True, None, "it's"]}`
 * ```
 */
export function pythonRepr(value: JsonValue): string {
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return pythonNumber(value);
  if (typeof value === "string") return pythonStringRepr(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(", ")}]`;
  return `{${Object.entries(value)
    .map(([key, item]) => `${pythonStringRepr(key)}: ${pythonRepr(item)}`)
    .join(", ")}}`;
}

function pythonNumber(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return String(value);
  // Python's repr: the shortest digits, fixed notation for exponents -4..15 (where JavaScript's
  // String() is fixed too), else `1.5e-07` / `1e+16`.
  const [mantissa, exponentText] = value.toExponential().split("e") as [string, string];
  const exponent = Number(exponentText);
  if (exponent >= -4 && exponent < 16) return String(value);
  return `${mantissa}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
}

/** Words a task uses when it wants to see something printed. */
const PRINT_WORDS = /\b(?:print(?:s|ed|ing)?|output(?:s|ted)?|display(?:s|ed)?|show(?:s|n)?|log(?:s|ged)?|echo(?:es)?|write (?:out|it out))\b/i;
/** Words a task uses when it wants a value computed (they count only when no function, class or module is asked for). */
const VALUE_WORDS = /\b(?:return(?:s)?|calculate[sd]?|compute[sd]?|find|count|sum|list|generate|convert|determine|what is|what are|how many|how much)\b|\?\s*$/i;
/** A task that asks for a function, class or module: defining it is the job, output is not asked. */
const DEFINITION_WORDS = /\b(?:functions?|methods?|class(?:es)?|def|procedures?|modules?|librar(?:y|ies)|api|implement(?:s|ation)?)\b/i;

/**
 * The words of `task` that ask the program to print or return something (the sentence, bounded),
 * or undefined when it asks for neither: a task that asks for a function or a class is done
 * when the code defines it, unless it also says to print or show something.
 *
 * @example
 * ```ts
 * outputRequest("Calculate the factorial of 10 and print the result."); // "Calculate the factorial of 10 and print the result"
 * outputRequest("Write a function add(a, b) that returns the sum."); // undefined
 * ```
 */
export function outputRequest(task: string): string | undefined {
  const text = task.trim();
  const match = PRINT_WORDS.exec(text) ?? (DEFINITION_WORDS.test(text) ? null : VALUE_WORDS.exec(text));
  if (match === null) return undefined;
  // The sentence that holds the words, bounded for the prompt.
  const before = text.slice(0, match.index).search(/[^.!?\n]*$/);
  const after = text.slice(match.index).search(/[.!?\n]/);
  const sentence = text.slice(before, after < 0 ? undefined : match.index + after + (text[match.index + after] === "?" ? 1 : 0)).trim();
  return sentence.length > 160 ? `${sentence.slice(0, 157)}...` : sentence;
}
