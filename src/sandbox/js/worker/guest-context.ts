/**
 * One QuickJS runtime + context with the prelude installed, living inside a worker thread,
 * and the loop that runs code in it. A pool worker serves every run from one, put back from its
 * pristine image after each run (fresh-image.ts), or makes a fresh one per run and disposes it
 * after; a session keeps one alive. Runs are async only to wait for host-function replies;
 * the guest itself runs synchronously.
 *
 * The concerns live in their own modules: runtime and handle lifetime (guest-runtime.ts), the
 * prelude (guest-helpers.ts), `console` (guest-console.ts), output (guest-output.ts), host
 * functions (guest-host-functions.ts), errors (error-description.ts) and deadlines (deadline.ts).
 */
import type { QuickJSContext, QuickJSHandle, QuickJSWASMModule } from "quickjs-emscripten-core";
import type { WorkerOutcome, WorkerRunLimits } from "../shared/protocol.js";
import { TESTS_FILE_NAME, USER_FILE_NAME } from "./guest-prelude.js";
import { TESTS_VALUE_NAME, THROW_MARK_NAME } from "../prepare/tests-scope.js";
import { MAX_JS_TEST_STEPS, TESTS_CASE_NAME } from "../prepare/tests-split.js";
import { readJsValue, type JsValue } from "./test-values.js";
import { locateError } from "./error-location.js";
import { FileStore } from "./file-store.js";
import type { FileLimits } from "../shared/file-rules.js";
import { GuestFiles } from "./guest-files.js";
import { GuestIntl, mentionsIntl } from "./intl-guest.js";
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
  unserialisableResultError,
} from "./error-description.js";
import { checkDeadline, shouldInterrupt, waitForReply } from "./deadline.js";
import { newRunState, type RunState } from "./run-state.js";
import { isLineNumber } from "./error-location.js";
import { activateRunClock, newRunClock } from "./run-clock.js";
import { kindOf, tagged, type HostFunctionKind } from "./host-function-kinds.js";
import { contextPointers, hostRefGroup, hostRefsOf, pointerFields } from "./engine-internals.js";

export type { GuestHost } from "./guest-host.js";

/** True when `handle` is a promise of the engine's (its state is then read, never its `then`). */
function isPromise(ctx: QuickJSContext, handle: QuickJSHandle): boolean {
  const state = ctx.getPromiseState(handle);
  if (state.type === "fulfilled") {
    if (state.notAPromise) return false;
    state.value.dispose();
  } else if (state.type === "rejected") {
    state.error.dispose();
  }
  return true;
}

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

