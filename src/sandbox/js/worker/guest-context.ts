/**
 * One QuickJS runtime + context with the prelude installed, living inside a worker thread,
 * and the loop that runs code in it. A pool worker makes a fresh one per run and disposes it
 * after; a session keeps one alive. Runs are async only to wait for host-function replies;
 * the guest itself runs synchronously.
 *
 * The concerns live in their own modules: runtime and handle lifetime (guest-runtime.ts), the
 * prelude (guest-helpers.ts), `console` (guest-console.ts), output (guest-output.ts), host
 * functions (guest-host-functions.ts), errors (error-description.ts) and deadlines (deadline.ts).
 */
import type { QuickJSHandle, QuickJSWASMModule } from "quickjs-emscripten-core";
import type { WorkerOutcome, WorkerRunLimits } from "../shared/protocol.js";
import { TESTS_FILE_NAME, USER_FILE_NAME } from "./guest-prelude.js";
import { THROW_MARK_NAME } from "../prepare/tests-scope.js";
import { FileStore } from "./file-store.js";
import type { FileLimits } from "../shared/file-rules.js";
import { GuestFiles } from "./guest-files.js";
import { GuestRuntime, type BoundedString } from "./guest-runtime.js";
import { GuestHelpers, HelperOp } from "./guest-helpers.js";
import { GuestConsole } from "./guest-console.js";
import type { GuestHost } from "./guest-host.js";
import { flushOutput, OUTPUT_FLUSH_INTERVAL_MS, writeOutput } from "./guest-output.js";
import { HostBridge, type HostReply } from "./guest-host-functions.js";
import {
  abortedOutcome,
  describeThrown,
  failureOutcome,
  neverSettledOutcome,
  parseRaw,
  resultLimitOutcome,
  REJECTS_NULL,
} from "./error-description.js";
import { checkDeadline, shouldInterrupt, waitForReply } from "./deadline.js";
import { newRunState, type RunState } from "./run-state.js";
import { activateRunClock, newRunClock } from "./run-clock.js";

export type { GuestHost } from "./guest-host.js";

/** How the evaluated value is turned into a result (see the prelude's `settle`). */
export const enum SettleMode {
  Script = 0,
  Module = 1,
  SessionModule = 2,
}

/** What a run grants the guest before its code runs. */
export interface GuestSetup {
  globalsJson?: string;
  /** Top-level names in `globalsJson`. */
  globalNames?: string[];
  hostFunctionNames: string[];
}

/** One evaluation of prepared code (same lines as the user's source). */
export interface EvaluateOptions {
  runId: number;
  code: string;
  kind: "script" | "module";
  mode: SettleMode;
  limits: WorkerRunLimits;
  setup: GuestSetup;
  /** `performance.now()` when the request arrived: the run's clock starts there. */
  startedMs: number;
  /**
   * Set for a run's tests: they run under their own file name, continue the program's output
   * count, their value is not a result, and `throw`s marked by tests-scope.ts report their line.
   */
  tests?: { outputBytesUsed: number };
}

/** One call of a function a session's code defined. */
export interface InvokeOptions {
  runId: number;
  name: string;
  argsJson: string;
  limits: WorkerRunLimits;
  hostFunctionNames: string[];
  startedMs: number;
}

/** A live QuickJS context and the run in progress in it. */
export class GuestContext {
  private readonly guest: GuestRuntime;
  private readonly helpers: GuestHelpers;
  private readonly console: GuestConsole;
  private readonly bridge: HostBridge;
  private current: RunState | undefined;
  private lastOutput = { stdout: "", stderr: "" };
  private lastOutputBytesUsed = 0;
  /** The files of the request in progress (program and tests share them), if it was given any. */
  private fileStore: FileStore | undefined;
  private readonly files: GuestFiles;

  constructor(module: QuickJSWASMModule, memoryLimitBytes: number, private readonly host: GuestHost) {
    this.guest = new GuestRuntime(module, memoryLimitBytes, () =>
      shouldInterrupt(this.current, (run, now) => {
        if (run.pendingBytes > 0 && now - run.lastFlushMs >= OUTPUT_FLUSH_INTERVAL_MS) flushOutput(host, run, now);
      }),
    );
    this.helpers = new GuestHelpers(this.guest, (op, a, b) => this.onBridge(op, a, b));
    this.console = new GuestConsole(this.guest, this.helpers, {
      accepts: () => this.current !== undefined && !this.current.abort,
      write: (stream, text) => writeOutput(host, this.current!, stream, text),
    });
    this.bridge = new HostBridge(this.guest, this.helpers, host);
    this.files = new GuestFiles(this.guest, () => this.fileStore);
    // The prelude's allocations do not count against the user's limit.
    this.guest.setMemoryLimitBytes(memoryLimitBytes);
  }

