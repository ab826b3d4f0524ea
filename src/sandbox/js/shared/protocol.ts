/**
 * Messages between the host and a QuickJS worker thread. Values cross as strings (JSON made
 * inside the guest) so that nothing is structured-cloned value by value.
 */
import type { EngineSnapshot, ExecutionError, ExecutionStatus, RunInputs, TestsOutcome } from "../../types.js";

/** Limits and grants of one run or session call, as the worker needs them. */
export interface WorkerRunLimits {
  timeoutMs: number;
  memoryLimitBytes: number;
  maxOutputBytes: number;
  /** Host calls the guest may have awaiting a reply at once. */
  maxHostCallsInFlight: number;
  /** Host calls the guest may start in all. */
  maxHostCalls: number;
  /** Bytes of the result's JSON the worker may send; a larger result ends the run `output_limit`. */
  maxResultBytes: number;
  maxFileBytes: number;
  maxTotalFileBytes: number;
  /** The `files` API takes and lists absolute paths (`/notes.txt`). */
  filesAtRoot?: boolean;
  /** Seed and clock readings of a run that must repeat exactly. */
  inputs?: RunInputs;
}

/** Host -> worker. */
export type HostToWorker =
  | ({
      type: "run";
      runId: number;
      code: string;
      language: "javascript" | "typescript";
      globalsJson: string;
      /** Top-level keys of `globalsJson`, so the worker need not parse it to find them. */
      globalNames: string[];
      hostFunctionNames: string[];
      /** Names of globals and host functions, listed in the message about forbidden imports. */
      grantedNames: string[];
      /** Test code run after the program in the same context, as its own evaluation. */
      tests?: string;
      /** The run's files, when it was given some (the guest then has a `files` global). */
      files?: Record<string, Uint8Array>;
    } & WorkerRunLimits)
  | { type: "reply"; runId: number; callId: number; ok: true; valueJson: string | undefined }
  | { type: "reply"; runId: number; callId: number; ok: false; message: string; name: string }
  | { type: "session-open"; memoryLimitBytes: number }
  | ({
      type: "session-call";
      runId: number;
      name: string;
      argsJson: string;
      hostFunctionNames: string[];
      files?: Record<string, Uint8Array>;
    } & WorkerRunLimits)
  | { type: "session-names"; runId: number }
  /** A snapshot of the session's engine between runs (see worker/session-snapshot.ts). */
  | { type: "session-snapshot"; runId: number }
  /** Puts a snapshot into a session that has run nothing yet. */
  | { type: "session-restore"; runId: number; snapshot: EngineSnapshot }
  /**
   * A session's runs one after another, each answered with its own `done`; a run marked
   * `carryFiles` (given no files) gets the file set the run before it ended with.
   */
  | { type: "session-sequence"; runs: (SessionRunMessage & { carryFiles?: boolean })[] };

/** The message of one run. */
export type SessionRunMessage = Extract<HostToWorker, { type: "run" }>;

/** The outcome of a run as the worker reports it; the host adds output and language. */
export interface WorkerOutcome {
  status: ExecutionStatus;
  /** JSON text of the result, made inside the guest; absent when not representable. */
  resultJson?: string;
  error?: ExecutionError;
  durationMs: number;
  /** For a run with tests: how they went (their output travels apart, after a `tests-begin` message). */
  tests?: { status: "passed" | "failed" | "not_run"; error?: ExecutionError; reason?: string } & Pick<TestsOutcome, "total" | "passed" | "cases">;
  /** For a run given `inputs` without readings: the clock readings it made. */
  clockReads?: number[];
}

/** Worker -> host. */
export type WorkerToHost =
  /** `imageRefused`: why a pool worker serves fresh runs with a new context each, not from its image. */
  | { type: "ready"; freshRuns?: "image" | "context"; imageRefused?: string }
  | { type: "output"; runId: number; stdout: string; stderr: string }
  | { type: "call"; runId: number; callId: number; name: string; argsJson: string }
  /** Output after this message belongs to the run's tests, not to its program. */
  | { type: "tests-begin"; runId: number }
  | {
      type: "done";
      runId: number;
      outcome: WorkerOutcome;
      stdout: string;
      stderr: string;
      /**
       * The worker exits right after this message: send it nothing more. `true`: its runtime would
       * not dispose; `"memory"`: healthy, it ends to give its grown WebAssembly memory back.
       */
      retiring?: true | "memory";
      /** The file set at the end, for a request given files. */
      files?: Record<string, Uint8Array>;
    }
  | { type: "names"; runId: number; names: string[] }
  | { type: "snapshot"; runId: number; snapshot?: EngineSnapshot; refused?: string }
  /** `refused`: nothing was written. A restore that failed after writing ends the thread instead. */
  | { type: "restored"; runId: number; refused?: string };
