/**
 * The check of a run's outcome as it crosses a boundary: from the worker (which runs guest code)
 * to the runner, and again from the Deno process to the host. Every field is checked for type,
 * range, size and depth, unknown fields are dropped, and nothing here throws: a value that does
 * not pass is reported as a reason, and the receiver treats the message as forged.
 *
 * Used on both sides (Deno may read python/shared).
 */
import type { ExecutionError, ExecutionStatus } from "../../types.js";
import { MAX_TEST_VALUE_CHARS, MAX_TEST_VALUES_TOTAL_CHARS } from "./bounds.js";
import type { PythonOutcome, PythonStepReport, PythonTestsOutcome } from "./protocol.js";
import { MAX_TEST_STEPS } from "./tests-split.js";

/** Statuses the Python side may report; the others (timeout, cancelled, ...) only the supervisor decides. */
export const GUEST_STATUSES: ReadonlySet<string> = new Set(["success", "syntax_error", "runtime_error", "forbidden", "memory_limit", "output_limit"]);
const ALL_STATUSES: ReadonlySet<string> = new Set([...GUEST_STATUSES, "timeout", "cancelled"]);
/** Deepest JSON result accepted (the prelude refuses deeper values at 200). */
export const MAX_RESULT_DEPTH = 256;
const MAX_NAME_CHARS = 200;
const MAX_MESSAGE_CHARS = 8000;
const MAX_STACK_CHARS = 16_000;
const MAX_LINE = 10_000_000;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function positiveLine(value: unknown): boolean {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 1 && value <= MAX_LINE;
}

/**
 * Depth and finiteness of a parsed JSON value, without recursion (a 300,000-deep array must not
 * overflow the checker's stack): the reason it is refused, or "".
 */
export function jsonValueProblem(value: unknown, maxDepth = MAX_RESULT_DEPTH): string {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item === "number" && !Number.isFinite(item)) return "a number that is not finite";
    if (item === null || typeof item !== "object") continue;
    if (depth > maxDepth) return `nested deeper than ${maxDepth} levels`;
    for (const child of Array.isArray(item) ? item : Object.values(item as Record<string, unknown>)) stack.push([child, depth + 1]);
  }
  return "";
}

/** An error record: name and message strings, optional line/column/stack; or why not. */
export function checkError(value: unknown): ExecutionError | string {
  if (!isPlainObject(value)) return "an error that is not an object";
  const { name, message, line, column, stack } = value;
  if (typeof name !== "string" || name.length === 0 || name.length > MAX_NAME_CHARS) return "an error without a valid name";
  if (typeof message !== "string" || message.length > MAX_MESSAGE_CHARS) return "an error without a valid message";
  const error: ExecutionError = { name, message };
  if (line !== undefined) {
    if (!positiveLine(line)) return "an error line that is not a line number";
    error.line = line as number;
  }
  if (column !== undefined) {
    if (!positiveLine(column)) return "an error column that is not a column number";
    error.column = column as number;
  }
  if (stack !== undefined) {
    if (typeof stack !== "string" || stack.length > MAX_STACK_CHARS) return "an error stack that is not bounded text";
    error.stack = stack;
  }
  return error;
}

/** A tests outcome; or why not. */
export function checkTestsOutcome(value: unknown): PythonTestsOutcome | string {
  if (!isPlainObject(value)) return "a tests outcome that is not an object";
  const { status, error, reason } = value;
  if (status !== "passed" && status !== "failed" && status !== "not_run") return "a tests status that is not passed, failed or not_run";
  const out: PythonTestsOutcome = { status };
  if (error !== undefined) {
    const checked = checkError(error);
    if (typeof checked === "string") return checked;
    out.error = checked;
  }
  if (reason !== undefined) {
    if (typeof reason !== "string" || reason.length > MAX_MESSAGE_CHARS) return "a tests reason that is not bounded text";
    out.reason = reason;
  }
  const { steps } = value;
  if (steps !== undefined) {
    if (!Array.isArray(steps) || steps.length > MAX_TEST_STEPS) return "tests steps that are not a bounded list";
    let total = 0;
    const checked: PythonStepReport[] = [];
    for (const step of steps as unknown[]) {
      if (!isPlainObject(step)) return "a tests step that is not an object";
      if (step.kind === "ran") checked.push({ kind: "ran" });
      else if (step.kind === "raised") {
        const error = checkError(step.error);
        if (typeof error === "string") return error;
        checked.push({ kind: "raised", error });
      } else if (step.kind === "values") {
        const values = step.values;
        if (!Array.isArray(values) || values.length === 0 || values.length > 4) return "a tests step's values that are not a short list";
        for (const v of values as unknown[]) {
          if (typeof v !== "string" || v.length > MAX_TEST_VALUE_CHARS) return "a test value that is not bounded text";
          total += v.length;
        }
        if (total > MAX_TEST_VALUES_TOTAL_CHARS + 64) return "test values past their total bound";
        if (step.byProgram !== undefined && typeof step.byProgram !== "boolean") return "a tests step's program verdict that is not a boolean";
        checked.push({ kind: "values", values: [...(values as string[])], ...(typeof step.byProgram === "boolean" ? { byProgram: step.byProgram } : {}) });
      } else return "a tests step of no known kind";
    }
    out.steps = checked;
  }
  return out;
}

/**
 * A run's outcome rebuilt from what was received, or why it is refused. `guest` restricts the
 * status to what the Python side may report; `maxResultBytes` bounds the result's JSON, which
 * must parse, be at most MAX_RESULT_DEPTH deep and hold only finite numbers.
 *
 * @example
 * checkOutcome({ status: "success", resultJson: "[1]" }, 1024, true); // { status: "success", resultJson: "[1]" }
 * checkOutcome({ status: "cancelled" }, 1024, true); // "a status the program cannot report (cancelled)"
 */
export function checkOutcome(value: unknown, maxResultBytes: number, guest: boolean): PythonOutcome | string {
  if (!isPlainObject(value)) return "an outcome that is not an object";
  const { status, resultJson, error, tests } = value;
  if (typeof status !== "string" || !(guest ? GUEST_STATUSES : ALL_STATUSES).has(status)) {
    return `a status the program cannot report (${String(status).slice(0, 40)})`;
  }
  const out: PythonOutcome = { status: status as ExecutionStatus };
  if (resultJson !== undefined) {
    // Characters bound bytes from below; the exact byte count was checked where it was made.
    if (typeof resultJson !== "string" || resultJson.length > maxResultBytes) return "a result that is not bounded JSON text";
    let parsed: unknown;
    try {
      parsed = JSON.parse(resultJson);
    } catch {
      return "a result that is not JSON";
    }
    const problem = jsonValueProblem(parsed);
    if (problem) return `a result ${problem}`;
    out.resultJson = resultJson;
  }
  if (error !== undefined) {
    const checked = checkError(error);
    if (typeof checked === "string") return checked;
    out.error = checked;
  }
  if (tests !== undefined) {
    const checked = checkTestsOutcome(tests);
    if (typeof checked === "string") return checked;
    out.tests = checked;
  }
  return out;
}