  /**
   * Evaluates prepared code and waits for its result. Never throws for failures of the
   * guest; they come back as a `WorkerOutcome`.
   */
  evaluate(o: EvaluateOptions): Promise<WorkerOutcome> {
    const phase = o.tests
      ? { fileName: TESTS_FILE_NAME, discardResult: true, outputBytes: o.tests.outputBytesUsed }
      : { fileName: USER_FILE_NAME };
    return this.withRun(newRunState(o.runId, o.limits, o.startedMs, !REJECTS_NULL.test(o.code), phase), () => {
      const ctx = this.guest.context;
      const setupError = this.setUp(o.setup);
      if (setupError) return setupError;
      if (o.tests || o.code.includes(THROW_MARK_NAME)) this.defineThrowMark();
      const evaluated = ctx.evalCode(o.code, phase.fileName, { type: o.kind === "module" ? "module" : "global" });
      if (evaluated.error) return evaluated.error;
      using value = evaluated.value;
      this.settle(value, o.mode);
      return undefined;
    });
  }

  /** Calls a function the session's code defined, with JSON arguments; result = awaited return value. */
  invoke(o: InvokeOptions): Promise<WorkerOutcome> {
    return this.withRun(newRunState(o.runId, o.limits, o.startedMs, false), () => {
      const setupError = this.setUp({ hostFunctionNames: o.hostFunctionNames });
      if (setupError) return setupError;
      const called = this.helpers.call(HelperOp.Invoke, o.name, o.argsJson);
      if (called.error) return called.error;
      using value = called.value;
      this.settle(value, SettleMode.Script);
      return undefined;
    });
  }

  /**
   * Gives the next evaluations (until `closeFiles`) these files and the `files` global.
   * Without this, the global is not defined (a fresh context has none).
   */
  openFiles(initial: Record<string, Uint8Array>, limits: FileLimits): void {
    this.fileStore = new FileStore(initial, limits);
  }

  /** The file set at the end of the request; later calls to `files` throw until reopened. */
  closeFiles(): Record<string, Uint8Array> | undefined {
    const files = this.fileStore?.snapshot();
    this.fileStore = undefined;
    return files;
  }

  /** Bytes of output the last run wrote (its tests continue the count). */
  get lastOutputBytes(): number {
    return this.lastOutputBytesUsed;
  }

  /** Loads the rest of the prelude now, so a session's baseline of built-in names is exact. */
  loadLibrary(): void {
    this.helpers.run(HelperOp.LoadLibrary);
  }

  /** Names of global functions the guest's code defined (not built-ins, not host functions). */
  functionNames(): string[] {
    const json = this.helpers.text(HelperOp.FunctionNames);
    // The throw mark (see defineThrowMark) is ours, not the code's.
    return json === undefined ? [] : (JSON.parse(json) as string[]).filter((name) => name !== THROW_MARK_NAME);
  }

  /** Settles a host-function call of the current run with the host's answer. */
  reply(runId: number, callId: number, answer: HostReply): void {
    const run = this.current;
    if (run && run.runId === runId) this.bridge.reply(run, callId, answer);
  }

  /**
   * Sets the memory limit of the runs to come (a context made ahead of its run learns the
   * run's limit here, before any of its code runs).
   */
  setMemoryLimitBytes(memoryLimitBytes: number): void {
    this.guest.setMemoryLimitBytes(memoryLimitBytes);
  }

  /** Output of the last run not yet sent to the host (goes with the final message). */
  takeOutput(): { stdout: string; stderr: string } {
    const out = this.lastOutput;
    this.lastOutput = { stdout: "", stderr: "" };
    return out;
  }

  /** Releases the context and runtime. Throws if QuickJS reports leaked handles. */
  dispose(): void {
    this.console.dispose();
    this.guest.dispose();
  }

  /**
   * Defines the function the tests' marked `throw`s call (see tests-scope.ts): it records the
   * line for the current run and returns the thrown value unchanged. Not enumerable; a test
   * that replaces it only loses its own line numbers.
   */
  private defineThrowMark(): void {
    const ctx = this.guest.context;
    using mark = ctx.newFunction(THROW_MARK_NAME, (line: QuickJSHandle, value: QuickJSHandle) => {
      const run = this.current;
      if (run && ctx.typeof(line) === "number") run.throwLine = ctx.getNumber(line);
      // The code itself threw null: a null that ends the run is this one, not out of memory.
      if (run && value !== undefined && ctx.sameValue(value, ctx.null)) run.nullMeansOutOfMemory = false;
      return value?.dup();
    });
    ctx.defineProp(ctx.global, THROW_MARK_NAME, { value: mark, configurable: true, enumerable: false });
  }

  private setUp(setup: GuestSetup): QuickJSHandle | undefined {
    const ctx = this.guest.context;
    if (setup.globalsJson !== undefined && setup.globalNames && setup.globalNames.length > 0) {
      // One JSON string crosses and is parsed inside the guest by its original JSON.parse.
      const parsed = this.guest.parse(setup.globalsJson);
      if (parsed.error) return parsed.error;
      using globals = parsed.value;
      for (const name of setup.globalNames) {
        using value = ctx.getProp(globals, name);
        ctx.setProp(ctx.global, name, value);
      }
    }
    if (this.fileStore) {
      const thrown = this.files.install();
      if (thrown) return thrown;
    }
    return this.bridge.define(setup.hostFunctionNames);
  }

