/**
 * Resolves and validates the options of a run: fills every default in one place and turns
 * misuse by the caller into one `InvalidOptionError` that names the option.
 */
import { InvalidOptionError } from "../errors.js";
import {
  LANGUAGES,
  type HostFunction,
  type JsonValue,
  type Language,
  type ResolvedRunOptions,
  type RunOptions,
} from "./types.js";

/** Default wall-clock limit of a run. */
export const DEFAULT_TIMEOUT_MS = 5000;
/** Default memory limit of a run: 64 MiB. */
export const DEFAULT_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;
/** Default cap on stdout + stderr: 1 MiB. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
/** Default cap on the result's JSON: 1 MiB. */
export const DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;
/** Default cap on one file of `files`: 8 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024;
/** Default cap on all of `files` together: 32 MiB. */
export const DEFAULT_MAX_TOTAL_FILE_BYTES = 32 * 1024 * 1024;
/** Default number of host calls one run may have in flight at once. */
export const DEFAULT_MAX_HOST_CALLS_IN_FLIGHT = 8;
/** Default number of host calls one run may make in all. */
export const DEFAULT_MAX_HOST_CALLS = 256;

/** A run option whose value is a positive, finite number. */
type LimitOption = "timeoutMs" | "memoryLimitBytes" | "maxOutputBytes" | "maxResultBytes" | "maxHostCallsInFlight" | "maxHostCalls" | "maxFileBytes" | "maxTotalFileBytes";

/**
 * Checks that `value` is a language this package runs.
 *
 * @throws InvalidOptionError naming `option` and listing the valid languages.
 * @example
 * const language = resolveLanguage(options.language ?? "javascript");
 */
export function resolveLanguage(value: unknown, option = "language"): Language {
  if (typeof value === "string" && (LANGUAGES as readonly string[]).includes(value)) {
    return value as Language;
  }
  throw new InvalidOptionError(option, value, `one of ${LANGUAGES.map((l) => `"${l}"`).join(", ")}`);
}

/**
 * Checks a numeric limit: a finite number greater than zero.
 *
 * @throws InvalidOptionError naming the option.
 * @example
 * resolveLimit("timeoutMs", 100); // 100
 */
export function resolveLimit(option: LimitOption | string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new InvalidOptionError(option, value, "a finite number greater than 0");
  }
  return value;
}

/**
 * Serialises `globals` into one JSON string (the form in which they cross into the sandbox),
 * checking that every value survives JSON unchanged.
 *
 * @throws InvalidOptionError naming the offending key (`globals.NAME`) for functions, BigInt,
 *   `undefined`, symbols, non-finite numbers, non-plain objects and cycles.
 * @example
 * serializeGlobals({ data: [1, 2] }); // '{"data":[1,2]}'
 */
export function serializeGlobals(globals: unknown): string {
  if (globals === undefined) return "{}";
  if (globals === null || typeof globals !== "object" || Array.isArray(globals)) {
    throw new InvalidOptionError("globals", globals, "an object mapping names to JSON values");
  }
  for (const key of Object.keys(globals)) {
    if (!isIdentifier(key)) {
      throw new InvalidOptionError(`globals.${key}`, key, "a name that is a valid JavaScript identifier");
    }
  }
  assertJsonValue(globals, "globals");
  return JSON.stringify(globals);
}

/**
 * Checks that `value` survives JSON unchanged.
 *
 * @throws InvalidOptionError naming `path` (extended to the offending element).
 * @example
 * assertJsonValue([1, { a: "b" }], "args"); // ok
 * assertJsonValue([() => 1], "args"); // throws: Invalid option "args[0]" ...
 */
export function assertJsonValue(value: unknown, path: string): void {
  // A fast walk with no allocations first (1 MB values are common); only a value that fails
  // is walked again to build the path for the message.
  if (!isPlainJson(value, [])) checkJson(value, path, new Set());
}

function isPlainJson(value: unknown, stack: object[]): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object": {
      if (value === null) return true;
      if (stack.includes(value)) return false;
      if (Array.isArray(value)) {
        stack.push(value);
        for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i], stack)) return false;
        stack.pop();
        return true;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) return false;
      stack.push(value);
      for (const key in value) {
        if (!isPlainJson((value as Record<string, unknown>)[key], stack)) return false;
      }
      stack.pop();
      return true;
    }
    default:
      return false;
  }
}

function checkJson(value: unknown, path: string, seen: Set<object>): void {
  switch (typeof value) {
    case "string":
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(value)) throw new InvalidOptionError(path, value, "a JSON value (finite numbers only)");
      return;
    case "object": {
      if (value === null) return;
      if (seen.has(value)) throw new InvalidOptionError(path, "a cycle", "a JSON value without cycles");
      const proto = Object.getPrototypeOf(value) as unknown;
      if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) {
        throw new InvalidOptionError(path, value, "a JSON value (plain objects and arrays only)");
      }
      seen.add(value);
      if (Array.isArray(value)) value.forEach((item, i) => checkJson(item, `${path}[${i}]`, seen));
      else for (const [k, v] of Object.entries(value)) checkJson(v, `${path}.${k}`, seen);
      seen.delete(value);
      return;
    }
    default:
      throw new InvalidOptionError(path, value, "a JSON value (no functions, BigInt, symbols or undefined)");
  }
}

/**
 * Checks `hostFunctions`: every entry a function under an identifier name.
 *
 * @throws InvalidOptionError naming `hostFunctions.NAME`.
 * @example
 * resolveHostFunctions({ add: (a, b) => Number(a) + Number(b) });
 */
