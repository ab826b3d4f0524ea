/**
 * The host's side of one QuickJS worker thread: starts it, sends it one request at a time,
 * answers its host-function calls, collects output, and enforces the hard deadline with a
 * watchdog that terminates the thread. A crash or kill ends the request as data, never as a
 * throw, and marks this worker dead so its owner can replace it.
 */
import { Worker } from "node:worker_threads";
import type { ExecutionResult, JsonValue, Language, ResolvedRunOptions, TestsOutcome } from "../../types.js";
import type { HostToWorker, WorkerOutcome, WorkerToHost } from "../shared/protocol.js";
import { describeHostFailure, withHostCall } from "../../host-call-context.js";
import { cancelledResult } from "../../cancelled.js";
import { hostCallLimitError, resultDepthError, resultLimitError, timeoutError } from "../../limit-errors.js";
import { jsonNestingExceeds, MAX_JSON_DEPTH } from "../../json-depth.js";
import { invalidFileSetReason } from "../shared/file-rules.js";
import { clockReadings } from "../../run-inputs.js";
import { OutputMirror, createOutputMirrorBuffer } from "../shared/output-mirror.js";

/**
 * How long past its deadline a run may go before its thread is killed. Polling code stops
 * itself at the deadline; this only has to cover scheduling delays, and a kill costs a
 * worker restart, so it is short but not zero.
 */
export const WATCHDOG_GRACE_MS = 60;

/**
 * V8 limits of a QuickJS worker thread, so that nothing a guest makes the thread allocate can
 * grow the host process without bound (a thread past them is killed by Node and its run ends
 * as an engine crash). The guest's own heap lives in WASM linear memory, outside these limits,
 * and is capped by the run's `memoryLimitBytes`. Tried (docs/security.md): the heaviest runs at
 * the default 64 MiB memory limit (a 60 MB string printed, thrown or returned) ran unchanged
 * under a 128 MiB V8 heap; the default limit of a thread is ~4 GiB. `stackSizeMb` is Node's
 * default, stated because QuickJS's own stack limit (256 KiB) must be reached before the
 * thread's native stack.
 */
export const WORKER_RESOURCE_LIMITS = {
  maxOldGenerationSizeMb: 256,
  maxYoungGenerationSizeMb: 16,
  stackSizeMb: 4,
} as const;

/** A request the worker answers with a `done` message. */
export type WorkerRequest =
  | Extract<HostToWorker, { type: "run" }>
  | Extract<HostToWorker, { type: "session-call" }>;

/** What the host side of a run needs besides the request itself: grants, host-call limits, cancellation. */
export type RunControls = Pick<ResolvedRunOptions, "hostFunctions" | "maxHostCallsInFlight" | "maxHostCalls" | "maxResultBytes" | "signal">;

/** A run of a sequence (see `EngineWorker.requestSequence`). */
export type SequenceRequest = Extract<HostToWorker, { type: "run" }> & { carryFiles?: boolean };

/** Statuses after which a session's context is not trusted: a sequence stops there (as the worker does). */
const SEQUENCE_ENDING = new Set(["timeout", "memory_limit"]);

/** What an ended request says about the worker that ran it. */
export interface RequestEnd {
  result: ExecutionResult;
  /** True when the worker was killed or crashed during the request and must be replaced. */
  workerLost: boolean;
  /**
   * True when the worker ended itself after answering, healthy, to give its grown memory back
   * (see engine-memory.ts): its pool may start the replacement at once.
   */
  workerRetired?: boolean;
}

interface Active {
  runId: number;
  language: Language;
  timeoutMs: number;
  controls: RunControls;
  /** Aborted when the request ends, whatever its status: host functions learn it through `currentHostCall()`. */
  ended?: AbortController;
  /** True once the request ended (any status). */
  over: boolean;
  /** Host calls started on the host for this request, and those still running. */
  hostCalls: number;
  hostCallsInFlight: number;
  stdout: string;
  stderr: string;
  /** The files the request was given (the result's file set when the worker sends none back). */
  files?: Record<string, Uint8Array>;
  fileLimits: { maxFileBytes: number; maxTotalFileBytes: number };
  /** Set when the request has tests: their output, kept apart from the program's. */
  tests?: { begun: boolean; stdout: string; stderr: string };
  sentMs: number;
  /** A run of a sequence: a file set refused here loses the worker (see requestSequence). */
  inSequence?: boolean;
  watchdog: NodeJS.Timeout;
  /** Listener on the caller's signal, removed when the request ends. */
  onAbort?: () => void;
  resolve(end: RequestEnd): void;
}

