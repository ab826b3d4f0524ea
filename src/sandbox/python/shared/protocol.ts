/**
 * Messages between the Node host and the Deno runner process (JSON lines on stdin/stdout),
 * and between the runner's main thread and its Pyodide worker (postMessage).
 * Type-only: both sides import it with `import type`, so nothing here runs in Deno.
 */
import type { ExecutionError, ExecutionStatus, JsonValue, RunInputs } from "../../types.js";

/** Limits of one run or call, as the runner applies them. */
export interface RunLimits {
  timeoutMs: number;
  memoryLimitBytes: number;
  maxOutputBytes: number;
  /** Longest JSON text of a result; a longer one is dropped and the run ends `output_limit`. */
  maxResultBytes: number;
}

/** What a run or call adds to its limits: host functions, tests and files (see run-extras.ts). */
export interface RunExtras {
  /** Names of the host functions the guest may call (`await name(...)`). */
  hostFunctionNames: string[];
  /** Test code run after the program (runs only). */
  tests?: string;
  /** Files placed in the working directory before the program (base64); absent: keep the directory. */
  files?: Record<string, string>;
  /** Caps of the files sent back (the host checks them again on receipt). */
  maxFileBytes: number;
  maxTotalFileBytes: number;
  /** The files sit at the file system's root (see `RunOptions.filesAtRoot`). */
  filesAtRoot?: boolean;
  /** Seed and clock readings of a run that must repeat exactly. */
  inputs?: RunInputs;
}

/** Host -> runner. `id` pairs each request with its reply. */
export type HostRequest =
  | ({ type: "run"; id: number; code: string; globals: Record<string, JsonValue> } & RunLimits & RunExtras)
  | ({ type: "call"; id: number; name: string; args: JsonValue[] } & RunLimits & RunExtras)
  | { type: "check"; id: number; code: string }
  | { type: "functions"; id: number }
  /** Out of band: stop the run or call with this id (it replies with status "cancelled"). */
  | { type: "cancel"; id: number }
  /** Tests only (the runner was started with `introspection`): fingerprint of the ready interpreter. */
  | { type: "fingerprint"; id: number }
  /** A session's image now (code mode's snapshots), or why not. */
  | { type: "session-image"; id: number }
  /**
   * Out of band, no reply, before any run: `keep`, the session will be imaged (its first run
   * finishes hashing the fresh memory); otherwise a session started ahead prepares in idle time.
   */
  | { type: "prepare-images"; id: number; keep: boolean }
  /** Writes an image into the session's interpreter, which must not have run code yet. */
  | { type: "session-restore"; id: number; memoryBytes: number; pageIndex: string; pages: string; state: string; freshJavascript?: string }
  /** The answer to a host call of run `id`; handled at once, not queued behind requests. */
  | ({ type: "host-reply"; id: number; callId: number } & HostReply);

/** The host's answer to one host call: a JSON value (absent for `undefined`), or an error. */
export type HostReply = { ok: true; valueJson?: string } | { ok: false; name: string; message: string };

/**
 * How one top-level statement of the tests ended, as the worker saw it (in the order of
 * `splitPythonTests`): it ran to its end, it raised, or (for a test of a decomposable shape) the
 * encoded values of its parts (value-encoder.ts), which the host compares.
 */
/**
 * One statement of the tests: it ran, it raised, or (a shaped test) the encoded values of its
 * parts; `byProgram` is the comparison as the program's interpreter evaluated it on those values
 * (its own `__eq__`), sent when a value is an object of the program's class (the host uses it
 * only then, and marks the verdict as the program's).
 */
export type PythonStepReport = { kind: "ran" } | { kind: "raised"; error: ExecutionError } | { kind: "values"; values: string[]; byProgram?: boolean };

/** What the tests of a run did, as the Python side reports it (the runner adds their output). */
export interface PythonTestsOutcome {
  status: "passed" | "failed" | "not_run";
  error?: ExecutionError;
  reason?: string;
  /** One report per statement run, in order (the host re-splits the tests and judges them). */
  steps?: PythonStepReport[];
}

/** What the Python side reports for one run, before the runner adds output and timing. */
export interface PythonOutcome {
  status: ExecutionStatus;
  /** JSON text of the result, when the last expression had a JSON value. */
  resultJson?: string;
  error?: ExecutionError;
  /** Present when the run had tests. */
  tests?: PythonTestsOutcome;
}

