/**
 * The resolved options the Python engine tests hand to `engine.run`: the package's defaults
 * with a 10 s limit. Built directly, not through `resolveRunOptions`, so a test can give the
 * engine exactly what it wants to check.
 */
import type { ResolvedRunOptions } from "../../../src/sandbox/types.js";

/** Options of one Python engine run, with `overrides` on top. */
export function options(overrides: Partial<ResolvedRunOptions> = {}): ResolvedRunOptions {
  return {
    language: "python",
    timeoutMs: 10_000,
    memoryLimitBytes: 64 * 1024 * 1024,
    maxOutputBytes: 1024 * 1024,
    globals: {},
    hostFunctions: {},
    maxHostCallsInFlight: 8,
    maxHostCalls: 256,
    maxResultBytes: 1024 * 1024,
    ...overrides,
  };
}