/**
 * The worker script: the worker bundled as one CommonJS file (tsdown.config.ts says why), next
 * to this module's built copy (tests of the TypeScript sources: test/support/built-workers.ts).
 */
export function workerScriptUrl(): URL {
  return new URL("../worker/engine-worker.cjs", import.meta.url);
}

let nextRunId = 1;

/** One worker thread and the request it is serving, if any. */
export class EngineWorker {
  /** Resolves when the WASM module is loaded; rejects if the thread fails to start. */
  readonly ready: Promise<void>;
  private readonly worker: Worker;
  /** The worker's unsent output, readable here when the worker must be killed. */
  private readonly mirror: OutputMirror;
  private active: Active | undefined;
  private namesWaiter: { runId: number; resolve(names: string[]): void } | undefined;
  /** A snapshot or restore in flight: resolved with the worker's answer, or undefined when the thread stopped. */
  private controlWaiter: { runId: number; resolve(answer: Extract<WorkerToHost, { type: "snapshot" | "restored" }> | undefined): void } | undefined;
  private deadReason: string | undefined;
  private onDeath: (worker: EngineWorker) => void;

  /** How this worker serves fresh runs, once ready (see `JavaScriptEngineOptions.freshRuns`), and why not from an image. */
  freshRuns: { mode: "image" | "context"; imageRefused?: string } | undefined;

  /**
   * @param warm The language a session worker runs (its warm-up skips what that language never
   *   needs); a pool worker warms up for both.
   * @param freshRuns See `JavaScriptEngineOptions.freshRuns`.
   */
  constructor(onDeath: (worker: EngineWorker) => void, isolation: "context" | "module" = "context", warm?: "javascript" | "typescript", freshRuns?: "image" | "context") {
    this.onDeath = onDeath;
    const outputMirror = createOutputMirrorBuffer();
    this.mirror = new OutputMirror(outputMirror);
    // execArgv: [] keeps the host's loaders and preloads (e.g. `--import` hooks of
    // `langgraph dev`) out of the worker: it is plain compiled JS and needs none of them.
    // env: {} gives the thread an empty `process.env` of its own (not a copy of the host's
    // API keys); resourceLimits: see WORKER_RESOURCE_LIMITS.
    this.worker = new Worker(workerScriptUrl(), {
      execArgv: [],
      env: {},
      resourceLimits: WORKER_RESOURCE_LIMITS,
      workerData: { outputMirror, isolation, ...(warm ? { warm } : {}), ...(freshRuns ? { freshRuns } : {}) },
    });
    // A starting worker keeps the process alive (someone awaits it); once ready and idle it
    // never does, and it is ref'd again only while it serves a request.
    this.ready = new Promise((resolve, reject) => {
      const onReady = (message: WorkerToHost): void => {
        if (message.type === "ready") {
          this.worker.off("message", onReady);
          this.freshRuns = { mode: message.freshRuns ?? "context", ...(message.imageRefused ? { imageRefused: message.imageRefused } : {}) };
          if (!this.active && !this.namesWaiter && !this.controlWaiter) this.worker.unref();
          resolve();
        }
      };
      this.worker.on("message", onReady);
      this.worker.once("error", reject);
      this.worker.once("exit", (code) => reject(new Error(`the QuickJS worker exited with code ${code} while starting`)));
    });
    // A start failure is reported through `ready` by whoever awaits it.
    this.ready.catch(() => undefined);
    this.worker.on("message", (message: WorkerToHost) => this.onMessage(message));
    this.worker.on("error", (error) => this.die(`the engine crashed while running this code: ${error.message}`));
    this.worker.on("exit", (code) => this.die(`the engine crashed while running this code: its thread exited (code ${code})`));
  }

  /** Hands a worker started ahead (with no requests yet) to its owner, who hears of its death from now on. */
  adopt(onDeath: (worker: EngineWorker) => void): void {
    this.onDeath = onDeath;
  }

