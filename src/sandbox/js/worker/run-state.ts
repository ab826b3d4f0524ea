/**
 * The mutable state of the run in progress inside a worker: limits, deadline, output not yet
 * sent, host calls awaiting replies, and how the run settled. One object per run, shared by
 * the modules of the guest (output, host bridge, deadlines, the run loop).
 */
import type { QuickJSDeferredPromise, QuickJSHandle } from "quickjs-emscripten-core";
import type { WorkerRunLimits } from "../shared/protocol.js";
import { USER_FILE_NAME } from "./guest-prelude.js";

/** An error as the guest's prelude describes it, before it is located in the user's source. */
export interface RawError {
  name: string;
  message: string;
  stack?: string;
}

/** Why a run was stopped from the host side (the guest did not end it itself). */
export type AbortReason = "timeout" | "output";

/** State of one run (see the module comment). */
export interface RunState {
  runId: number;
  /** Whether a thrown bare `null` means QuickJS ran out of memory (see error-description.ts). */
  nullMeansOutOfMemory: boolean;
  limits: WorkerRunLimits;
  /** File name the evaluated code runs under: stack frames there are the caller's. */
  fileName: string;
  /**
   * True for the tests' evaluation: their value is not a result (neither read nor capped), and
   * only their own marked `throw`s record a line (see GuestContext.evaluate).
   */
  tests: boolean;
  /** Line of the last `throw` the tests made (see tests-scope.ts), for thrown values without a stack. */
  throwLine?: number;
  startedMs: number;
  deadlineMs: number;
  outputBytes: number;
  stdoutPending: string;
  stderrPending: string;
  pendingBytes: number;
  lastFlushMs: number;
  abort?: AbortReason;
  /** Host calls awaiting the host's reply, by call id. */
  deferreds: Map<number, QuickJSDeferredPromise>;
  nextCallId: number;
  /** Host calls this run started (accepted by the bridge). */
  hostCallsStarted: number;
  /** How the run ended; an error as the prelude described it (`undefined` when it could not be described). */
  settled?: { ok: true; json: string | undefined } | { ok: false; error: RawError | undefined };
  /**
   * The tests' promise (see GuestContext.evaluate): the run's verdict is read from its state by
   * the engine, never through the guest's `then`, which the program may have replaced.
   */
  watched?: QuickJSHandle;
  /** The value of the tests' last expression statement, awaited (by its state) when it is a promise. */
  testsValue?: QuickJSHandle;
  /**
   * Set once the outcome is decided, while the worker drains promise jobs the code left behind:
   * their output is dropped and their host calls are refused (the run is over for the host).
   */
  over?: boolean;
  /** Set when the result's JSON was over `maxResultBytes`: a lower bound of its size in bytes (the text was not read). */
  resultOverLimitBytes?: number;
  /** Wakes the run loop when it waits for a host reply. */
  wake?: () => void;
}

/** A fresh run state; times come from `performance.now()` (monotonic, sub-millisecond). */
export function newRunState(
  runId: number,
  limits: WorkerRunLimits,
  startedMs: number,
  nullMeansOutOfMemory: boolean,
  phase: { fileName: string; tests?: boolean; outputBytes?: number } = { fileName: USER_FILE_NAME },
): RunState {
  return {
    runId,
    nullMeansOutOfMemory,
    limits,
    fileName: phase.fileName,
    tests: phase.tests ?? false,
    startedMs,
    deadlineMs: startedMs + limits.timeoutMs,
    outputBytes: phase.outputBytes ?? 0,
    stdoutPending: "",
    stderrPending: "",
    pendingBytes: 0,
    lastFlushMs: startedMs,
    deferreds: new Map(),
    nextCallId: 1,
    hostCallsStarted: 0,
  };
}
