/**
 * Resolves and validates the options of a run: fills every default in one place and turns
 * misuse by the caller into one `InvalidOptionError` that names the option.
 */
import { InvalidOptionError } from "../errors.js";
import { checkOptions, integerRule, isWellFormed, MAX_TIMER_MS, numberRule, oneOfRule, rule, signalRule, type OptionRule, type OptionRules } from "../options/index.js";
import { reservedNameReason } from "./reserved-names.js";
import {
  LANGUAGES,
  MAX_RECORDED_CLOCK_READS,
  type HostFunction,
  type RunInputs,
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

/**
 * The largest `timeoutMs` a run accepts: about 23 days. Node's and Deno's timers wait at most
 * 2^31 − 1 ms (a longer delay fires after 1 ms), and the engines arm theirs at the limit plus a
 * grace of up to a few seconds. A run always has a time limit (there is no "no limit": pass a
 * `signal` to stop a long one yourself).
 */
export const MAX_TIMEOUT_MS = 2_000_000_000;
/** The largest `memoryLimitBytes`: 4 GiB, all that a 32-bit WebAssembly engine can address. */
export const MAX_MEMORY_LIMIT_BYTES = 4 * 1024 ** 3;
/**
 * The largest `maxOutputBytes` and `maxResultBytes`: 32 MiB. What comes back from a run is held
 * in the host as strings (and, from Python, as one reply line of up to six times both caps),
 * which must stay well under V8's largest string (2^29 − 24 characters).
 */
export const MAX_OUTPUT_CAP_BYTES = 32 * 1024 * 1024;
/** The largest `maxFileBytes` and `maxTotalFileBytes`: 256 MiB (files cross to Python as base64 text). */
export const MAX_FILE_CAP_BYTES = 256 * 1024 * 1024;
/** The largest `maxHostCallsInFlight`: each call in flight holds a host promise and a guest promise. */
export const MAX_HOST_CALLS_IN_FLIGHT = 1024;

const bytes = (max: number, maxReason: string): OptionRule<number> => integerRule({ min: 1, max, unit: "bytes", maxReason });

/**
 * The rules of the numeric limits of a run (the table in docs/sandbox.md). `maxHostCalls` alone
 * takes `Infinity` for "no limit": the run's time limit and `maxHostCallsInFlight` still bound it.
 */
export const LIMIT_RULES = {
  timeoutMs: numberRule({
    min: 0,
    exclusiveMin: true,
    max: MAX_TIMEOUT_MS,
    unit: "milliseconds",
    maxReason: `about 23 days: timers wait at most ${MAX_TIMER_MS} ms, less the engines' grace; every run has a time limit`,
  }),
  memoryLimitBytes: bytes(MAX_MEMORY_LIMIT_BYTES, "4 GiB: the engines are 32-bit WebAssembly"),
  maxOutputBytes: bytes(MAX_OUTPUT_CAP_BYTES, "32 MiB: output is held in the host as text"),
  maxResultBytes: bytes(MAX_OUTPUT_CAP_BYTES, "32 MiB: the result is held in the host as JSON text"),
  maxHostCallsInFlight: integerRule({ min: 1, max: MAX_HOST_CALLS_IN_FLIGHT, unit: "calls" }),
  maxHostCalls: integerRule({ min: 1, max: Number.MAX_SAFE_INTEGER, unit: "calls", infinity: Number.MAX_SAFE_INTEGER }),
  maxFileBytes: bytes(MAX_FILE_CAP_BYTES, "256 MiB: files cross to the engine as text"),
  maxTotalFileBytes: bytes(MAX_FILE_CAP_BYTES, "256 MiB: files cross to the engine as text"),
} as const;

/** A run option whose value is a numeric limit. */
type LimitOption = keyof typeof LIMIT_RULES;

/** The languages, as a rule. */
const LANGUAGE_RULE = oneOfRule(LANGUAGES);

/**
 * Every option of a run and its rule: the keys come from `RunOptions` itself (a field added there
 * without a rule here does not compile), so an unknown key is refused with the nearest known one.
 */
export const RUN_OPTION_RULES = {
  language: LANGUAGE_RULE,
  ...LIMIT_RULES,
  // Checked as a whole below (JSON, names, reserved names), after the language is known.
  globals: rule("an object mapping names to JSON values", (v) => typeof v === "object" && v !== null && !Array.isArray(v)),
  hostFunctions: rule("an object mapping names to functions", (v) => typeof v === "object" && v !== null && !Array.isArray(v)),
  signal: signalRule,
  // Code is data: the engine answers NUL bytes or lone surrogates in it with a status.
  tests: rule("a string of test code", (v) => typeof v === "string"),
  files: rule("an object mapping relative paths to strings or Uint8Arrays", (v) => typeof v === "object" && v !== null && !Array.isArray(v)),
  filesAtRoot: rule("true or false", (v) => typeof v === "boolean"),
  // Checked as a whole below (seed digits, readings).
  inputs: rule("an object { seed, clockReads? }", (v) => typeof v === "object" && v !== null && !Array.isArray(v)),
} satisfies OptionRules<RunOptions>;

/** The names of a run's options, in a stable order. */
export const RUN_OPTION_KEYS = Object.keys(RUN_OPTION_RULES) as (keyof RunOptions)[];

/**
 * Checks that `value` is a language this package runs.
 *
 * @throws InvalidOptionError naming `option` and listing the valid languages.
 * @example
 * const language = resolveLanguage(options.language ?? "javascript");
 */
export function resolveLanguage(value: unknown, option = "language"): Language {
  return LANGUAGE_RULE.check(value, option);
}

/**
 * Checks a numeric limit of a run by its rule in {@link LIMIT_RULES} (range, whole number, the
 * largest value the runtime can honour). `name` is how the message names it (default `limit`):
 * a graph's `context.timeoutMs`, a CLI's `--timeout-ms`.
 *
 * @throws InvalidOptionError naming the option.
 * @example
 * resolveLimit("timeoutMs", 100); // 100
 */
export function resolveLimit(limit: LimitOption, value: unknown, name: string = limit): number {
  return LIMIT_RULES[limit].check(value, name);
}

/**
 * Serialises `globals` into one JSON string (the form in which they cross into the sandbox),
 * checking that every value survives JSON unchanged and that no name replaces what the sandbox
 * or the language gives every program (`console`, `JSON`, Python's `print`, ...).
 *
 * @throws InvalidOptionError naming the offending key (`globals.NAME`) for functions, BigInt,
 *   `undefined`, symbols, non-finite numbers, non-plain objects, cycles and reserved names.
 * @example
 * serializeGlobals({ data: [1, 2] }); // '{"data":[1,2]}'
 */
export function serializeGlobals(globals: unknown, language: Language = "javascript", option = "globals"): string {
  if (globals === undefined) return "{}";
  if (globals === null || typeof globals !== "object" || Array.isArray(globals)) {
    throw new InvalidOptionError(option, globals, "an object mapping names to JSON values");
  }
  for (const key of Object.keys(globals)) checkGrantedName(`${option}.${key}`, key, language);
  assertJsonValue(globals, option);
  return JSON.stringify(globals);
}

/** A name granted to the program: an identifier that replaces nothing the program already has. */
function checkGrantedName(option: string, key: string, language: Language): void {
  if (!isIdentifier(key)) throw new InvalidOptionError(option, key, "a name that is a valid JavaScript identifier");
  const reserved = reservedNameReason(key, language);
  if (reserved !== undefined) {
    throw new InvalidOptionError(option, key, `another name: ${reserved} is already there and would be replaced`, {
      problem: `"${key}" is ${reserved}, which every ${language} program already has`,
    });
  }
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
 * Checks `hostFunctions`: every entry a function under an identifier name that replaces nothing
 * the program already has and is not also a global.
 *
 * @throws InvalidOptionError naming `hostFunctions.NAME`.
 * @example
 * resolveHostFunctions({ add: (a, b) => Number(a) + Number(b) });
 */
export function resolveHostFunctions(value: unknown, language: Language = "javascript", globalNames: readonly string[] = []): Record<string, HostFunction> {
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InvalidOptionError("hostFunctions", value, "an object mapping names to functions");
  }
  const out: Record<string, HostFunction> = {};
  for (const [key, fn] of Object.entries(value)) {
    checkGrantedName(`hostFunctions.${key}`, key, language);
    if (globalNames.includes(key)) throw new InvalidOptionError(`hostFunctions.${key}`, key, `a name that is not also in globals (globals.${key} is given too)`);
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
 * validates every value: unknown keys, types, ranges (see {@link LIMIT_RULES}), JSON globals.
 *
 * @param owner What took the options, for the message of an unknown key (`"runCode"`, `"session.call"`).
 * @throws InvalidOptionError naming the first bad option.
 * @example
 * const resolved = resolveRunOptions({ timeoutMs: 100 });
 * resolved.language; // "javascript"
 */
export function resolveRunOptions(
  options: RunOptions | undefined,
  defaults: Omit<RunOptions, "hostFunctions" | "globals"> = {},
  owner = "runCode",
): PreparedRunOptions {
  const o = checkOptions<RunOptions>(options, RUN_OPTION_RULES, owner);
  const limit = (key: LimitOption, fallback: number): number =>
    o[key] !== undefined ? o[key] : resolveLimit(key, defaults[key] ?? fallback, defaults[key] === undefined ? key : `defaults.${key}`);
  const language = o.language ?? resolveLanguage(defaults.language ?? "javascript", "defaults.language");
  const globalsJson = serializeGlobals(o.globals, language);
  const maxFileBytes = limit("maxFileBytes", DEFAULT_MAX_FILE_BYTES);
  const maxTotalFileBytes = limit("maxTotalFileBytes", DEFAULT_MAX_TOTAL_FILE_BYTES);
  const signal = o.signal ?? defaults.signal;
  const tests = o.tests ?? defaults.tests;
  const files = o.files ?? defaults.files;
  return {
    language,
    timeoutMs: limit("timeoutMs", DEFAULT_TIMEOUT_MS),
    memoryLimitBytes: limit("memoryLimitBytes", DEFAULT_MEMORY_LIMIT_BYTES),
    maxOutputBytes: limit("maxOutputBytes", DEFAULT_MAX_OUTPUT_BYTES),
    globals: (o.globals ?? {}) as Record<string, JsonValue>,
    globalsJson,
    hostFunctions: resolveHostFunctions(o.hostFunctions, language, Object.keys(o.globals ?? {})),
    maxHostCallsInFlight: limit("maxHostCallsInFlight", DEFAULT_MAX_HOST_CALLS_IN_FLIGHT),
    maxHostCalls: limit("maxHostCalls", DEFAULT_MAX_HOST_CALLS),
    maxResultBytes: limit("maxResultBytes", DEFAULT_MAX_RESULT_BYTES),
    ...(signal !== undefined ? { signal } : {}),
    ...(tests !== undefined ? { tests } : {}),
    maxFileBytes,
    maxTotalFileBytes,
    ...(files !== undefined ? { files: resolveFiles(files, { maxFileBytes, maxTotalFileBytes }, o.files !== undefined ? "files" : "defaults.files") } : {}),
    ...(o.filesAtRoot !== undefined ? { filesAtRoot: o.filesAtRoot } : {}),
    ...(o.inputs !== undefined ? { inputs: resolveInputs(o.inputs) } : {}),
  };
}

const SEED = /^[0-9a-f]{32}$/;

/**
 * Checks a run's `inputs` (seed and clock readings) and returns a copy.
 *
 * @throws InvalidOptionError naming `inputs.seed` or `inputs.clockReads`.
 */
export function resolveInputs(value: unknown): RunInputs {
  if (value === null || typeof value !== "object") throw new InvalidOptionError("inputs", value, "an object { seed, clockReads? }");
  const { seed, clockReads } = value as Record<string, unknown>;
  if (typeof seed !== "string" || !SEED.test(seed)) throw new InvalidOptionError("inputs.seed", seed, "32 lowercase hexadecimal digits");
  if (clockReads === undefined) return { seed };
  if (!Array.isArray(clockReads) || clockReads.length > MAX_RECORDED_CLOCK_READS || !clockReads.every((t) => typeof t === "number" && Number.isFinite(t))) {
    throw new InvalidOptionError("inputs.clockReads", clockReads, `an array of at most ${MAX_RECORDED_CLOCK_READS} finite numbers (epoch milliseconds)`);
  }
  return { seed, clockReads: [...clockReads] };
}

/**
 * Checks a sandbox's `defaults` (the run options every run of it starts from) once, at creation.
 *
 * @throws InvalidOptionError naming `defaults.NAME`.
 * @example
 * checkRunDefaults({ timeoutMs: 1000 }, "createSandbox");
 */
export function checkRunDefaults(defaults: unknown, owner: string): Omit<RunOptions, "hostFunctions" | "globals"> {
  const { globals: _g, hostFunctions: _h, ...rules } = RUN_OPTION_RULES;
  const checked = checkOptions<Omit<RunOptions, "hostFunctions" | "globals">>(defaults, rules, `${owner}'s defaults`, "defaults.");
  if (checked.files !== undefined) resolveFiles(checked.files, { maxFileBytes: checked.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, maxTotalFileBytes: checked.maxTotalFileBytes ?? DEFAULT_MAX_TOTAL_FILE_BYTES }, "defaults.files");
  return checked;
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
  option = "files",
): Record<string, Uint8Array> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InvalidOptionError(option, value, "an object mapping relative paths to strings or Uint8Arrays");
  }
  const entries: [string, Uint8Array][] = [];
  let total = 0;
  for (const [path, content] of Object.entries(value)) {
    if (path === "" || path.startsWith("/") || path.split("/").some((part) => part === ".." || part === "")) {
      throw new InvalidOptionError(`${option}.${path}`, path, "a relative path without '..' or empty parts");
    }
    if (path.includes("\0") || !isWellFormed(path) || path.length > 4096) {
      throw new InvalidOptionError(`${option}.${path}`, path, "a path of at most 4096 characters of well-formed Unicode without NUL characters");
    }
    // A copy of exactly the bytes (a view's whole buffer would otherwise travel with it).
    let copy: Uint8Array;
    if (typeof content === "string") copy = new TextEncoder().encode(content);
    else if (content instanceof Uint8Array) copy = new Uint8Array(content);
    else throw new InvalidOptionError(`${option}.${path}`, content, "a string or a Uint8Array");
    entries.push([path, copy]);
    const bytes = copy.byteLength;
    if (bytes > limits.maxFileBytes) {
      throw new InvalidOptionError(`${option}.${path}`, `${bytes} bytes`, `at most maxFileBytes (${limits.maxFileBytes}) bytes, or a larger maxFileBytes`);
    }
    total += bytes + new TextEncoder().encode(path).byteLength;
    if (total > limits.maxTotalFileBytes) {
      throw new InvalidOptionError(option, `${total} bytes or more`, `at most maxTotalFileBytes (${limits.maxTotalFileBytes}) bytes in all (contents plus paths), or a larger maxTotalFileBytes`);
    }
  }
  // fromEntries defines own properties: a file named "__proto__" stays a file.
  const out: Record<string, Uint8Array> = Object.fromEntries(entries);
  for (const path of Object.keys(out)) {
    for (let slash = path.indexOf("/"); slash > 0; slash = path.indexOf("/", slash + 1)) {
      const parent = path.slice(0, slash);
      if (Object.hasOwn(out, parent)) throw new InvalidOptionError(`files.${path}`, path, `paths that can all be files (${parent} is a file, so nothing can be under it)`);
    }
  }
  return out;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** True when `name` can be used as a plain JavaScript identifier (ASCII subset). */
export function isIdentifier(name: string): boolean {
  return IDENTIFIER.test(name);
}

/**
 * Checks an allowed-languages option and returns it without duplicates, in the stable order of
 * `LANGUAGES`. Throws `InvalidOptionError` for an empty list or an unknown language.
 *
 * @example
 * ```ts
 * resolveLanguages(["python", "javascript"]); // ["javascript", "python"]
 * ```
 */
export function resolveLanguages(languages: readonly Language[] | undefined, option = "languages"): Language[] {
  if (languages === undefined) return [...LANGUAGES];
  const expected = `a non-empty array of ${LANGUAGES.map((l) => `"${l}"`).join(", ")}`;
  if (!Array.isArray(languages) || languages.length === 0) throw new InvalidOptionError(option, languages, expected);
  const chosen = languages.map((language, i) => resolveLanguage(language, `${option}[${i}]`));
  return LANGUAGES.filter((language) => chosen.includes(language));
}