  /** True while a request is in flight. */
  get busy(): boolean {
    return this.active !== undefined;
  }

  /** Why the thread stopped (crash, watchdog, cancellation, disposal); `undefined` while it runs. */
  get deathReason(): string | undefined {
    return this.deadReason;
  }

  /** True once the thread has crashed, exited or been terminated. */
  get dead(): boolean {
    return this.deadReason !== undefined;
  }

  /** Posts a message that expects no answer (e.g. opening a session). */
  post(message: HostToWorker): void {
    this.worker.postMessage(message);
  }

  /**
   * Sends one run or session call and resolves when it ends (result as data, always).
   * `request.runId` is assigned here.
   */
  request(
    request: WorkerRequest,
    language: Language,
    controls: RunControls,
  ): Promise<RequestEnd> {
    if (this.active) throw new Error("EngineWorker.request while busy");
    const runId = nextRunId++;
    return new Promise<RequestEnd>((resolve) => {
      if (!this.begin(runId, request, language, controls, false, resolve)) return;
      this.worker.postMessage({ ...request, runId });
    });
  }

  /**
   * Sends a session's runs in one message; the worker runs them one after another and answers
   * each as a run of its own (its host calls, limits, watchdog). A run marked `carryFiles` gets
   * the file set the run before it ended with, as this side checked it. Resolves with the ends
   * of the runs that ran: it stops after one that lost the worker or left the context untrusted
   * (`timeout`, `memory_limit`), and a run whose file set this side refused loses the worker
   * (the worker would give the next run the set this side refused), as does a run whose signal
   * was aborted before its turn (the worker would run it anyway).
   */
  requestSequence(
    requests: SequenceRequest[],
    language: Language,
    controls: RunControls[],
  ): Promise<RequestEnd[]> {
    if (this.active) throw new Error("EngineWorker.requestSequence while busy");
    const runIds = requests.map(() => nextRunId++);
    const ends: RequestEnd[] = [];
    return new Promise<RequestEnd[]>((resolve) => {
      const next = (): boolean => {
        const k = ends.length;
        const signal = controls[k]!.signal;
        if (k > 0 && signal?.aborted) {
          // The worker has this run already and cannot be told to skip it: the worker stops here.
          this.deadReason ??= "its run was cancelled by the caller";
          void this.worker.terminate();
          this.onDeath(this);
          ends.push({ result: cancelledResult(language, signal, true, 0), workerLost: true });
          resolve(ends);
          return false;
        }
        const { carryFiles, ...request } = requests[k]!;
        const files = carryFiles ? ends[k - 1]?.result.files : request.files;
        return this.begin(runIds[k]!, { ...request, ...(files ? { files } : {}) }, language, controls[k]!, true, (end) => {
          ends.push(end);
          if (end.workerLost || SEQUENCE_ENDING.has(end.result.status) || ends.length === requests.length || !next()) resolve(ends);
        });
      };
      if (!next()) return;
      this.worker.postMessage({ type: "session-sequence", runs: requests.map((r, i) => ({ ...r, runId: runIds[i]! })) } satisfies HostToWorker);
    });
  }

  /**
   * Makes `runId` the request in flight; false (and `resolve` called) when it cannot start
   * (the worker is dead, or the caller already cancelled).
   */
  private begin(runId: number, request: WorkerRequest, language: Language, controls: RunControls, inSequence: boolean, resolve: (end: RequestEnd) => void): boolean {
    if (this.deadReason !== undefined) {
      resolve({ result: crashResult(language, this.deadReason, "", "", 0), workerLost: true });
      return false;
    }
    if (controls.signal?.aborted) {
      resolve({ result: cancelledResult(language, controls.signal, false), workerLost: false });
      return false;
    }
    const active: Active = (this.active = {
      runId,
      language,
      timeoutMs: request.timeoutMs,
      controls,
      over: false,
      hostCalls: 0,
      hostCallsInFlight: 0,
      ...(request.files ? { files: request.files } : {}),
      fileLimits: { maxFileBytes: request.maxFileBytes, maxTotalFileBytes: request.maxTotalFileBytes },
      ...(request.type === "run" && request.tests !== undefined ? { tests: { begun: false, stdout: "", stderr: "" } } : {}),
      stdout: "",
      stderr: "",
      sentMs: performance.now(),
      ...(inSequence ? { inSequence } : {}),
      watchdog: setTimeout(() => this.onWatchdog(), request.timeoutMs + WATCHDOG_GRACE_MS),
      resolve,
    });
    if (controls.signal) {
      active.onAbort = () => this.onCancel(active);
      controls.signal.addEventListener("abort", active.onAbort, { once: true });
    }
    this.worker.ref();
    return true;
  }

