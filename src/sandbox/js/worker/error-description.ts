/**
 * How a run that did not succeed is described: the thrown value (through the prelude, with
 * memory headroom), out-of-memory detection, and the errors of limits.
 */
import type { QuickJSHandle } from "quickjs-emscripten-core";
import type { ExecutionError } from "../../types.js";
import { resultLimitError, timeoutError } from "../../limit-errors.js";
import { locateError } from "./error-location.js";
import { HelperOp, type GuestHelpers } from "./guest-helpers.js";
import type { GuestRuntime } from "./guest-runtime.js";
import type { WorkerOutcome } from "../shared/protocol.js";
import type { RawError, RunState } from "./run-state.js";

/** Headroom granted while describing an out-of-memory error, so the description can allocate. */
const OOM_DESCRIBE_HEADROOM_BYTES = 4 * 1024 * 1024;

/** Source that may reject a promise with `null` on purpose (see describeThrown). */
export const REJECTS_NULL = /\breject\s*\(\s*null\s*\)/;


/**
 * Parses a `RawError` made by the prelude; `undefined` if the text is not one. The prelude runs
 * in the guest, after the guest's code, which may have replaced `String` or
 * `String.prototype.slice`: every field is checked here before the worker uses it.
 */
export function parseRaw(json: string): RawError | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (raw === null || typeof raw !== "object") return undefined;
  const { name, message, stack } = raw as Record<string, unknown>;
  if (typeof name !== "string" || typeof message !== "string") return undefined;
  return typeof stack === "string" ? { name, message, stack } : { name, message };
}

/** Describes a thrown handle through the prelude (with headroom in case memory ran out). Disposes it. */
export function describeThrown(guest: GuestRuntime, helpers: GuestHelpers, run: RunState | undefined, thrown: QuickJSHandle): RawError | undefined {
  using _thrown = thrown;
  const ctx = guest.context;
  guest.liftMemoryLimit(OOM_DESCRIBE_HEADROOM_BYTES);
  // QuickJS throws a bare `null` when it runs out of memory while already handling an
  // out-of-memory error (e.g. growing a Map's table), and the memory is freed again by the
  // time we could measure it. The run records every `throw` the code itself makes (its
  // throws are marked, see worker/main.ts), so a null the code threw, directly or through a
  // variable, is its own; a literal `reject(null)` in the source counts as the code's too.
  if (run?.nullMeansOutOfMemory && ctx.sameValue(thrown, ctx.null)) return { name: "InternalError", message: "out of memory" };
  const json = helpers.text(HelperOp.Describe, thrown);
  return json === undefined ? undefined : parseRaw(json);
}

/** The outcome of a run stopped from the host side (time or output limit). */
export function abortedOutcome(run: RunState): WorkerOutcome {
  const durationMs = performance.now() - run.startedMs;
  if (run.abort === "output") {
    return {
      status: "output_limit",
      error: {
        name: "OutputLimitError",
        message: `the code printed more than ${run.limits.maxOutputBytes} bytes; output was cut there and the run stopped (print less, or return a summary)`,
      },
      durationMs,
    };
  }
  return { status: "timeout", error: timeoutError(run.limits.timeoutMs), durationMs };
}

/** The outcome of a run whose code threw (or was stopped while it did). */
export function failureOutcome(run: RunState, raw: RawError | undefined, memoryLimitBytes: number): WorkerOutcome {
  if (run.abort) return abortedOutcome(run);
  const durationMs = performance.now() - run.startedMs;
  const error: ExecutionError = raw ? locateError(raw, run.fileName) : { name: "Error", message: "the code failed in a way that cannot be described" };
  if (error.line === undefined && run.throwLine !== undefined) error.line = run.throwLine;
  if (error.name === "InternalError" && /out of memory/.test(error.message)) {
    const reached = memoryLimitReached(memoryLimitBytes, durationMs, error.message);
    return { ...reached, error: { ...error, ...reached.error } };
  }
  return { status: "runtime_error", error, durationMs };
}

/** The outcome of a run that reached its memory limit (`why`: the engine's own words, if any). */
export function memoryLimitReached(memoryLimitBytes: number, durationMs: number, why = "out of memory"): WorkerOutcome & { error: ExecutionError } {
  return {
    status: "memory_limit",
    error: {
      name: "MemoryLimitError",
      message: `the code used more than ${memoryLimitBytes} bytes of memory (${why}); use less memory, e.g. process data in smaller pieces`,
    },
    durationMs,
  };
}

/**
 * The error of a run whose result JSON cannot hold (JSON.stringify threw: a cycle, a BigInt, a
 * throwing getter or `toJSON`), naming why and what to return instead.
 */
export function unserialisableResultError(raw: RawError | undefined): RawError {
  const why = raw?.message ?? "JSON.stringify threw a value that cannot be described";
  return {
    name: raw?.name ?? "TypeError",
    message: `the result cannot be serialised as JSON: ${why}; return plain data (numbers, strings, booleans, null, arrays, plain objects; a BigInt as String(x), no cycles)`,
    ...(raw?.stack !== undefined ? { stack: raw.stack } : {}),
  };
}

/** The outcome of a run whose result's JSON was over `maxResultBytes` (`size` in characters or bytes). */
export function resultLimitOutcome(run: RunState, size: number): WorkerOutcome {
  return { status: "output_limit", error: resultLimitError(size, run.limits.maxResultBytes), durationMs: performance.now() - run.startedMs };
}


/** The outcome of a run whose promise can never settle. */
export function neverSettledOutcome(run: RunState): WorkerOutcome {
  return {
    status: "runtime_error",
    error: {
      name: "Error",
      message:
        "the program's promise never settled: it awaits something that can never resolve " +
        "(there are no timers here, and no host function call is in flight)",
    },
    durationMs: performance.now() - run.startedMs,
  };
}

