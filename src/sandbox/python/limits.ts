/** Limits of a Python session run or call, filled from the caller's options with the package defaults. */
import { InvalidOptionError } from "../../errors.js";
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS, resolveLimit } from "../options.js";
import type { HostFunction, RunOptions } from "../types.js";
import type { RunLimits } from "./deno/protocol.js";

/**
 * Resolves the limits of a session run or call (engine runs get theirs already resolved).
 *
 * @throws InvalidOptionError for a bad limit, or for host functions (JavaScript-only for now).
 * @example
 * resolvePythonLimits({ timeoutMs: 1000 }, 64 * 1024 * 1024).timeoutMs; // 1000
 */
export function resolvePythonLimits(options: Omit<RunOptions, "language" | "globals">, memoryLimitBytes: number): RunLimits {
  assertNoHostFunctions(options.hostFunctions);
  return {
    timeoutMs: resolveLimit("timeoutMs", options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    memoryLimitBytes: resolveLimit("memoryLimitBytes", options.memoryLimitBytes ?? memoryLimitBytes),
    maxOutputBytes: resolveLimit("maxOutputBytes", options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES),
  };
}

/**
 * Host functions cannot be passed to Python yet: throws one clear `InvalidOptionError`.
 * (The runner protocol leaves room for them: a worker can post a "call" and wait for a reply.)
 *
 * @example
 * assertNoHostFunctions(options.hostFunctions);
 */
export function assertNoHostFunctions(hostFunctions: Record<string, HostFunction> | undefined): void {
  if (hostFunctions === undefined || Object.keys(hostFunctions).length === 0) return;
  throw new InvalidOptionError(
    "hostFunctions",
    Object.keys(hostFunctions),
    'none with language "python": host functions are JavaScript/TypeScript-only for now (pass data in `globals` instead)',
  );
}
