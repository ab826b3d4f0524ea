/**
 * What a Python run or session call carries besides its limits: host functions with their
 * budgets, tests, and files with their caps, taken from resolved options and checked against
 * Python's own rules (names must be identifiers) and the file caps.
 */
import { InvalidOptionError } from "../../../errors.js";
import {
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_HOST_CALLS,
  DEFAULT_MAX_HOST_CALLS_IN_FLIGHT,
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_MAX_TOTAL_FILE_BYTES,
} from "../../options.js";
import type { HostFunction, ResolvedRunOptions, RunInputs } from "../../types.js";

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
  filesAtRoot?: boolean;
  inputs?: RunInputs;
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
  const maxFileBytes = resolved.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const maxTotalFileBytes = resolved.maxTotalFileBytes ?? DEFAULT_MAX_TOTAL_FILE_BYTES;
  if (resolved.files !== undefined) checkInputFiles(resolved.files, maxFileBytes, maxTotalFileBytes);
  return {
    hostFunctions: resolved.hostFunctions,
    maxHostCallsInFlight: resolved.maxHostCallsInFlight,
    maxHostCalls: resolved.maxHostCalls,
    maxResultBytes: resolved.maxResultBytes,
    ...(resolved.tests !== undefined ? { tests: resolved.tests } : {}),
    ...(resolved.files !== undefined ? { files: resolved.files } : {}),
    maxFileBytes,
    maxTotalFileBytes,
    ...(resolved.filesAtRoot ? { filesAtRoot: true } : {}),
    ...(resolved.inputs !== undefined ? { inputs: resolved.inputs } : {}),
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

/** Files given by the caller must fit the same caps as the files that come back. */
function checkInputFiles(files: Record<string, Uint8Array>, maxFileBytes: number, maxTotalFileBytes: number): void {
  let total = 0;
  for (const [path, bytes] of Object.entries(files)) {
    if (bytes.length > maxFileBytes) throw new InvalidOptionError(`files.${path}`, `${bytes.length} bytes`, `at most maxFileBytes (${maxFileBytes}) bytes; raise maxFileBytes or pass less`);
    total += bytes.length;
  }
  if (total > maxTotalFileBytes) throw new InvalidOptionError("files", `${total} bytes in all`, `at most maxTotalFileBytes (${maxTotalFileBytes}) bytes; raise maxTotalFileBytes or pass fewer files`);
}

function checkPythonNames(hostFunctions: Record<string, HostFunction>): void {
  for (const name of Object.keys(hostFunctions)) {
    if (!PYTHON_IDENTIFIER.test(name) || PYTHON_KEYWORDS.has(name) || name.startsWith("_cs_")) {
      throw new InvalidOptionError(`hostFunctions.${name}`, name, "a name Python can call: letters, digits and _, not a keyword, not starting with _cs_");
    }
  }
}
