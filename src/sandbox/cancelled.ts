/**
 * What a cancelled run reports, in every engine: status `cancelled` and a `CancelledError` that
 * says whether the run had started and quotes the signal's reason.
 */
import type { ExecutionError, ExecutionResult, Language } from "./types.js";

/**
 * The error reported for a run its caller cancelled (through `signal`). The signal's reason is
 * quoted when it is a string or an error with a message, cut short.
 */
export function cancelledError(signal: AbortSignal | undefined, started: boolean): ExecutionError {
  const reason: unknown = signal?.reason;
  let why = "";
  if (typeof reason === "string") why = reason;
  else if (reason instanceof Error && reason.name !== "AbortError") why = reason.message;
  if (why.length > 200) why = `${why.slice(0, 200)}...`;
  return {
    name: "CancelledError",
    message:
      (started ? "the run was cancelled by its caller and stopped" : "the run was cancelled by its caller before it started") +
      (why ? ` (${why})` : "") +
      "; run it again if it is still needed",
  };
}

/** The result of a request its caller cancelled (before it started, or while it ran). */
export function cancelledResult(language: Language, signal: AbortSignal | undefined, started: boolean, durationMs = 0): ExecutionResult {
  return {
    status: "cancelled",
    stdout: "",
    stderr: "",
    outputTruncated: false,
    error: cancelledError(signal, started),
    durationMs,
    language,
    hostCalls: 0,
  };
}
