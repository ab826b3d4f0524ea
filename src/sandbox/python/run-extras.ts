/**
 * What a Python run or session call carries besides its limits: host functions with their
 * budgets, tests, and files with their caps. Resolved here for sessions (engine runs get them
 * from `resolveRunOptions`) and checked against Python's own rules (names must be identifiers).
 */
import { InvalidOptionError } from "../../errors.js";
import {
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_HOST_CALLS,
  DEFAULT_MAX_HOST_CALLS_IN_FLIGHT,
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_MAX_TOTAL_FILE_BYTES,
  resolveFiles,
  resolveHostFunctions,
  resolveLimit,
} from "../options.js";
import type { HostFunction, ResolvedRunOptions, RunOptions } from "../types.js";

/** Host functions, tests and files of one run or call, resolved. */
export interface PythonRunExtras {
  hostFunctions: Record<string, HostFunction>;
  maxHostCallsInFlight: number;
  maxHostCalls: number;
  maxResultBytes: number;
  tests?: string;
  files?: Record<string, Uint8Array>;
  maxFileBytes: number;
  maxTotalFileBytes: number;
}

/** Python keywords (a host function cannot be called by one of these names). */
const PYTHON_KEYWORDS = new Set(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(" "),
);
const PYTHON_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The extras of an engine run, with host function names checked for Python.
 *
 * @throws InvalidOptionError for a host function name Python cannot call, or tests that are not a string.
 * @example
 * const extras = extrasOfRun(resolveRunOptions({ language: "python" }));
 */
export function extrasOfRun(resolved: ResolvedRunOptions): PythonRunExtras {
  checkPythonNames(resolved.hostFunctions);
  if (resolved.tests !== undefined && typeof resolved.tests !== "string") {
    throw new InvalidOptionError("tests", resolved.tests, "a string of Python test code");
  }
  return {
    hostFunctions: resolved.hostFunctions,
    maxHostCallsInFlight: resolved.maxHostCallsInFlight,
    maxHostCalls: resolved.maxHostCalls,
    maxResultBytes: resolved.maxResultBytes,
    ...(resolved.tests !== undefined ? { tests: resolved.tests } : {}),
    ...(resolved.files !== undefined ? { files: resolved.files } : {}),
    maxFileBytes: resolved.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    maxTotalFileBytes: resolved.maxTotalFileBytes ?? DEFAULT_MAX_TOTAL_FILE_BYTES,
  };
}

/**
 * The extras of a session run or call, from the caller's options and the session's defaults.
 *
 * @throws InvalidOptionError naming the first bad option.
 * @example
 * extrasOfSessionCall({ hostFunctions: { now: () => Date.now() } }, {}).maxHostCalls; // 256
 */
export function extrasOfSessionCall(options: Omit<RunOptions, "language" | "globals">, defaults: Omit<RunOptions, "hostFunctions" | "globals">): PythonRunExtras {
  const hostFunctions = resolveHostFunctions(options.hostFunctions);
  checkPythonNames(hostFunctions);
  if (options.tests !== undefined && typeof options.tests !== "string") {
    throw new InvalidOptionError("tests", options.tests, "a string of Python test code");
  }
  return {
    hostFunctions,
    maxHostCallsInFlight: resolveLimit("maxHostCallsInFlight", options.maxHostCallsInFlight ?? defaults.maxHostCallsInFlight ?? DEFAULT_MAX_HOST_CALLS_IN_FLIGHT),
    maxHostCalls: resolveLimit("maxHostCalls", options.maxHostCalls ?? defaults.maxHostCalls ?? DEFAULT_MAX_HOST_CALLS),
    maxResultBytes: resolveLimit("maxResultBytes", options.maxResultBytes ?? defaults.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES),
    ...(options.tests !== undefined ? { tests: options.tests } : {}),
    ...(options.files !== undefined ? { files: resolveFiles(options.files) } : {}),
    maxFileBytes: resolveLimit("maxFileBytes", options.maxFileBytes ?? defaults.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES),
    maxTotalFileBytes: resolveLimit("maxTotalFileBytes", options.maxTotalFileBytes ?? defaults.maxTotalFileBytes ?? DEFAULT_MAX_TOTAL_FILE_BYTES),
  };
}

/** No host functions, tests or files (checks and internal runs). */
export function noExtras(): PythonRunExtras {
  return {
    hostFunctions: {},
    maxHostCallsInFlight: DEFAULT_MAX_HOST_CALLS_IN_FLIGHT,
    maxHostCalls: DEFAULT_MAX_HOST_CALLS,
    maxResultBytes: DEFAULT_MAX_RESULT_BYTES,
    maxFileBytes: DEFAULT_MAX_FILE_BYTES,
    maxTotalFileBytes: DEFAULT_MAX_TOTAL_FILE_BYTES,
  };
}

function checkPythonNames(hostFunctions: Record<string, HostFunction>): void {
  for (const name of Object.keys(hostFunctions)) {
    if (!PYTHON_IDENTIFIER.test(name) || PYTHON_KEYWORDS.has(name) || name.startsWith("_cs_")) {
      throw new InvalidOptionError(`hostFunctions.${name}`, name, "a name Python can call: letters, digits and _, not a keyword, not starting with _cs_");
    }
  }
}
