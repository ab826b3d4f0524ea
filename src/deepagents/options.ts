/**
 * The options of `CodeGenSandbox.create()`: every default filled in one place, every value
 * checked, misuse reported as one `InvalidOptionError` that names the option.
 */
import { InvalidOptionError } from "../errors.js";
import { DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_TOTAL_FILE_BYTES, LIMIT_RULES, MAX_MEMORY_LIMIT_BYTES, MAX_TIMEOUT_MS } from "../sandbox/options.js";
import { checkOptions, integerRule, objectRule, type OptionRules } from "../options/index.js";
import type { Sandbox } from "../sandbox/types.js";

/** Options of {@link CodeGenSandbox.create}. Every field is optional. */
export interface CodeGenSandboxOptions {
  /**
   * Files the sandbox starts with, by absolute path (`"/src/app.py"`; a relative path is taken
   * from `/`): text, or bytes for binary files.
   */
  initialFiles?: Record<string, string | Uint8Array>;
  /** Wall-clock limit of one `execute` call, programs included. Default 30 000 (exit code 124 past it). */
  timeoutMs?: number;
  /** Memory of each `python3`/`node`/`tsx` program. Default 64 MiB (exit code 137 past it). */
  memoryLimitBytes?: number;
  /**
   * Heap of the shell's worker thread (the interpreter of the command line itself, its
   * variables, pipes and buffers). Default 256 MiB (exit code 137 past it).
   */
  shellMemoryLimitBytes?: number;
  /** Bytes of `execute` output kept; past it the output is cut and `truncated` is true. Default 100 000. */
  maxOutputBytes?: number;
  /** Bytes one file may hold. Default 8 MiB. */
  maxFileBytes?: number;
  /** Bytes all files may hold together (paths count too). Default 32 MiB. */
  maxTotalFileBytes?: number;
  /** Files and directories the sandbox may hold. Default 10 000. */
  maxFiles?: number;
  /**
   * Environment variables every command sees (nothing of the host's environment is passed).
   * `HOME`, `PATH` and `PWD` are set by the sandbox.
   */
  env?: Record<string, string>;
  /**
   * The engines that run `python3`, `node`, `tsx` (a `createSandbox()` you own and dispose).
   * Default: the package's shared sandbox, the one `runCode` uses.
   */
  sandbox?: Sandbox;
}

/** Default wall-clock limit of one `execute` call. */
export const DEFAULT_EXECUTE_TIMEOUT_MS = 30_000;
/** Default cap on the output one `execute` call returns (deepagents' `LocalShellBackend` keeps the same). */
export const DEFAULT_EXECUTE_MAX_OUTPUT_BYTES = 100_000;
/** Default heap of the shell's worker thread. */
export const DEFAULT_SHELL_MEMORY_LIMIT_BYTES = 256 * 1024 * 1024;
/** Default memory of one program run. */
export const DEFAULT_PROGRAM_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;
/** Default caps of the file store (the file caps are the sandbox's own). */
export const DEFAULT_STORE_LIMITS = {
  maxFileBytes: DEFAULT_MAX_FILE_BYTES,
  maxTotalFileBytes: DEFAULT_MAX_TOTAL_FILE_BYTES,
  maxFiles: 10_000,
} as const;

/** The caps of the file store. */
export interface StoreLimits {
  maxFileBytes: number;
  maxTotalFileBytes: number;
  maxFiles: number;
}

/** `CodeGenSandboxOptions` with every default filled in and every value checked. */
export interface ResolvedCodeGenSandboxOptions {
  initialFiles: Record<string, string | Uint8Array>;
  timeoutMs: number;
  memoryLimitBytes: number;
  shellMemoryLimitBytes: number;
  maxOutputBytes: number;
  limits: StoreLimits;
  env: Record<string, string>;
  sandbox?: Sandbox;
}

/** The worker needs some heap of its own to start the interpreter at all. */
const MIN_SHELL_MEMORY_BYTES = 32 * 1024 * 1024;

