/**
 * Words of a run's tests outcome, made by the worker: why the tests did not run, and the error
 * of tests that raised (from the exception's type and Pyodide's formatted traceback, whose text
 * the program may have influenced: it only words the verdict, which is decided by whether the
 * interpreter's `exec` raised). The runner checks every field again.
 *
 * Runs inside the Deno worker.
 */
import type { ExecutionError } from "../../types.js";
import type { PythonOutcome, PythonTestsOutcome } from "../shared/protocol.js";

/** The file name CPython gives source run by `exec(text)`: the tests, as the worker runs them. */
const EXEC_FILE = "<string>";
const TESTS_FILE = "<tests>";
const PROGRAM_FILE = "<code>";
const MAX_TEXT = 300;
const MAX_STACK = 8000;

/**
 * The tests' outcome when the program did not succeed.
 *
 * @example
 * testsNotRun({ status: "runtime_error", error: { name: "ValueError", message: "x", line: 2 } }).reason;
 * // "the program ended with runtime_error before the tests ran (ValueError at line 2: x)"
 */
export function testsNotRun(outcome: PythonOutcome): PythonTestsOutcome {
  const error = outcome.error;
  const name = typeof error?.name === "string" ? error.name.slice(0, 100) : "Error";
  const where = typeof error?.line === "number" ? ` at line ${error.line}` : "";
  const message = typeof error?.message === "string" ? error.message.slice(0, MAX_TEXT) : "";
  return { status: "not_run", reason: `the program ended with ${outcome.status} before the tests ran (${name}${where}: ${message})` };
}

/**
 * The error of tests that raised: the exception's name, its message (a bare failed `assert` is
 * quoted: "failed: assert add(2, 3) == 5"), the line in the tests, and the traceback cut to the
 * tests' and the program's own frames.
 *
 * @example
 * testsError("AssertionError", 'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\nAssertionError', "assert f() == 2");
 * // { name: "AssertionError", message: "failed: assert f() == 2", line: 1, stack: "..." }
 */
export function testsError(type: string, formatted: string, tests: string): ExecutionError {
  const name = type.slice(0, 100) || "Error";
  const lines = String(formatted).replace(/\s+$/, "").split("\n");
  let line: number | undefined;
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    const frame = /^ {2}File "([^"]*)", line (\d+)/.exec(text);
    if (!frame) continue;
    if (frame[1] === EXEC_FILE) line = Number(frame[2]);
    if (frame[1] === EXEC_FILE || frame[1] === PROGRAM_FILE) {
      kept.push(text.replace(`"${EXEC_FILE}"`, `"${TESTS_FILE}"`));
      const source = lines[i + 1];
      if (source !== undefined && source.startsWith("    ") && !/^ {2}File /.test(source)) kept.push(source);
    }
  }
  const last = lines[lines.length - 1] ?? "";
  let message = last.startsWith(`${name}: `) ? last.slice(name.length + 2) : last === name ? "" : last;
  if (name === "SystemExit") message = `the tests called sys.exit(${message}) before their end`;
  if (name === "AssertionError" && message === "" && line !== undefined) {
    const source = tests.split("\n")[line - 1]?.trim();
    if (source) message = `failed: ${source.slice(0, MAX_TEXT)}`;
  }
  const error: ExecutionError = { name, message: message.slice(0, 2000) || name };
  if (line !== undefined && line >= 1) error.line = line;
  const stack = ["Traceback (most recent call last):", ...kept, last].join("\n");
  error.stack = stack.slice(0, MAX_STACK);
  return error;
}