  /** Asks a session worker for the names of the functions its code defined. */
  functionNames(): Promise<string[]> {
    const runId = nextRunId++;
    return new Promise((resolve) => {
      if (this.deadReason !== undefined) {
        resolve([]);
        return;
      }
      this.namesWaiter = { runId, resolve };
      this.worker.ref();
      this.worker.postMessage({ type: "session-names", runId } satisfies HostToWorker);
    });
  }

  /**
   * Asks a session worker for a snapshot of its engine, or to restore one (see
   * worker/session-snapshot.ts). Resolves with the worker's answer, or undefined when the
   * thread stopped first.
   */
  control(message: Extract<HostToWorker, { type: "session-snapshot" | "session-restore" }>): Promise<Extract<WorkerToHost, { type: "snapshot" | "restored" }> | undefined> {
    const runId = nextRunId++;
    return new Promise((resolve) => {
      if (this.deadReason !== undefined || this.active || this.controlWaiter) {
        resolve(undefined);
        return;
      }
      this.controlWaiter = { runId, resolve };
      this.worker.ref();
      this.worker.postMessage({ ...message, runId } satisfies HostToWorker, message.type === "session-restore" ? [message.snapshot.pages.buffer as ArrayBuffer] : []);
    });
  }

  /** Stops the thread. In-flight requests end as runtime errors that give `reason`. */
  async terminate(reason = "the sandbox was disposed while this code ran"): Promise<void> {
    if (this.deadReason === undefined) this.deadReason = reason;
    this.endActive(this.deadReason);
    this.namesWaiter?.resolve([]);
    this.namesWaiter = undefined;
    this.controlWaiter?.resolve(undefined);
    this.controlWaiter = undefined;
    await this.worker.terminate();
  }

  private onMessage(message: WorkerToHost): void {
    if (message.type === "snapshot" || message.type === "restored") {
      if (this.controlWaiter?.runId === message.runId) {
        this.controlWaiter.resolve(message);
        this.controlWaiter = undefined;
        if (!this.active && !this.namesWaiter) this.worker.unref();
      }
      return;
    }
    if (message.type === "names") {
      if (this.namesWaiter?.runId === message.runId) {
        this.namesWaiter.resolve(message.names);
        this.namesWaiter = undefined;
        if (!this.active) this.worker.unref();
      }
      return;
    }
    const active = this.active;
    if (!active || !("runId" in message) || message.runId !== active.runId) return;
    switch (message.type) {
      case "output":
        appendOutput(active, message.stdout, message.stderr);
        return;
      case "tests-begin":
        if (active.tests) active.tests.begun = true;
        return;
      case "call":
        void this.callHost(active, message.callId, message.name, message.argsJson);
        return;
      case "done": {
        appendOutput(active, message.stdout, message.stderr);
        const { result, refused } = withFiles(active, toResult(active, message.outcome), message.files);
        this.finish(active, result, message.retiring !== undefined || (refused && active.inSequence === true), message.retiring === "memory");
        return;
      }
    }
  }