export function resolveHostFunctions(value: unknown): Record<string, HostFunction> {
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InvalidOptionError("hostFunctions", value, "an object mapping names to functions");
  }
  const out: Record<string, HostFunction> = {};
  for (const [key, fn] of Object.entries(value)) {
    if (!isIdentifier(key)) {
      throw new InvalidOptionError(`hostFunctions.${key}`, key, "a name that is a valid JavaScript identifier");
    }
    if (typeof fn !== "function") throw new InvalidOptionError(`hostFunctions.${key}`, fn, "a function");
    out[key] = fn as HostFunction;
  }
  return out;
}

/** A run's options after validation, with `globals` already serialised once. */
export interface PreparedRunOptions extends ResolvedRunOptions {
  maxFileBytes: number;
  maxTotalFileBytes: number;
  /** `globals` as the one JSON string that crosses into the sandbox. */
  globalsJson: string;
}

/**
 * Fills every default of `RunOptions` (a sandbox's own defaults first, then the package's) and
 * validates every value.
 *
 * @throws InvalidOptionError naming the first bad option.
 * @example
 * const resolved = resolveRunOptions({ timeoutMs: 100 });
 * resolved.language; // "javascript"
 */
export function resolveRunOptions(
  options: RunOptions | undefined,
  defaults: Omit<RunOptions, "hostFunctions" | "globals"> = {},
): PreparedRunOptions {
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new InvalidOptionError("options", options, "an object of run options (or nothing)");
  }
  const o = options ?? {};
  const globalsJson = serializeGlobals(o.globals);
  const maxFileBytes = resolveLimit("maxFileBytes", o.maxFileBytes ?? defaults.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES);
  const maxTotalFileBytes = resolveLimit(
    "maxTotalFileBytes",
    o.maxTotalFileBytes ?? defaults.maxTotalFileBytes ?? DEFAULT_MAX_TOTAL_FILE_BYTES,
  );
  return {
    language: resolveLanguage(o.language ?? defaults.language ?? "javascript"),
    timeoutMs: resolveLimit("timeoutMs", o.timeoutMs ?? defaults.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    memoryLimitBytes: resolveLimit(
      "memoryLimitBytes",
      o.memoryLimitBytes ?? defaults.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES,
    ),
    maxOutputBytes: resolveLimit(
      "maxOutputBytes",
      o.maxOutputBytes ?? defaults.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    ),
    globals: (o.globals ?? {}) as Record<string, JsonValue>,
    globalsJson,
    hostFunctions: resolveHostFunctions(o.hostFunctions),
    maxHostCallsInFlight: resolveLimit(
      "maxHostCallsInFlight",
      o.maxHostCallsInFlight ?? defaults.maxHostCallsInFlight ?? DEFAULT_MAX_HOST_CALLS_IN_FLIGHT,
    ),
    maxHostCalls: resolveLimit("maxHostCalls", o.maxHostCalls ?? defaults.maxHostCalls ?? DEFAULT_MAX_HOST_CALLS),
    maxResultBytes: resolveLimit(
      "maxResultBytes",
      o.maxResultBytes ?? defaults.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
    ),
    ...(o.signal !== undefined ? { signal: o.signal } : {}),
    ...(o.tests !== undefined ? { tests: o.tests } : {}),
    maxFileBytes,
    maxTotalFileBytes,
    ...(o.files !== undefined ? { files: resolveFiles(o.files, { maxFileBytes, maxTotalFileBytes }) } : {}),
  };
}

/**
 * Checks `files` (relative paths to text or bytes) and turns text into UTF-8 bytes.
 * Engines enforce their own caps on what comes back; this only checks the shape.
 *
 * @throws InvalidOptionError naming `files.PATH`.
 */
export function resolveFiles(
  value: unknown,
  limits: { maxFileBytes: number; maxTotalFileBytes: number } = {
    maxFileBytes: DEFAULT_MAX_FILE_BYTES,
    maxTotalFileBytes: DEFAULT_MAX_TOTAL_FILE_BYTES,
  },
): Record<string, Uint8Array> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InvalidOptionError("files", value, "an object mapping relative paths to strings or Uint8Arrays");
  }
  const entries: [string, Uint8Array][] = [];
  let total = 0;
  for (const [path, content] of Object.entries(value)) {
    if (path === "" || path.startsWith("/") || path.split("/").some((part) => part === ".." || part === "")) {
      throw new InvalidOptionError(`files.${path}`, path, "a relative path without '..' or empty parts");
    }
    // A copy of exactly the bytes (a view's whole buffer would otherwise travel with it).
    let copy: Uint8Array;
    if (typeof content === "string") copy = new TextEncoder().encode(content);
    else if (content instanceof Uint8Array) copy = new Uint8Array(content);
    else throw new InvalidOptionError(`files.${path}`, content, "a string or a Uint8Array");
    entries.push([path, copy]);
    const bytes = copy.byteLength;
    if (bytes > limits.maxFileBytes) {
      throw new InvalidOptionError(`files.${path}`, `${bytes} bytes`, `at most maxFileBytes (${limits.maxFileBytes}) bytes, or a larger maxFileBytes`);
    }
    total += bytes + new TextEncoder().encode(path).byteLength;
    if (total > limits.maxTotalFileBytes) {
      throw new InvalidOptionError("files", `${total} bytes or more`, `at most maxTotalFileBytes (${limits.maxTotalFileBytes}) bytes in all (contents plus paths), or a larger maxTotalFileBytes`);
    }
  }
  // fromEntries defines own properties: a file named "__proto__" stays a file.
  return Object.fromEntries(entries);
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** True when `name` can be used as a plain JavaScript identifier (ASCII subset). */
export function isIdentifier(name: string): boolean {
  return IDENTIFIER.test(name);
}
