/**
 * Options of the MCP server and their defaults, filled and checked in one place. The run
 * limits default to the sandbox's own; what is new here (sessions, concurrency) is the server's.
 */
import { InvalidOptionError } from "../errors.js";
import { DEFAULT_MAX_CONTENT_CHARS, MAX_CONTENT_CHARS_RULE } from "../feedback/truncate.js";
import type { ModelSpec } from "../models/resolve-model.js";
import {
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_TOTAL_FILE_BYTES,
  DEFAULT_MEMORY_LIMIT_BYTES,
  DEFAULT_TIMEOUT_MS,
  LIMIT_RULES,
} from "../sandbox/options.js";
import { checkOptions, integerRule, MAX_TIMER_MS, objectRule, type OptionRules } from "../options/index.js";
import { ENV_RULE, MODEL_SPEC_RULE } from "../models/option-rules.js";
import type { Sandbox } from "../sandbox/types.js";

/** Default cap on open code sessions of one server. */
export const DEFAULT_MAX_SESSIONS = 8;
/** Default idle time after which a code session is closed: 10 minutes. */
export const DEFAULT_SESSION_IDLE_MS = 10 * 60 * 1000;
/** Default number of tool calls that run code at once; more wait in line. */
export const DEFAULT_MAX_CONCURRENT_RUNS = 4;

/** Options of `createMcpServer`. Every field is optional; defaults are listed on each. */
export interface SandboxMcpServerOptions {
  /**
   * The sandbox that runs the code. Default: one this server creates and disposes on
   * `close()`. A sandbox you pass is yours: the server never disposes it.
   */
  sandbox?: Sandbox;
  /** Wall-clock limit of each run, and the most a call's `timeoutMs` may ask for. Default 5000. */
  timeoutMs?: number;
  /** Memory limit of each run (and of each session). Default 64 MiB. */
  memoryLimitBytes?: number;
  /** stdout + stderr kept per run; past it the run ends `output_limit`. Default 1 MiB. */
  maxOutputBytes?: number;
  /** Bytes one file of `files` may hold (given or written). Default 8 MiB. */
  maxFileBytes?: number;
  /** Bytes all files of one run may hold together. Default 32 MiB. */
  maxTotalFileBytes?: number;
  /** Code sessions open at once (`open_session`); one more is refused. Default 8. */
  maxSessions?: number;
  /** A code session unused this long is closed. Default 600000 (10 minutes). */
  sessionIdleMs?: number;
  /** Tool calls that run code at once (`run_code`, `solve`); more wait in line. Default 4. */
  maxConcurrentRuns?: number;
  /** Bound of the text a tool returns to the model, in characters. Default 4000. */
  maxContentChars?: number;
  /**
   * Model of the `solve` tool: a chat model instance or `"provider:model"`. Default: the
   * environment (`CODEGEN_MODEL`, `OPENAI_API_KEY`, `OPENAI_BASE_URL`), as the CLI's `solve`.
   */
  model?: ModelSpec;
  /** Environment read for the model settings of `solve`. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Python packages of the sandbox this server creates (`createSandbox`'s `python.packages` / `packageIndex`); not with `sandbox`. */
  python?: { packages?: string[]; packageIndex?: string };
}

/** The options with every default filled in and every value checked. */
export interface ResolvedMcpOptions {
  sandbox?: Sandbox;
  timeoutMs: number;
  memoryLimitBytes: number;
  maxOutputBytes: number;
  maxFileBytes: number;
  maxTotalFileBytes: number;
  maxSessions: number;
  sessionIdleMs: number;
  maxConcurrentRuns: number;
  maxContentChars: number;
  model?: ModelSpec;
  env?: Record<string, string | undefined>;
  python?: { packages?: string[]; packageIndex?: string };
}

/** The options of `createMcpServer` and their rules (keys from the interface itself). */
export const MCP_OPTION_RULES = {
  sandbox: objectRule("a sandbox from createSandbox() (with run, check and createSession)", (v) => typeof v.run === "function" && typeof v.createSession === "function"),
  timeoutMs: LIMIT_RULES.timeoutMs,
  memoryLimitBytes: LIMIT_RULES.memoryLimitBytes,
  maxOutputBytes: LIMIT_RULES.maxOutputBytes,
  maxFileBytes: LIMIT_RULES.maxFileBytes,
  maxTotalFileBytes: LIMIT_RULES.maxTotalFileBytes,
  maxSessions: integerRule({ min: 1, max: 1024, unit: "sessions" }),
  sessionIdleMs: integerRule({ min: 1, max: MAX_TIMER_MS, unit: "milliseconds", maxReason: "timers cannot wait longer" }),
  maxConcurrentRuns: integerRule({ min: 1, max: 256, unit: "runs" }),
  maxContentChars: MAX_CONTENT_CHARS_RULE,
  model: MODEL_SPEC_RULE,
  env: ENV_RULE,
  python: objectRule("{ packages, packageIndex }: Python packages of Pyodide's lock for the server's sandbox"),
} satisfies OptionRules<SandboxMcpServerOptions>;

/**
 * Fills every default of `SandboxMcpServerOptions` and checks every value.
 *
 * @throws InvalidOptionError naming the first bad option.
 * @example
 * ```ts
 * resolveMcpOptions({ maxSessions: 2 }).sessionIdleMs; // 600000
 * ```
 */
export function resolveMcpOptions(given: SandboxMcpServerOptions = {}): ResolvedMcpOptions {
  const options = checkOptions<SandboxMcpServerOptions>(given, MCP_OPTION_RULES, "createMcpServer");
  const resolved: ResolvedMcpOptions = {
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    memoryLimitBytes: options.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES,
    maxOutputBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    maxTotalFileBytes: options.maxTotalFileBytes ?? DEFAULT_MAX_TOTAL_FILE_BYTES,
    maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    sessionIdleMs: options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS,
    maxConcurrentRuns: options.maxConcurrentRuns ?? DEFAULT_MAX_CONCURRENT_RUNS,
    maxContentChars: options.maxContentChars ?? DEFAULT_MAX_CONTENT_CHARS,
  };
  if (options.sandbox !== undefined) resolved.sandbox = options.sandbox;
  if (options.model !== undefined) resolved.model = options.model;
  if (options.env !== undefined) resolved.env = options.env;
  if (options.python !== undefined) {
    if (options.sandbox !== undefined) throw new InvalidOptionError("python", options.python, "no python option with sandbox (give the packages to your createSandbox)");
    resolved.python = options.python;
  }
  return resolved;
}
