/**
 * The errors a run gets when it passes one of the sandbox's limits, worded once for every engine
 * and for both sides of a thread boundary (the side that counts first gives the guest a clear
 * exception; the host checks again and reports the same words).
 */
import type { ExecutionError } from "./types.js";

/**
 * The error for a call past the run's host-call limits, or `undefined` when the call may start.
 * In JavaScript the worker counts first (a courtesy that gives the guest a clear exception) and
 * the host counts again (the boundary); in Python the host counts.
 */
export function hostCallLimitError(
  name: string,
  inFlight: number,
  started: number,
  limits: { maxHostCallsInFlight: number; maxHostCalls: number },
): { name: string; message: string } | undefined {
  const { maxHostCallsInFlight, maxHostCalls } = limits;
  if (inFlight >= maxHostCallsInFlight) {
    return {
      name: "HostCallLimitError",
      message:
        `${name}() was refused: ${maxHostCallsInFlight} host calls are already in flight, the most one run may have at once ` +
        `(maxHostCallsInFlight); await calls before starting more, or raise the maxHostCallsInFlight option`,
    };
  }
  if (started >= maxHostCalls) {
    return {
      name: "HostCallLimitError",
      message:
        `${name}() was refused: this run already made ${maxHostCalls} host calls, the most one run may make ` +
        `(its maxHostCalls limit); make fewer calls (e.g. batch work into one call), or raise the maxHostCalls option`,
    };
  }
  return undefined;
}

/** The error of a result dropped for its size. */
export function resultLimitError(size: number, maxResultBytes: number): ExecutionError {
  return {
    name: "ResultLimitError",
    message:
      `the result's JSON is at least ${size} bytes, over the ${maxResultBytes}-byte limit, so it was dropped ` +
      `(return a smaller value, e.g. a summary or the first items, or raise the maxResultBytes option)`,
  };
}

/** The error of a result dropped because it nests deeper than the host accepts (see json-depth.ts). */
export function resultDepthError(maxDepth: number): ExecutionError {
  return {
    name: "ResultLimitError",
    message:
      `the result nests arrays or objects more than ${maxDepth} levels deep, so it was dropped ` +
      `(return a flatter value, e.g. a list of items instead of nested links)`,
  };
}

/** The error reported for a run that passed its time limit. */
export function timeoutError(timeoutMs: number): ExecutionError {
  return {
    name: "TimeoutError",
    message: `the code ran longer than the ${timeoutMs} ms limit and was stopped (look for an endless loop, or do less work)`,
  };
}