/** A session context's worker-side state between runs (see `GuestContext.snapshotState`). */
export interface ContextState {
  layout: string;
  hostRefs: { nextId: number; freelist: number[]; refs: [number, HostFunctionKind][] };
  hostFunctionNames: string[];
  filesInstalled: boolean;
  consolePointer: number;
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

/** WebAssembly's error of a trap (and of Emscripten's `abort`), as this file names it (Node's types without DOM do not declare it). */
const WasmRuntimeError = (globalThis as unknown as { WebAssembly: { RuntimeError: new () => Error } }).WebAssembly.RuntimeError;

/** True for an exception that left the engine's WebAssembly mid-call rather than one QuickJS returned. */
function leftEngineMidCall(error: unknown): boolean {
  return error instanceof WasmRuntimeError || error instanceof RangeError || /^Aborted\(/.test(String((error as Error)?.message));
}

/** A live QuickJS context and the run in progress in it. */
export class GuestContext {
  /**
   * True once a call into the engine ended by a host-side exception (an abort, a trap) instead of
   * returning: the WebAssembly state beside the memory (the C stack pointer) may be mid-call, so a
   * pool worker does not serve another run from this engine.
   */
  faulted = false;
  private readonly guest: GuestRuntime;
  private readonly helpers: GuestHelpers;
  private readonly console: GuestConsole;
  private readonly bridge: HostBridge;
  private current: RunState | undefined;
  /** What each split test recorded in the last tests run (see tests-split.ts), by step. */
  private testRecords = new Map<number, TestRecord>();
  /** Set once the tests' function is over and their split tests' promises are watched. */
  private watchingTestPromises = false;
  private lastOutput = { stdout: "", stderr: "" };
  private lastOutputBytesUsed = 0;
  /** The files of the request in progress (program and tests share them), if it was given any. */
  private fileStore: FileStore | undefined;
  private readonly files: GuestFiles;
  private readonly intl: GuestIntl;
  /** Global names a session's context has before any code ran (see loadLibrary). */
  private baselineNames: Set<string> | undefined;
  /** The throw marks' closures (program's, tests'), made once per context (see host-function-kinds.ts). */
  private readonly throwMarks: [(line: QuickJSHandle, value: QuickJSHandle) => QuickJSHandle | undefined, (line: QuickJSHandle, value: QuickJSHandle) => QuickJSHandle | undefined];

  /**
   * @param keepsContext True for a session: its context serves later calls, so nothing a call
   *   queued may be left in it (see drainLeftoverJobs). A pool context is disposed after its run.
   */
  constructor(
    module: QuickJSWASMModule,
    memoryLimitBytes: number,
    private readonly host: GuestHost,
    private readonly keepsContext = false,
  ) {
    this.guest = new GuestRuntime(module, memoryLimitBytes, () =>
      shouldInterrupt(this.current, (run, now) => {
        if (run.pendingBytes > 0 && now - run.lastFlushMs >= OUTPUT_FLUSH_INTERVAL_MS) flushOutput(host, run, now);
      }),
    );
    this.helpers = new GuestHelpers(this.guest, (op, a, b) => this.onBridge(op, a, b));
    this.console = new GuestConsole(this.guest, this.helpers, {
      accepts: () => this.current !== undefined && !this.current.abort && !this.current.over,
      write: (stream, text) => writeOutput(host, this.current!, stream, text),
    });
    this.bridge = new HostBridge(this.guest, this.helpers, host);
    this.files = new GuestFiles(this.guest, () => this.fileStore);
    this.intl = new GuestIntl(this.guest);
    this.throwMarks = [tagged("throw-mark", this.throwMarkClosure(false)), tagged("tests-mark", this.throwMarkClosure(true))];
    // The prelude's allocations do not count against the user's limit.
    this.guest.setMemoryLimitBytes(memoryLimitBytes);
  }

  /**
   * Evaluates prepared code and waits for its result. Never throws for failures of the
   * guest; they come back as a `WorkerOutcome`.
   *
   * The tests (`o.tests`) are different: their code is one async function expression (see
   * `wrapTests`), called here with the function their marked `throw`s record lines with. The
   * verdict is the state of the promise that call returns, read by the engine: no `then` or
   * `constructor` of the guest's (which the program may have replaced) takes part in it, and
   * the mark is an argument, never a global the program could call or replace.
   */
  evaluate(o: EvaluateOptions): Promise<WorkerOutcome> {
    const phase = o.tests
      ? { fileName: TESTS_FILE_NAME, tests: true, outputBytes: o.tests.outputBytesUsed }
      : { fileName: USER_FILE_NAME };
    return this.withRun(newRunState(o.runId, o.limits, o.startedMs, !REJECTS_NULL.test(o.code), phase), (run) => {
      const ctx = this.guest.context;
      const setupError = this.setUp(o.setup);
      if (setupError) return setupError;
      if (!o.tests && o.code.includes(THROW_MARK_NAME)) this.defineThrowMark();
      // Only code that names Intl or a toLocale… method pays for installing it (see intl-guest.ts).
      const intlError = mentionsIntl(o.code) ? this.intl.install() : undefined;
      if (intlError) return intlError;
      const evaluated = ctx.evalCode(o.code, phase.fileName, { type: o.kind === "module" ? "module" : "global" });
      if (evaluated.error) return evaluated.error;
      using value = evaluated.value;
      if (o.tests) return this.startTests(run, value, o.code);
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

  /** Loads the rest of the prelude now, and takes the session's baseline of built-in global names. */
  loadLibrary(): void {
    this.helpers.run(HelperOp.LoadLibrary);
    // A session's later calls may reach Intl by any route: its context has it from the start.
    this.intl.install()?.dispose();
    this.baselineNames = new Set(this.guest.ownStringKeys(this.guest.context.global));
  }

  /**
   * Names of global functions the guest's code defined (not built-ins, not host functions).
   * Read by the worker, not by the prelude: it runs between calls, where no deadline stops
   * guest code, so no guest code (a replaced `Set.prototype.has`, a getter) may run in it.
   */
  functionNames(): string[] {
    const global = this.guest.context.global;
    const names: string[] = [];
    for (const name of this.guest.ownStringKeys(global)) {
      // The throw mark (see defineThrowMark) is ours, not the code's.
      if (this.baselineNames?.has(name) || this.bridge.has(name) || name === THROW_MARK_NAME) continue;
      if (this.guest.holdsOwnFunction(global, name)) names.push(name);
    }
    return names;
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

  /**
   * The worker-side state of this context between runs, beside its heap (see
   * session-snapshot.ts): the pointers the worker's objects hold into the heap (equal in any
   * context made by the same steps, and checked), the host functions the heap refers to by id
   * and kind, and what the worker knows the guest was given. A string when the context is in a
   * state a snapshot cannot hold (a run in progress, queued jobs, a host function of a run).
   */
  snapshotState(): ContextState | string {
    if (this.current) return "a run is in progress";
    if (!this.keepsContext) return "only a session's context is snapshotted";
    if (this.fileStore) return "files are open";
    const runtime = this.guest.runtime;
    if (runtime.hasPendingJob()) return "jobs are queued";
    const table = hostRefsOf(runtime);
    const refs: [number, HostFunctionKind][] = [];
    for (const group of table.groups.values()) {
      for (const [id, fn] of group) {
        const kind = kindOf(fn);
        if (kind === undefined || kind.endsWith("-run")) return `host function ${id} (${kind ?? "of no known kind"}) cannot be restored`;
        refs.push([id, kind]);
      }
    }
    refs.sort(([a], [b]) => a - b);
    return {
      layout: this.layout(),
      hostRefs: { nextId: table.nextId, freelist: [...table.freelist], refs },
      hostFunctionNames: this.bridge.definedNames,
      filesInstalled: this.files.isInstalled,
      consolePointer: this.console.heldPointer,
    };
  }

  /**
   * The pointers this context's worker-side objects hold, as JSON: equal in the context a
   * snapshot was taken in and in a fresh one made by the same steps, else the snapshot is refused.
   */
  layout(): string {
    const runtime = this.guest.runtime;
    return JSON.stringify({
      runtime: pointerFields(runtime),
      context: pointerFields(this.guest.context),
      contexts: contextPointers(runtime),
      owned: this.guest.ownedPointers(),
      helper: this.helpers.loadedPointer,
      baseline: this.baselineNames ? [...this.baselineNames] : null,
    });
  }

  /**
   * Takes the worker-side state of a snapshot whose heap was just written into this context's
   * module (see session-snapshot.ts): the host-function table (ids mapped to this context's
   * closures of the same kinds), the host functions and `files` the guest was given, the held
   * `console`. The caller checked `layout()` first.
   */
  adoptState(state: ContextState): void {
    const closures = new Map<HostFunctionKind, unknown>([
      ...this.console.closures(),
      ["bridge", this.helpers.bridge],
      ["files", this.files.operation],
      ["intl", this.intl.operation],
      ["throw-mark", this.throwMarks[0]],
      ["tests-mark", this.throwMarks[1]],
    ]);
    const table = hostRefsOf(this.guest.runtime);
    const groups = new Map<number, Map<number, unknown>>();
    for (const [id, kind] of state.hostRefs.refs) {
      const fn = closures.get(kind);
      if (fn === undefined) throw new Error(`no closure of kind ${kind}`);
      const groupId = hostRefGroup(id);
      let group = groups.get(groupId);
      if (!group) groups.set(groupId, (group = new Map()));
      group.set(id, fn);
    }
    table.groups = groups;
    table.nextId = state.hostRefs.nextId;
    table.freelist = [...state.hostRefs.freelist];
    this.bridge.definedNames = state.hostFunctionNames;
    this.files.isInstalled = state.filesInstalled;
    this.console.adoptHeld(state.consolePointer);
  }

  /**
   * Loads what every run may use (the prelude's dispatcher, `console`) before any run: for the
   * context a pool worker takes its pristine image of (fresh-image.ts).
   */
  preloadForRuns(): void {
    this.helpers.preload();
    this.console.preload();
  }

  /** Releases the context and runtime. Throws if QuickJS reports leaked handles. */
  dispose(): void {
    this.console.dispose();
    this.guest.dispose();
  }

  /**
   * Defines the global the program's own marked `throw`s call (see worker/main.ts): it records
   * the line for the program's run, tells the run that a thrown `null` is the code's, not an
   * out-of-memory error, and returns the value unchanged. Not enumerable; code that replaces it
   * only loses its own lines and that distinction.
   */
  private defineThrowMark(): void {
    const ctx = this.guest.context;
    using mark = this.newThrowMark(false);
    ctx.defineProp(ctx.global, THROW_MARK_NAME, { value: mark, configurable: true, enumerable: false });
  }

  /**
   * A throw mark, the program's (global) or the tests' (their function's parameter). Each
   * records lines only in its own phase: nothing the program runs during the tests (a getter
   * of a thrown value) can move the line of a failing test.
   */
  private newThrowMark(forTests: boolean): QuickJSHandle {
    return this.guest.context.newFunction(THROW_MARK_NAME, this.throwMarks[forTests ? 1 : 0]);
  }

  private throwMarkClosure(forTests: boolean): (line: QuickJSHandle, value: QuickJSHandle) => QuickJSHandle | undefined {
    return (line: QuickJSHandle, value: QuickJSHandle) => {
      const ctx = this.guest.context;
      const run = this.current;
      if (run && run.tests === forTests && ctx.typeof(line) === "number") {
        // The guest can call a mark itself: only a line number is ever recorded.
        const n = ctx.getNumber(line);
        if (isLineNumber(n)) run.throwLine = n;
      }
      // The code itself threw null: a null that ends the run is this one, not out of memory.
      if (run && value !== undefined && ctx.sameValue(value, ctx.null)) run.nullMeansOutOfMemory = false;
      return value?.dup();
    };
  }

  /**
   * Calls the tests' function with their throw mark and the function that keeps the value of
   * their last expression, and watches the promise the call returns.
   */
  private startTests(run: RunState, fn: QuickJSHandle, code: string): QuickJSHandle | undefined {
    const ctx = this.guest.context;
    if (ctx.typeof(fn) !== "function") return ctx.newError({ name: "InternalError", message: "the tests were not prepared as a function" });
    // Each is made only when the rewritten tests call it (making a host function is not free).
    using mark = code.includes(`${THROW_MARK_NAME}(`) ? this.newThrowMark(true) : ctx.undefined;
    using keep = code.includes(`${TESTS_VALUE_NAME}(`)
      ? ctx.newFunction(
          TESTS_VALUE_NAME,
          tagged("tests-keep-run", (value?: QuickJSHandle) => {
            if (this.current !== run || value === undefined) return undefined;
            run.testsValue?.dispose();
            run.testsValue = value.dup();
            return undefined;
          }),
        )
      : ctx.undefined;
    this.testRecords = new Map();
    this.watchingTestPromises = false;
    using record = code.includes(`${TESTS_CASE_NAME}(`) ? ctx.newFunction(TESTS_CASE_NAME, tagged("tests-case-run", this.caseRecorder(run))) : ctx.undefined;
    const called = ctx.callFunction(fn, ctx.undefined, mark, keep, record);
    if (called.error) return called.error;
    run.watched = called.value;
    return undefined;
  }

  /** What the split tests recorded in the last tests run; the map is handed over. */
  takeTestRecords(): Map<number, TestRecord> {
    const records = this.testRecords;
    this.testRecords = new Map();
    for (const r of records.values()) {
      r.first?.dispose();
      r.first = undefined;
      r.promise?.dispose();
      r.promise = undefined;
    }
    return records;
  }

  /**
   * The tests' case recorder (`CASE(i, slot, value)` of tests-split.ts): slot 0 and 1 are the
   * sides' values, read here at once (readJsValue); 2 says the comparison's parts are all in;
   * 3 says a whole statement ran to its end; -1 is what a test threw. Each step takes each
   * slot once, in order, and only while this run's tests run: a call out of order is ignored.
   */
  private caseRecorder(run: RunState): (step?: QuickJSHandle, slot?: QuickJSHandle, value?: QuickJSHandle) => QuickJSHandle | undefined {
    return (step, slot, value) => {
      const ctx = this.guest.context;
      if (this.current !== run || step === undefined || slot === undefined || ctx.typeof(step) !== "number" || ctx.typeof(slot) !== "number") return undefined;
      const i = ctx.getNumber(step);
      const k = ctx.getNumber(slot);
      if (!Number.isSafeInteger(i) || i < 0 || i >= MAX_JS_TEST_STEPS) return undefined;
      let r = this.testRecords.get(i);
      if (!r) this.testRecords.set(i, (r = { values: [] }));
      if (r.done || r.ran || r.error) return undefined;
      if ((k === 0 || k === 1) && value !== undefined && r.values.length === k) {
        r.values.push(readJsValue(this.guest, value));
        if (k === 0) r.first = value.dup();
        else if (r.first) {
          r.same = ctx.sameValue(r.first, value);
          r.first.dispose();
          r.first = undefined;
        }
      } else if (k === 2 && r.values.length > 0) r.done = true;
      else if (k === 3 && r.values.length === 0) r.ran = true;
      else if (k === 4 && r.values.length === 0 && value !== undefined && r.promise === undefined) {
        // A whole statement's value: a promise (an async IIFE, a call of an async helper) is
        // watched by its state once the tests' function is over; anything else ran.
        if (isPromise(ctx, value)) r.promise = value.dup();
        else r.ran = true;
      }
      else if (k === -1 && value !== undefined) {
        // The line a marked `throw` of the tests recorded; describing runs the guest's getters,
        // whose own throws must not move it, and the next test starts without one.
        const line = run.throwLine;
        const raw = describeThrown(this.guest, this.helpers, run, value.dup());
        const error = raw ? locateError(raw, run.fileName) : { name: "Error", message: "the test threw a value that cannot be described" };
        if (error.line === undefined && line !== undefined) error.line = line;
        run.throwLine = undefined;
        r.error = error;
      }
      return undefined;
    };
  }

  /**
   * Settles the run from the watched promise's state, as the engine holds it: the tests'
   * function's promise, then, when their last expression was a promise (an async IIFE), that
   * one. Any other last value (a thenable of the guest's included) is not awaited.
   */
  private checkWatched(run: RunState): void {
    const ctx = this.guest.context;
    while (run.watched && !run.settled) {
      if (this.watchingTestPromises) {
        // Every split test's promise is read by its own record: a rejection is its test's.
        const pending = this.nextTestPromise(run);
        if (pending) {
          run.watched.dispose();
          run.watched = pending;
          return;
        }
        run.settled = { ok: true, json: undefined };
        return;
      }
      const state = ctx.getPromiseState(run.watched);
      if (state.type === "pending") return;
      if (state.type === "rejected") {
        const line = run.throwLine;
        const error = describeThrown(this.guest, this.helpers, run, state.error);
        // Describing runs the guest's getters; a line they record is not the failing test's.
        run.throwLine = line;
        run.settled = { ok: false, error };
        return;
      }
      if (!state.notAPromise) state.value.dispose();
      const next = run.testsValue;
      run.testsValue = undefined;
      if (next && isPromise(ctx, next)) {
        run.watched.dispose();
        run.watched = next;
        continue;
      }
      next?.dispose();
      // Then each split test's promise, in order, by its state as the engine holds it: a
      // rejection is that test's failure, not the end of the tests.
      if ([...this.testRecords.values()].some((r) => r.promise)) {
        this.watchingTestPromises = true;
        continue;
      }
      run.settled = { ok: true, json: undefined };
    }
  }

  /** The next split test's promise to watch (its record learns how it ended), if any. */
  private nextTestPromise(run: RunState): QuickJSHandle | undefined {
    const ctx = this.guest.context;
    for (const r of this.testRecords.values()) {
      if (!r.promise) continue;
      const state = ctx.getPromiseState(r.promise);
      if (state.type === "pending") return r.promise.dup();
      r.promise.dispose();
      r.promise = undefined;
      if (state.type === "rejected") {
        const line = run.throwLine;
        const raw = describeThrown(this.guest, this.helpers, run, state.error);
        const error = raw ? locateError(raw, run.fileName) : { name: "Error", message: "the test threw a value that cannot be described" };
        if (error.line === undefined && line !== undefined) error.line = line;
        run.throwLine = undefined;
        r.error = error;
      } else {
        if (!state.notAPromise) state.value.dispose();
        r.ran = true;
      }
    }
    return undefined;
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
      const json = this.guest.stringifyResult(value, run.limits.maxResultBytes);
      if ("thrown" in json) run.settled = { ok: false, error: unserialisableResultError(describeThrown(this.guest, this.helpers, run, json.thrown)) };
      else this.settleWith(run, json);
      return;
    }
    this.helpers.run(HelperOp.Settle, value, mode);
  }

  /** Records a successful result, or that its JSON was over `maxResultBytes` (then dropped). */
  private settleWith(run: RunState, json: BoundedString): void {
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
  private async withRun(run: RunState, start: (run: RunState) => QuickJSHandle | undefined): Promise<WorkerOutcome> {
    const inputs = run.limits.inputs;
    if (!inputs) return this.drive(run, start);
    const clock = newRunClock(inputs.clockReads);
    activateRunClock(clock);
    try {
      const outcome = await this.drive(run, (current) => {
        const seeded = this.helpers.call(HelperOp.SeedRandom, inputs.seed);
        if (seeded.error) return seeded.error;
        seeded.value.dispose();
        return start(current);
      });
      const readings = clock.recorded();
      return readings ? { ...outcome, clockReads: readings } : outcome;
    } finally {
      activateRunClock(undefined);
    }
  }

  private async drive(run: RunState, start: (run: RunState) => QuickJSHandle | undefined): Promise<WorkerOutcome> {
    this.current = run;
    this.host.mirror?.clear();
    try {
      const outcome = await this.runToOutcome(run, start);
      if (!this.keepsContext || outcome.status === "timeout" || this.drainLeftoverJobs(run)) return outcome;
      return abortedOutcome({ ...run, abort: "timeout" });
    } finally {
      this.bridge.release(run);
      run.watched?.dispose();
      run.watched = undefined;
      run.testsValue?.dispose();
      run.testsValue = undefined;
      this.lastOutput = { stdout: run.stdoutPending, stderr: run.stderrPending };
      this.lastOutputBytesUsed = run.outputBytes;
      this.current = undefined;
      this.guest.restoreMemoryLimit();
    }
  }

  private async runToOutcome(run: RunState, start: (run: RunState) => QuickJSHandle | undefined): Promise<WorkerOutcome> {
    let thrown: QuickJSHandle | undefined;
    try {
      thrown = start(run);
    } catch (error) {
      // A host-side call into the guest failed (e.g. interrupted mid-way): report, don't crash.
      // An abort, a trap or the host's own stack overflow left the engine mid-call (its own
      // unwinding was skipped): this context is not reused (see `faulted`).
      if (leftEngineMidCall(error)) this.faulted = true;
      return failureOutcome(run, { name: "InternalError", message: (error as Error).message ?? String(error) }, this.guest.memoryLimitBytes);
    }
    if (thrown) return this.failure(run, thrown);
    for (;;) {
      const jobs = this.guest.runtime.executePendingJobs();
      if (jobs.error) {
        // A promise job that throws past its promise is an error no code can catch (out of
        // memory, stack overflow, an interrupt): it ends the run even after a result settled,
        // or an endless job chain that ran out of memory would be reported a success.
        if (!run.abort) return this.failure(run, jobs.error);
        jobs.error.dispose();
      }
      this.checkWatched(run);
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
    return failureOutcome(run, settled?.error, this.guest.memoryLimitBytes);
  }

  /**
   * Runs the promise jobs the code left queued once its outcome is decided (describing a
   * thrown value runs its getters, which may queue more), so that none of them runs in the
   * session's next call, with that call's host functions. They run under this run's deadline,
   * with output dropped and host calls refused. False when the deadline stopped them first:
   * the context then holds code that would run later, and the caller ends the session.
   */
  private drainLeftoverJobs(run: RunState): boolean {
    const runtime = this.guest.runtime;
    if (!runtime.hasPendingJob()) return true;
    const abort = run.abort;
    run.abort = undefined;
    run.over = true;
    while (runtime.hasPendingJob()) {
      if (run.abort || performance.now() > run.deadlineMs) return false;
      const jobs = runtime.executePendingJobs();
      if (jobs.error) jobs.error.dispose();
    }
    if (run.abort) return false;
    run.abort = abort;
    return true;
  }

  private failure(run: RunState, thrown: QuickJSHandle): WorkerOutcome {
    const line = run.throwLine;
    const error = describeThrown(this.guest, this.helpers, run, thrown);
    // Describing runs the guest's getters; a line they record is not where the code threw.
    run.throwLine = line;
    return failureOutcome(run, error, this.guest.memoryLimitBytes);
  }

  private onBridge(op: number, a: QuickJSHandle, b: QuickJSHandle): QuickJSHandle | undefined {
    const run = this.current;
    const ctx = this.guest.context;
    if (!run) return undefined;
    // A settled run's leftover jobs (see drainLeftoverJobs) change nothing of its outcome;
    // their host calls are refused by the bridge.
    if (run.over && op !== 1) return undefined;
    switch (op) {
      case 1:
        return this.bridge.call(run, ctx.getString(a), ctx.getString(b));
      case 2:
        this.settleWith(run, this.guest.readBoundedString(a, run.limits.maxResultBytes));
        return undefined;
      case 3:
        run.settled = { ok: false, error: ctx.typeof(a) === "string" ? parseRaw(ctx.getString(a)) : undefined };
        return undefined;
      case 4:
        run.settled = { ok: false, error: unserialisableResultError(ctx.typeof(a) === "string" ? parseRaw(ctx.getString(a)) : undefined) };
        return undefined;
      default:
        return undefined;
    }
  }
}

/** What one split test recorded (see `GuestContext.caseRecorder`). */
export interface TestRecord {
  values: JsValue[];
  /** For two sides: whether they were the same value (SameValue, read by the engine). */
  same?: boolean;
  done?: boolean;
  ran?: boolean;
  error?: import("../../types.js").ExecutionError;
  /** The first side's handle until the second arrives. */
  first?: QuickJSHandle;
  /** A whole statement's promise, until its state is read. */
  promise?: QuickJSHandle;
}