  private async callHost(active: Active, callId: number, name: string, argsJson: string): Promise<void> {
    // No host call starts after its run ended (the message may trail the run's end).
    if (this.active !== active || active.over) return;
    const { hostFunctions } = active.controls;
    const fn = Object.hasOwn(hostFunctions, name) ? hostFunctions[name] : undefined;
    // The worker enforces the same limits; the host counts again because it trusts nothing
    // that comes out of the worker.
    const refusal = !fn
      ? { name: "Error", message: `host function ${name} is not available in this run` }
      : jsonNestingExceeds(argsJson)
        ? { name: "TypeError", message: `${name}() was refused: its arguments nest arrays or objects more than ${MAX_JSON_DEPTH} levels deep; pass flatter values` }
        : hostCallLimitError(name, active.hostCallsInFlight, active.hostCalls, active.controls);
    let reply: HostToWorker;
    if (refusal) {
      reply = { type: "reply", runId: active.runId, callId, ok: false, ...refusal };
    } else {
      active.hostCalls++;
      active.hostCallsInFlight++;
      try {
        const args = JSON.parse(argsJson) as JsonValue[];
        // Made on the first host call only: most runs make none, and an AbortController with
        // its abort() costs measurable microseconds on the one-line run.
        active.ended ??= new AbortController();
        const value: unknown = await withHostCall({ signal: active.ended.signal, name }, () => fn!(...args));
        reply = { type: "reply", runId: active.runId, callId, ok: true, valueJson: value === undefined ? undefined : JSON.stringify(value) };
      } catch (error) {
        reply = { type: "reply", runId: active.runId, callId, ok: false, ...describeHostFailure(error) };
      } finally {
        active.hostCallsInFlight--;
      }
    }
    if (this.active === active && this.deadReason === undefined) this.worker.postMessage(reply);
  }

  private onWatchdog(): void {
    const active = this.active;
    if (!active) return;
    if (this.mirror.startedRunId() !== active.runId) {
      // The thread has not begun this run yet (a fresh worker can be unresponsive for a
      // while after "ready" on a loaded machine, and a run of a sequence waits for the runs
      // before it): its deadline counts from when it begins, so wait for that instead of killing.
      active.watchdog = setTimeout(() => this.onWatchdog(), active.timeoutMs + WATCHDOG_GRACE_MS);
      return;
    }
    // The guest is stuck in something that does not poll the interrupt handler: kill the thread.
    this.deadReason = "killed by the watchdog after a timeout";
    const durationMs = performance.now() - active.sentMs;
    this.takeMirroredOutput(active);
    this.finish(
      active,
      {
        status: "timeout",
        stdout: active.stdout,
        stderr: active.stderr,
        outputTruncated: false,
        error: timeoutError(active.timeoutMs),
        durationMs,
        language: active.language,
      },
      true,
    );
    void this.worker.terminate();
    this.onDeath(this);
  }

  /**
   * The caller aborted the request: the thread is stopped at once (a guest may be in a built-in
   * that never polls), the request ends `cancelled`, and the owner replaces the worker. A
   * session on this worker ends, as after a timeout: its context stopped mid-way.
   */
  private onCancel(active: Active): void {
    if (this.active !== active) return;
    this.deadReason = "its run was cancelled by the caller";
    this.takeMirroredOutput(active);
    const result = cancelledResult(active.language, active.controls.signal, true, performance.now() - active.sentMs);
    result.stdout = active.stdout;
    result.stderr = active.stderr;
    this.finish(active, result, true);
    void this.worker.terminate();
    this.onDeath(this);
  }

  private die(reason: string): void {
    if (this.deadReason !== undefined) return;
    this.deadReason = reason;
    this.endActive(reason);
    this.namesWaiter?.resolve([]);
    this.namesWaiter = undefined;
    this.controlWaiter?.resolve(undefined);
    this.controlWaiter = undefined;
    this.onDeath(this);
  }

  private takeMirroredOutput(active: Active): void {
    // The mirror holds the output of the run the worker began last, which may not be this one yet.
    if (this.mirror.startedRunId() !== active.runId) return;
    const tail = this.mirror.read();
    appendOutput(active, tail.stdout, tail.stderr);
  }

  private endActive(reason: string): void {
    const active = this.active;
    if (!active) return;
    this.takeMirroredOutput(active);
    this.finish(active, crashResult(active.language, reason, active.stdout, active.stderr, performance.now() - active.sentMs), true);
  }

