/**
 * Messages between the Node host and the Deno runner process (JSON lines on stdin/stdout),
 * and between the runner's main thread and its Pyodide worker (postMessage).
 * Type-only: both sides import it with `import type`, so nothing here runs in Deno.
 */
import type { ExecutionError, ExecutionStatus, JsonValue } from "../../types.js";

/** Limits of one run or call, as the runner applies them. */
export interface RunLimits {
  timeoutMs: number;
  memoryLimitBytes: number;
  maxOutputBytes: number;
  /** Longest JSON text of a result; a longer one is dropped and the run ends `output_limit`. */
  maxResultBytes: number;
}

/** Host -> runner. `id` pairs each request with its reply. */
export type HostRequest =
  | ({ type: "run"; id: number; code: string; globals: Record<string, JsonValue> } & RunLimits)
  | ({ type: "call"; id: number; name: string; args: JsonValue[] } & RunLimits)
  | { type: "check"; id: number; code: string }
  | { type: "functions"; id: number }
  /** Out of band: stop the run or call with this id (it replies with status "cancelled"). */
  | { type: "cancel"; id: number };

/** What the Python side reports for one run, before the runner adds output and timing. */
export interface PythonOutcome {
  status: ExecutionStatus;
  /** JSON text of the result, when the last expression had a JSON value. */
  resultJson?: string;
  error?: ExecutionError;
}

/** Runner -> host. */
export type RunnerMessage =
  /** An interpreter is ready for the next request. */
  | { type: "ready" }
  /** A memory snapshot was made (first start without a cached one); base64 of its bytes. */
  | { type: "snapshot"; base64: string }
  | {
      type: "result";
      id: number;
      outcome: PythonOutcome;
      stdout: string;
      stderr: string;
      outputTruncated: boolean;
      durationMs: number;
      /** True when the interpreter was replaced during this request (hard kill or fault). */
      interpreterReset: boolean;
    }
  | { type: "checked"; id: number; outcome: PythonOutcome }
  | { type: "functions"; id: number; names: string[] }
  /** A fault of the runner itself (not of user code). */
  | { type: "fatal"; message: string };

/**
 * Runner main thread -> worker. The runner adds a fresh `nonce` to every request; the worker
 * echoes it on every message it sends for that request (see `Nonced`).
 */
export type WorkerRequest =
  /** `session`: the interpreter serves a session (no baseline, no reset between runs). */
  | { type: "init"; pyodideUrl: string; snapshot?: Uint8Array; interruptBuffer: SharedArrayBuffer; session: boolean }
  | { type: "make-snapshot"; pyodideUrl: string }
  | { type: "run"; code: string; globals: Record<string, JsonValue>; session: boolean; memoryLimitBytes: number; maxOutputBytes: number; maxResultBytes: number }
  | { type: "call"; name: string; args: JsonValue[]; memoryLimitBytes: number; maxOutputBytes: number; maxResultBytes: number }
  | { type: "check"; code: string }
  | { type: "functions" };

/**
 * A message with the nonce of the request it belongs to. The runner drops (and treats as a
 * fault) any worker message whose nonce is not the current request's: the guest shares the
 * worker's realm and must not be able to forge a completion or output.
 */
export type Nonced<T> = T & { nonce: string };

/** Worker -> runner main thread (each sent as `Nonced<WorkerMessage>`). */
export type WorkerMessage =
  | { type: "ready" }
  | { type: "snapshot"; bytes: Uint8Array }
  | { type: "output"; stream: "stdout" | "stderr"; text: string }
  /** Output passed its cap; the worker dropped the rest and asks to be stopped. */
  | { type: "output-limit" }
  /** `fatal`: the interpreter hit a fault it cannot recover from; the runner replaces it. */
  | { type: "done"; outcome: PythonOutcome; fatal: boolean }
  /**
   * After a pool run's `done`: `fresh` when the worker restored its pristine baseline in place;
   * otherwise (`resetMiss` says why) the runner replaces the worker before the next run.
   */
  | { type: "reset"; fresh: boolean; resetMiss?: string }
  | { type: "functions"; names: string[] }
  | { type: "failed"; message: string };