/** Runner -> host. */
export type RunnerMessage =
  /** An interpreter is ready for the next request; `replaced` says why the previous one was not reused. */
  | { type: "ready"; replaced?: string }
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
      /** Output written while the tests ran, when the run had tests. */
      testsStdout?: string;
      testsStderr?: string;
      /** The final file set (base64), when the run was given files; or why it was dropped. */
      files?: Record<string, string>;
      filesError?: string;
      /** The clock readings of a run given `inputs` without readings (checked by the host). */
      clockReads?: number[];
    }
  /** The guest called host function `name` during run `id`. */
  | { type: "host-call"; id: number; callId: number; name: string; argsJson: string }
  | { type: "checked"; id: number; outcome: PythonOutcome }
  | { type: "functions"; id: number; names: string[] }
  /** The fingerprint of the interpreter when it was fresh and now (tests only). */
  | { type: "fingerprint"; id: number; baseline: Record<string, string>; now: Record<string, string> }
  /** A session's image (base64 of its page numbers, little-endian u32, and of its pages; JSON state), or why not. */
  | { type: "session-image"; id: number; refused?: string; memoryBytes?: number; pageIndex?: string; pages?: string; state?: string }
  | { type: "session-restored"; id: number; refused?: string; freshJavascript?: string }
  /** A fault of the runner itself (not of user code). */
  | { type: "fatal"; message: string };

/**
 * Runner main thread -> worker. The runner adds a fresh `nonce` to every request; the worker
 * echoes it on every message it sends for that request (see `Nonced`).
 */
export type WorkerRequest =
  /** `session`: the interpreter serves a session (no baseline, no reset between runs). */
  | { type: "init"; pyodideUrl: string; snapshot?: Uint8Array; interruptBuffer: SharedArrayBuffer; packages: WorkerPackages; session: boolean; introspection: boolean }
  | { type: "make-snapshot"; pyodideUrl: string; packages: WorkerPackages }
  | { type: "run"; run: number; code: string; globals: Record<string, JsonValue>; session: boolean; memoryLimitBytes: number; maxOutputBytes: number; maxResultBytes: number; extras: WorkerRunExtras }
  | { type: "call"; run: number; name: string; args: JsonValue[]; memoryLimitBytes: number; maxOutputBytes: number; maxResultBytes: number; extras: WorkerRunExtras }
  /** Answer to host call `callId` of run `run` (sent with the run's nonce, which it does not replace). */
  | ({ type: "host-reply"; run: number; callId: number } & HostReply)
  /** The run passed a limit while Python waits on an await: stop it at its await (run's nonce too). */
  | { type: "interrupt"; run: number }
  | { type: "check"; code: string }
  | { type: "functions" }
  | { type: "fingerprint" }
  /** A session's image (session-image.ts), and its restore into a fresh session interpreter. */
  | { type: "session-image" }
  | { type: "prepare-images"; keep: boolean }
  | { type: "session-restore"; freshJavascript?: string; image: { memoryBytes: number; pageIndex: Uint32Array; pages: Uint8Array; state: string } };

/** Pure-Python packages to install into site-packages (see wheels.ts). */
export interface WorkerPackages {
  files: Record<string, Uint8Array>;
  topLevel: string[];
  /** Files of packages with native code, in load order, loaded by Pyodide's own loader (package-fetch.ts). */
  native: string[];
  /** Import name → package name of the lock's packages (the refusal of an unconfigured one names its option). */
  lockImports: Record<string, string>;
}

/** The run extras as the worker gets them (files as bytes). */
export interface WorkerRunExtras {
  hostFunctionNames: string[];
  tests?: string;
  files?: Record<string, Uint8Array>;
  maxFileBytes: number;
  maxTotalFileBytes: number;
  filesAtRoot?: boolean;
  inputs?: RunInputs;
}

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
  | { type: "done"; outcome: PythonOutcome; fatal: boolean; files?: Array<[string, Uint8Array]>; filesError?: string; clockReads?: number[] }
  /**
   * After a pool run's `done`: `fresh` when the worker restored its pristine baseline in place;
   * otherwise (`resetMiss` says why) the runner replaces the worker before the next run.
   */
  | { type: "reset"; fresh: boolean; resetMiss?: string }
  /** Output from here on belongs to the tests. */
  | { type: "phase"; run: number; phase: "tests" }
  | { type: "host-call"; run: number; callId: number; name: string; argsJson: string }
  | { type: "functions"; names: string[] }
  | { type: "fingerprint"; baseline: Record<string, string>; now: Record<string, string> }
  | { type: "failed"; message: string }
  | { type: "session-image"; refused?: string; image?: { memoryBytes: number; pageIndex: Uint32Array; pages: Uint8Array; fileBytes: Uint8Array; state: Record<string, unknown> } }
  | { type: "session-restored"; refused?: string; freshJavascript?: string; /** Bytes the restored session keeps (grown memory and files), as a run counts them. */ keptBytes?: number };