  private finish(active: Active, result: ExecutionResult, workerLost: boolean, workerRetired = false): void {
    clearTimeout(active.watchdog);
    if (active.onAbort) active.controls.signal?.removeEventListener("abort", active.onAbort);
    this.active = undefined;
    active.over = true;
    active.ended?.abort();
    result.hostCalls = active.hostCalls;
    // A request given files always reports a file set: unchanged when the worker sent none.
    if (active.files && !result.files) result.files = active.files;
    if (active.tests) {
      // The program's output was taken from active.stdout/stderr when the result was built.
      result.tests ??= testsFallback(active.tests.begun, result);
      result.tests.stdout = active.tests.stdout;
      result.tests.stderr = active.tests.stderr;
    }
    if (!this.namesWaiter && !this.controlWaiter && this.deadReason === undefined) this.worker.unref();
    active.resolve(workerRetired ? { result, workerLost: true, workerRetired } : { result, workerLost });
  }
}

/**
 * Adds the file set the worker sent, checked again here (the host trusts nothing out of the
 * worker): a set that breaks the caps or holds anything but bytes ends the run `output_limit`.
 */
function withFiles(active: Active, result: ExecutionResult, files: unknown): { result: ExecutionResult; refused: boolean } {
  if (!active.files || files === undefined) return { result, refused: false };
  const limits = { maxFileBytes: active.fileLimits.maxFileBytes, maxTotalFileBytes: active.fileLimits.maxTotalFileBytes };
  const bad = invalidFileSetReason(files, limits);
  if (bad) {
    result.status = "output_limit";
    result.error = { name: "FileLimitError", message: `the run's files were refused: ${bad}; the files are as they were before the run` };
    return { result, refused: true };
  }
  result.files = files as Record<string, Uint8Array>;
  return { result, refused: false };
}

/** Output goes to the program's streams, or to the tests' once they have begun. */
function appendOutput(active: Active, stdout: string, stderr: string): void {
  const into = active.tests?.begun ? active.tests : active;
  into.stdout += stdout;
  into.stderr += stderr;
}

/** How the tests went when the worker could not say (it was killed, crashed, or the program did not run). */
function testsFallback(begun: boolean, result: ExecutionResult): TestsOutcome {
  if (begun) return { status: "failed", stdout: "", stderr: "", ...(result.error ? { error: result.error } : {}) };
  const why = result.error ? `: ${result.error.name}: ${result.error.message}` : "";
  return {
    status: "not_run",
    stdout: "",
    stderr: "",
    reason: `the program ended with status ${result.status}${why.length > 300 ? `${why.slice(0, 300)}...` : why}, so the tests did not run`,
  };
}

function toResult(active: Active, outcome: WorkerOutcome): ExecutionResult {
  const result: ExecutionResult = {
    status: outcome.status,
    stdout: active.stdout,
    stderr: active.stderr,
    // output_limit is also the status of a dropped result; only the output cap cuts output.
    outputTruncated: outcome.status === "output_limit" && outcome.error?.name === "OutputLimitError",
    durationMs: outcome.durationMs,
    language: active.language,
  };
  if (outcome.resultJson !== undefined) {
    // The worker measured the result already; the host measures again before it parses
    // anything, because it trusts nothing that comes out of the worker.
    const bytes = Buffer.byteLength(outcome.resultJson);
    if (bytes > active.controls.maxResultBytes) {
      result.status = "output_limit";
      result.error = resultLimitError(bytes, active.controls.maxResultBytes);
      return result;
    }
    if (jsonNestingExceeds(outcome.resultJson)) {
      result.status = "output_limit";
      result.error = resultDepthError(MAX_JSON_DEPTH);
      return result;
    }
    try {
      result.result = JSON.parse(outcome.resultJson) as JsonValue;
    } catch {
      // The guest's own JSON.stringify made this text; nothing it makes may throw on the host.
      result.status = "runtime_error";
      result.error = { name: "ResultError", message: "the result's JSON could not be read, so it was dropped (return plain data)" };
      return result;
    }
  }
  if (outcome.error) result.error = outcome.error;
  if (outcome.tests) result.tests = { ...outcome.tests, stdout: "", stderr: "" };
  const readings = clockReadings(outcome.clockReads);
  if (readings) result.clockReads = readings;
  return result;
}


function crashResult(language: Language, message: string, stdout: string, stderr: string, durationMs: number): ExecutionResult {
  return {
    status: "runtime_error",
    stdout,
    stderr,
    outputTruncated: false,
    error: { name: "EngineCrash", message },
    durationMs,
    language,
  };
}

