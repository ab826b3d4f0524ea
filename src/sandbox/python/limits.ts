/** Limits of a Python session run or call, filled from the caller's options with the package defaults. */
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS, resolveLimit } from "../options.js";
import type { RunOptions } from "../types.js";
import type { RunLimits } from "./deno/protocol.js";

/**
 * Resolves the limits of a session run or call (engine runs get theirs already resolved).
 *
 * @throws InvalidOptionError for a bad limit.
 * @example
 * resolvePythonLimits({ timeoutMs: 1000 }, 64 * 1024 * 1024).timeoutMs; // 1000
 */
export function resolvePythonLimits(options: Omit<RunOptions, "language" | "globals">, memoryLimitBytes: number): RunLimits {
  return {
    timeoutMs: resolveLimit("timeoutMs", options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    memoryLimitBytes: resolveLimit("memoryLimitBytes", options.memoryLimitBytes ?? memoryLimitBytes),
    maxOutputBytes: resolveLimit("maxOutputBytes", options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES),
  };
}
