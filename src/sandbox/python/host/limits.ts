/** Limits of a Python run or call: from resolved options to what the runner applies. */
import { resolveRunOptions } from "../../options.js";
import type { EngineSessionOptions, ResolvedRunOptions, RunOptions } from "../../types.js";
import type { RunLimits } from "../shared/protocol.js";

/**
 * The limits the runner enforces for one run.
 *
 * @example
 * runLimits(resolved).maxResultBytes; // 1048576 by default
 */
export function runLimits(resolved: Pick<ResolvedRunOptions, "timeoutMs" | "memoryLimitBytes" | "maxOutputBytes" | "maxResultBytes">): RunLimits {
  return {
    timeoutMs: resolved.timeoutMs,
    memoryLimitBytes: resolved.memoryLimitBytes,
    maxOutputBytes: resolved.maxOutputBytes,
    maxResultBytes: resolved.maxResultBytes,
  };
}

/**
 * Resolves the options of a session run or call: the call's own options win over the sandbox's
 * `defaults`, which win over the session's memory limit and the package defaults.
 *
 * @throws InvalidOptionError for a bad option.
 * @example
 * resolveSessionOptions({ timeoutMs: 1000 }, { language: "python", defaults: {}, memoryLimitBytes: 64 << 20 }).timeoutMs; // 1000
 */
export function resolveSessionOptions(options: Omit<RunOptions, "language">, session: EngineSessionOptions): ResolvedRunOptions {
  const { language: _language, ...defaults } = session.defaults;
  return resolveRunOptions({ ...options, language: "python" }, { ...defaults, memoryLimitBytes: session.memoryLimitBytes });
}