  /**
   * Turns the evaluated value into the run's result. A plain script value that is not a
   * promise (or thenable) is stringified right here; anything to await goes through the
   * prelude's `settle`, which reports back through the bridge.
   */
  private settle(value: QuickJSHandle, mode: SettleMode): void {
    const run = this.current;
    if (!run) return;
    if (mode === SettleMode.Script && !this.mayBeThenable(value)) {
      this.settleWith(run, run.discardResult ? { text: undefined } : this.guest.stringify(value, run.limits.maxResultBytes));
      return;
    }
    this.helpers.run(HelperOp.Settle, value, mode);
  }

  /** Records a successful result, or that its JSON was over `maxResultBytes` (then dropped). */
  private settleWith(run: RunState, json: BoundedString): void {
    if (run.discardResult) {
      run.settled = { ok: true, json: undefined };
      return;
    }
    if (json.overLimitBytes !== undefined) run.resultOverLimitBytes = json.overLimitBytes;
    run.settled = { ok: true, json: json.text };
  }

  private mayBeThenable(value: QuickJSHandle): boolean {
    const ctx = this.guest.context;
    const type = ctx.typeof(value);
    if (type !== "object" && type !== "function") return false;
    try {
      using then = ctx.getProp(value, "then");
      return ctx.typeof(then) === "function";
    } catch {
      // A throwing `then` getter: let the prelude's settle meet it inside the guest.
      return true;
    }
  }

  /**
   * Runs `start` as the current run; a run given `inputs` reads its own clock and a seeded
   * `Math.random`, and reports the readings it made.
   */
  private async withRun(run: RunState, start: () => QuickJSHandle | undefined): Promise<WorkerOutcome> {
    const inputs = run.limits.inputs;
    if (!inputs) return this.drive(run, start);
    const clock = newRunClock(inputs.clockReads);
    activateRunClock(clock);
    try {
      const outcome = await this.drive(run, () => {
        const seeded = this.helpers.call(HelperOp.SeedRandom, inputs.seed);
        if (seeded.error) return seeded.error;
        seeded.value.dispose();
        return start();
      });
      const readings = clock.recorded();
      return readings ? { ...outcome, clockReads: readings } : outcome;
    } finally {
      activateRunClock(undefined);
    }
  }

  private async drive(run: RunState, start: () => QuickJSHandle | undefined): Promise<WorkerOutcome> {
    this.current = run;
    this.host.mirror?.clear();
    try {
      let thrown: QuickJSHandle | undefined;
      try {
        thrown = start();
      } catch (error) {
        // A host-side call into the guest failed (e.g. interrupted mid-way): report, don't crash.
        return failureOutcome(run, { name: "InternalError", message: (error as Error).message ?? String(error) }, this.guest.memoryLimitBytes);
      }
      if (thrown) return this.failure(run, thrown);
      for (;;) {
        const jobs = this.guest.runtime.executePendingJobs();
        if (jobs.error) jobs.error.dispose();
        if (run.abort || run.settled) break;
        if (run.deferreds.size === 0) return neverSettledOutcome(run);
        await waitForReply(run);
        checkDeadline(run);
        if (run.abort) break;
      }
      if (run.abort) return abortedOutcome(run);
      const settled = run.settled;
      if (run.resultOverLimitBytes !== undefined) return resultLimitOutcome(run, run.resultOverLimitBytes);
      if (settled && settled.ok) return { status: "success", resultJson: settled.json, durationMs: performance.now() - run.startedMs };
      return failureOutcome(run, settled ? parseRaw(settled.errorJson) : undefined, this.guest.memoryLimitBytes);
    } finally {
      this.bridge.release(run);
      this.lastOutput = { stdout: run.stdoutPending, stderr: run.stderrPending };
      this.lastOutputBytesUsed = run.outputBytes;
      this.current = undefined;
      this.guest.restoreMemoryLimit();
    }
  }

  private failure(run: RunState, thrown: QuickJSHandle): WorkerOutcome {
    return failureOutcome(run, describeThrown(this.guest, this.helpers, run, thrown), this.guest.memoryLimitBytes);
  }

  private onBridge(op: number, a: QuickJSHandle, b: QuickJSHandle): QuickJSHandle | undefined {
    const run = this.current;
    const ctx = this.guest.context;
    if (!run) return undefined;
    switch (op) {
      case 1:
        return this.bridge.call(run, ctx.getString(a), ctx.getString(b));
      case 2:
        this.settleWith(run, this.guest.readBoundedString(a, run.limits.maxResultBytes));
        return undefined;
      case 3:
        run.settled = { ok: false, errorJson: ctx.getString(a) };
        return undefined;
      default:
        return undefined;
    }
  }
}
