/**
 * Builds the "run" message a worker receives, from resolved options. One place, so pool runs
 * and session runs always grant the same things.
 */
import type { ResolvedRunOptions } from "../../types.js";
import { DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_TOTAL_FILE_BYTES } from "../../options.js";
import type { HostToWorker, WorkerRunLimits } from "../shared/protocol.js";

/** The worker message of a run. `runId` is assigned by the worker that sends it. */
export type RunRequest = Extract<HostToWorker, { type: "run" }>;

/**
 * The run message for `code` in `language` with options `o`.
 *
 * @example
 * worker.request(runRequest("6 * 7", "javascript", resolveRunOptions({})), "javascript", {});
 */
export function runRequest(code: string, language: RunRequest["language"], o: ResolvedRunOptions & { globalsJson?: string }): RunRequest {
  const globalNames = Object.keys(o.globals);
  const hostFunctionNames = Object.keys(o.hostFunctions);
  return {
    type: "run",
    runId: 0,
    code,
    language,
    // The front serialises globals once while validating them; reuse that text when given.
    globalsJson: o.globalsJson ?? JSON.stringify(o.globals),
    globalNames,
    hostFunctionNames,
    grantedNames: [...globalNames, ...hostFunctionNames],
    ...workerLimits(o),
    ...(o.tests !== undefined ? { tests: o.tests } : {}),
    ...(o.files !== undefined ? { files: o.files } : {}),
  };
}

/** The limits of a run as the worker enforces them. */
export function workerLimits(o: ResolvedRunOptions): WorkerRunLimits {
  return {
    timeoutMs: o.timeoutMs,
    memoryLimitBytes: o.memoryLimitBytes,
    maxOutputBytes: o.maxOutputBytes,
    maxHostCallsInFlight: o.maxHostCallsInFlight,
    maxHostCalls: o.maxHostCalls,
    maxResultBytes: o.maxResultBytes,
    maxFileBytes: o.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    maxTotalFileBytes: o.maxTotalFileBytes ?? DEFAULT_MAX_TOTAL_FILE_BYTES,
    ...(o.filesAtRoot ? { filesAtRoot: true } : {}),
    ...(o.inputs !== undefined ? { inputs: o.inputs } : {}),
  };
}
