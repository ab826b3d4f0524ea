/**
 * Turns an error as QuickJS describes it (name, message, stack "    at f (main.js:3:5)") into an
 * `ExecutionError` located in the user's code, with only the user's frames kept.
 */
import type { ExecutionError } from "../../types.js";
import { USER_FILE_NAME } from "./guest-prelude.js";

/** Most stack lines kept: enough to follow a call chain, short enough for a model's prompt. */
const MAX_STACK_FRAMES = 8;

/**
 * Longest name and message kept. The guest controls both (`throw new Error("x".repeat(2e7))`),
 * they go back to the caller and often into a model's prompt, and no output limit covers them.
 */
const MAX_NAME_CHARS = 200;
const MAX_MESSAGE_CHARS = 4000;

function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}... (${text.length - max} more characters)`;
}


/** Largest line or column believed: far beyond any program the sandbox accepts. */
const MAX_LINE_NUMBER = 10_000_000;

/** True for a 1-based line or column number (a whole number from 1 to 10 million). */
export function isLineNumber(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= MAX_LINE_NUMBER;
}

const locations = new Map<string, RegExp>();
function frameLocation(fileName: string): RegExp {
  let re = locations.get(fileName);
  if (!re) locations.set(fileName, (re = new RegExp(`${fileName.replace(".", "\\.")}:(\\d+)(?::(\\d+))?`)));
  return re;
}

/**
 * Builds an `ExecutionError` from the raw description the guest produced.
 *
 * @example
 * locateError({ name: "ReferenceError", message: "'x' is not defined", stack: "    at <eval> (main.js:3:1)\n" });
 * // { name: "ReferenceError", message: "'x' is not defined", line: 3, column: 1, stack: "    at <eval> (main.js:3:1)" }
 */
export function locateError(raw: { name: string; message: string; stack?: string }, fileName = USER_FILE_NAME): ExecutionError {
  const error: ExecutionError = { name: bounded(raw.name, MAX_NAME_CHARS), message: bounded(raw.message, MAX_MESSAGE_CHARS) };
  if (raw.stack === undefined) return error;
  const userFrames = raw.stack
    .split("\n")
    .filter((line) => line.includes(fileName))
    .map((line) => bounded(line.trimEnd(), MAX_NAME_CHARS * 2));
  const first = userFrames[0];
  if (first !== undefined) {
    const match = frameLocation(fileName).exec(first);
    // The guest writes the stack of what it throws: only real line and column numbers count.
    if (match && isLineNumber(Number(match[1]))) {
      error.line = Number(match[1]);
      if (match[2] !== undefined && isLineNumber(Number(match[2]))) error.column = Number(match[2]);
    }
    error.stack = userFrames.slice(0, MAX_STACK_FRAMES).join("\n");
  }
  return error;
}