/** The options of `CodeGenSandbox.create()` and their rules (keys from the interface itself). */
const CODEGEN_SANDBOX_OPTION_RULES = {
  initialFiles: objectRule("an object mapping absolute paths to text or Uint8Array"),
  // A whole number: the programs' runs share it (the sandbox's time limit, at most 2e9 ms).
  timeoutMs: integerRule({ min: 1, max: MAX_TIMEOUT_MS, unit: "milliseconds", maxReason: "about 23 days: timers cannot wait much longer" }),
  memoryLimitBytes: LIMIT_RULES.memoryLimitBytes,
  shellMemoryLimitBytes: integerRule({ min: MIN_SHELL_MEMORY_BYTES, max: MAX_MEMORY_LIMIT_BYTES, unit: "bytes", maxReason: "32 MiB to start the shell's interpreter, at most 4 GiB" }),
  maxOutputBytes: LIMIT_RULES.maxOutputBytes,
  maxFileBytes: LIMIT_RULES.maxFileBytes,
  maxTotalFileBytes: LIMIT_RULES.maxTotalFileBytes,
  maxFiles: integerRule({ min: 1, max: 1_000_000, unit: "files" }),
  env: objectRule("an object mapping variable names to strings"),
  sandbox: objectRule("a sandbox from createSandbox()", (v) => typeof v.run === "function"),
} satisfies OptionRules<CodeGenSandboxOptions>;

/**
 * Fills every default of `CodeGenSandboxOptions` and checks every value.
 *
 * @throws InvalidOptionError naming the first bad option.
 * @example
 * resolveCodeGenSandboxOptions({ timeoutMs: 5000 }).maxOutputBytes; // 100000
 */
export function resolveCodeGenSandboxOptions(options: CodeGenSandboxOptions | undefined): ResolvedCodeGenSandboxOptions {
  if (options !== undefined && (options === null || typeof options !== "object" || Array.isArray(options))) {
    throw new InvalidOptionError("options", options, "an object of CodeGenSandbox options, or nothing");
  }
  const o = checkOptions<CodeGenSandboxOptions>(options, CODEGEN_SANDBOX_OPTION_RULES, "CodeGenSandbox.create");
  return {
    initialFiles: resolveInitialFiles(o.initialFiles),
    timeoutMs: o.timeoutMs ?? DEFAULT_EXECUTE_TIMEOUT_MS,
    memoryLimitBytes: o.memoryLimitBytes ?? DEFAULT_PROGRAM_MEMORY_LIMIT_BYTES,
    shellMemoryLimitBytes: o.shellMemoryLimitBytes ?? DEFAULT_SHELL_MEMORY_LIMIT_BYTES,
    maxOutputBytes: o.maxOutputBytes ?? DEFAULT_EXECUTE_MAX_OUTPUT_BYTES,
    limits: {
      maxFileBytes: o.maxFileBytes ?? DEFAULT_STORE_LIMITS.maxFileBytes,
      maxTotalFileBytes: o.maxTotalFileBytes ?? DEFAULT_STORE_LIMITS.maxTotalFileBytes,
      maxFiles: o.maxFiles ?? DEFAULT_STORE_LIMITS.maxFiles,
    },
    env: resolveEnv(o.env),
    ...(o.sandbox !== undefined ? { sandbox: resolveSandbox(o.sandbox) } : {}),
  };
}

function resolveInitialFiles(value: unknown): Record<string, string | Uint8Array> {
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InvalidOptionError("initialFiles", value, "an object mapping absolute paths to text or Uint8Array");
  }
  for (const [path, content] of Object.entries(value)) {
    if (typeof content !== "string" && !(content instanceof Uint8Array)) {
      throw new InvalidOptionError(`initialFiles["${path.slice(0, 80)}"]`, content, "text or a Uint8Array");
    }
  }
  return value as Record<string, string | Uint8Array>;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function resolveEnv(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InvalidOptionError("env", value, "an object mapping variable names to strings");
  }
  const env: Record<string, string> = {};
  for (const [name, v] of Object.entries(value)) {
    if (!ENV_NAME.test(name)) throw new InvalidOptionError(`env.${name}`, name, "a shell variable name (letters, digits, _)");
    if (typeof v !== "string") throw new InvalidOptionError(`env.${name}`, v, "a string");
    env[name] = v;
  }
  return env;
}

function resolveSandbox(value: unknown): Sandbox {
  const s = value as Partial<Sandbox> | null;
  if (s === null || typeof s !== "object" || typeof s.run !== "function") {
    throw new InvalidOptionError("sandbox", value, "a sandbox from createSandbox()");
  }
  return value as Sandbox;
}
