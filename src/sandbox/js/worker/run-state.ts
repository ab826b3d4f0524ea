/**
 * The mutable state of the run in progress inside a worker: limits, deadline, output not yet
 * sent, host calls awaiting replies, and how the run settled. One object per run, shared by
 * the modules of the guest (output, host bridge, deadlines, the run loop).
 */
import type { QuickJSDeferredPromise } from "quickjs-emscripten-core";
import type { WorkerRunLimits } from "../shared/protocol.js";
import { USER_FILE_NAME } from "./guest-prelude.js";

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
  /** True for the tests' evaluation: their value is not a result, so it is neither read nor capped. */
  discardResult: boolean;
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
  settled?: { ok: true; json: string | undefined } | { ok: false; errorJson: string };
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
  phase: { fileName: string; discardResult?: boolean; outputBytes?: number } = { fileName: USER_FILE_NAME },
): RunState {
  return {
    runId,
    nullMeansOutOfMemory,
    limits,
    fileName: phase.fileName,
    discardResult: phase.discardResult ?? false,
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
