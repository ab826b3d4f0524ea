/**
 * Options of the MCP server and their defaults, filled and checked in one place. The run
 * limits default to the sandbox's own; what is new here (sessions, concurrency) is the server's.
 */
import { InvalidOptionError } from "../errors.js";
import { DEFAULT_MAX_CONTENT_CHARS } from "../feedback/truncate.js";
import type { ModelSpec } from "../models/resolve-model.js";
import {
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_TOTAL_FILE_BYTES,
  DEFAULT_MEMORY_LIMIT_BYTES,
  DEFAULT_TIMEOUT_MS,
  resolveLimit,
} from "../sandbox/options.js";
import type { Sandbox } from "../sandbox/types.js";

/** Default cap on open code sessions of one server. */
export const DEFAULT_MAX_SESSIONS = 8;
/** Default idle time after which a code session is closed: 10 minutes. */
export const DEFAULT_SESSION_IDLE_MS = 10 * 60 * 1000;
/** Default number of tool calls that run code at once; more wait in line. */
export const DEFAULT_MAX_CONCURRENT_RUNS = 4;
/** Node timers longer than this overflow to 1 ms (TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

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
}

function wholeNumber(option: string, value: number | undefined, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const resolved = resolveLimit(option, value ?? fallback);
  if (!Number.isInteger(resolved) || resolved > max) {
    throw new InvalidOptionError(option, value, `a whole number from 1 to ${max}`);
  }
  return resolved;
}

/**
 * Fills every default of `SandboxMcpServerOptions` and checks every value.
 *
 * @throws InvalidOptionError naming the first bad option.
 * @example
 * ```ts
 * resolveMcpOptions({ maxSessions: 2 }).sessionIdleMs; // 600000
 * ```
 */
export function resolveMcpOptions(options: SandboxMcpServerOptions = {}): ResolvedMcpOptions {
  if (options === null || typeof options !== "object") {
    throw new InvalidOptionError("options", options, "an object of MCP server options (or nothing)");
  }
  const sandbox = options.sandbox;
  if (sandbox !== undefined && (sandbox === null || typeof sandbox.run !== "function" || typeof sandbox.createSession !== "function")) {
    throw new InvalidOptionError("sandbox", sandbox, "a sandbox from createSandbox() (with run, check and createSession)");
  }
  const resolved: ResolvedMcpOptions = {
    timeoutMs: wholeNumber("timeoutMs", options.timeoutMs, DEFAULT_TIMEOUT_MS, MAX_TIMER_MS),
    memoryLimitBytes: wholeNumber("memoryLimitBytes", options.memoryLimitBytes, DEFAULT_MEMORY_LIMIT_BYTES),
    maxOutputBytes: wholeNumber("maxOutputBytes", options.maxOutputBytes, DEFAULT_MAX_OUTPUT_BYTES),
    maxFileBytes: wholeNumber("maxFileBytes", options.maxFileBytes, DEFAULT_MAX_FILE_BYTES),
    maxTotalFileBytes: wholeNumber("maxTotalFileBytes", options.maxTotalFileBytes, DEFAULT_MAX_TOTAL_FILE_BYTES),
    maxSessions: wholeNumber("maxSessions", options.maxSessions, DEFAULT_MAX_SESSIONS),
    sessionIdleMs: wholeNumber("sessionIdleMs", options.sessionIdleMs, DEFAULT_SESSION_IDLE_MS, MAX_TIMER_MS),
    maxConcurrentRuns: wholeNumber("maxConcurrentRuns", options.maxConcurrentRuns, DEFAULT_MAX_CONCURRENT_RUNS),
    maxContentChars: wholeNumber("maxContentChars", options.maxContentChars, DEFAULT_MAX_CONTENT_CHARS),
  };
  if (sandbox !== undefined) resolved.sandbox = sandbox;
  if (options.model !== undefined) resolved.model = options.model;
  if (options.env !== undefined) resolved.env = options.env;
  return resolved;
}
