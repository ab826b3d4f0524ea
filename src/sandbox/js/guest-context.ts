/**
 * One QuickJS runtime + context with the prelude installed, living inside a worker thread.
 * A pool worker makes a fresh one per run and disposes it after; a session keeps one alive.
 * Runs are async only to wait for host-function replies; the guest itself runs synchronously.
 */
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from "quickjs-emscripten-core";
import type { ExecutionError } from "../types.js";
import type { WorkerOutcome, WorkerRunLimits } from "./protocol.js";
import { locateError } from "./error-location.js";
import type { OutputMirror } from "./output-mirror.js";
import { GUEST_LIBRARY_SOURCE, GUEST_PRELUDE_SOURCE, PRELUDE_FILE_NAME, USER_FILE_NAME } from "./guest-prelude.js";

/**
 * QuickJS's own stack limit. FACTS: 512 KiB or more (or unset) overflows the thread's native
 * stack inside WASM and later aborts the module; 256 KiB ends with a clean InternalError.
 */
export const MAX_STACK_SIZE_BYTES = 256 * 1024;

// All times in this module come from performance.now(): monotonic, and sub-millisecond for
// durationMs.

/** Buffered output is sent to the host when it grows past this, so a killed run keeps it. */
const OUTPUT_FLUSH_BYTES = 4096;
/** ...or when this much time has passed since the last flush (checked from the interrupt handler). */
const OUTPUT_FLUSH_INTERVAL_MS = 20;
/** Headroom granted while describing an out-of-memory error, so the description can allocate. */
const OOM_DESCRIBE_HEADROOM_BYTES = 4 * 1024 * 1024;

/** Where the worker sends what a run produces while it runs. */
export interface GuestHost {
  output(runId: number, stdout: string, stderr: string): void;
  /** Shared copy of unsent output, read by the host if it must kill the worker. */
  mirror?: OutputMirror;
  call(runId: number, callId: number, name: string, argsJson: string): void;
}

/** Mutable state of the run in progress. */
interface RunState {
  runId: number;
  /** Whether a thrown bare `null` means QuickJS ran out of memory (see describe()). */
  nullMeansOutOfMemory: boolean;
  limits: WorkerRunLimits;
  deadlineMs: number;
  outputBytes: number;
  stdoutPending: string;
  stderrPending: string;
  pendingBytes: number;
  lastFlushMs: number;
  abort?: "timeout" | "output";
  deferreds: Map<number, QuickJSDeferredPromise>;
  nextCallId: number;
  settled?: { ok: true; json: string | undefined } | { ok: false; errorJson: string };
  wake?: () => void;
}

/** How the evaluated value is turned into a result (see the prelude's `settle`). */
export const enum SettleMode {
  Script = 0,
  Module = 1,
  SessionModule = 2,
}

/**
 * Built-ins the prelude and the host use, captured per context before user code runs, so a
 * program that replaces them cannot forge its own result. Order matters: the prelude reads
 * them by index. `["Promise", ""]` is the Promise constructor itself.
 */
const NATIVE_PATHS: readonly (readonly [string, string])[] = [
  ["JSON", "stringify"],
  ["JSON", "parse"],
  ["Promise", "prototype.then"],
  ["Promise", ""],
  ["Promise", "resolve"],
  ["Reflect", "apply"],
  ["eval", ""],
  ["Object", "defineProperty"],
  ["Object", "keys"],
];

/** Source that may throw `null` on purpose (see GuestContext.describe). */
const THROWS_NULL = /\bthrow\s+null\b|\breject\s*\(\s*null\s*\)/;

const NATIVE_STRINGIFY = 0;
const NATIVE_PARSE = 1;

/** What a run grants the guest before its code runs. */
export interface GuestSetup {
  globalsJson?: string;
  /** Top-level names in `globalsJson`. */
  globalNames?: string[];
  hostFunctionNames: string[];
}

/** Operations of the prelude's dispatcher. */
const enum HelperOp {
  Settle = 0,
  Describe = 1,
  SetGlobals = 2,
  DefineHostFunctions = 3,
  FunctionNames = 4,
  Invoke = 5,
  LoadLibrary = 6,
  Inspect = 7,
}

/** A live QuickJS context with the prelude's helpers held as handles. */
export class GuestContext {
  readonly runtime: QuickJSRuntime;
  readonly context: QuickJSContext;
  /** The prelude's dispatcher `helper(op, a, b)` (see GUEST_PRELUDE_SOURCE), loaded on demand. */
  private helper: QuickJSHandle | undefined;
  private current: RunState | undefined;
  /** The guest's `console` (ours, or what the guest assigned), once first read. */
  private consoleHandle: QuickJSHandle | undefined;
  private memoryLimitBytes: number;
  /** Built-ins taken before any user code runs (see NATIVE_PATHS). */
  private readonly natives: QuickJSHandle[];
  /** The global `JSON` object, the `this` of the captured stringify/parse. */
  private readonly jsonObject: QuickJSHandle;
  private hostFunctionNames = new Set<string>();

  constructor(module: QuickJSWASMModule, memoryLimitBytes: number, private readonly host: GuestHost) {
    this.memoryLimitBytes = memoryLimitBytes;
    this.runtime = module.newRuntime();
    this.runtime.setMaxStackSize(MAX_STACK_SIZE_BYTES);
    this.runtime.setInterruptHandler(() => this.onInterrupt());
    this.context = this.runtime.newContext();
    const ctx = this.context;
    this.jsonObject = ctx.getProp(ctx.global, "JSON");
    this.natives = NATIVE_PATHS.map(([owner, path]) => {
      let value = ctx.getProp(ctx.global, owner);
      for (const key of path === "" ? [] : path.split(".")) {
        const next = ctx.getProp(value, key);
        value.dispose();
        value = next;
      }
      return value;
    });
    // console is made by the host on first use, with host functions that format strings,
    // numbers and booleans themselves; only objects go through the prelude's inspect.
    ctx.defineProp(ctx.global, "console", {
      get: () => {
        this.consoleHandle ??= this.makeConsole();
        return this.consoleHandle.dup();
      },
      set: (value: QuickJSHandle) => {
        this.consoleHandle?.dispose();
        this.consoleHandle = value.dup();
      },
      configurable: true,
      enumerable: false,
    });
    // The prelude's allocations do not count against the user's limit.
    this.runtime.setMemoryLimit(memoryLimitBytes);
  }

  /**
   * Evaluates `code` (prepared: same lines as the user's source) and waits for its result.
   * Never throws for failures of the guest; they come back as a `WorkerOutcome`.
   */
  async evaluate(
    runId: number,
    code: string,
    kind: "script" | "module",
    mode: SettleMode,
    limits: WorkerRunLimits,
    setup: GuestSetup,
    startedMs: number,
  ): Promise<WorkerOutcome> {
    return this.withRun(runId, limits, startedMs, !THROWS_NULL.test(code), () => {
      const ctx = this.context;
      const setupError = this.setUp(setup);
      if (setupError) return setupError;
      const evaluated = ctx.evalCode(code, USER_FILE_NAME, { type: kind === "module" ? "module" : "global" });
      if (evaluated.error) return evaluated.error;
      try {
        this.settle(evaluated.value, mode);
      } finally {
        evaluated.value.dispose();
      }
      return undefined;
    });
  }

  /** Calls a function the session's code defined, with JSON arguments; result = awaited return value. */
  async invoke(
    runId: number,
    name: string,
    argsJson: string,
    limits: WorkerRunLimits,
    hostFunctionNames: string[],
    startedMs: number,
  ): Promise<WorkerOutcome> {
    return this.withRun(runId, limits, startedMs, false, () => {
      const ctx = this.context;
      const setupError = this.setUp({ hostFunctionNames });
      if (setupError) return setupError;
      const called = this.helperCall(HelperOp.Invoke, name, argsJson);
      if (called.error) return called.error;
      try {
        this.settle(called.value, SettleMode.Script);
      } finally {
        called.value.dispose();
      }
      return undefined;
    });
  }

  /** Loads the rest of the prelude now, so a session's baseline of built-in names is exact. */
  loadLibrary(): void {
    this.callHelper(HelperOp.LoadLibrary);
  }

  /** Names of global functions the guest's code defined (not built-ins, not host functions). */
  functionNames(): string[] {
    const r = this.helperCall(HelperOp.FunctionNames);
    if (r.error) {
      r.error.dispose();
      return [];
    }
    const json = this.context.getString(r.value);
    r.value.dispose();
    return JSON.parse(json) as string[];
  }

  /** Settles a host-function call of the current run with the host's answer. */
  reply(runId: number, callId: number, answer: { ok: true; valueJson: string | undefined } | { ok: false; name: string; message: string }): void {
    const run = this.current;
    if (!run || run.runId !== runId) return;
    const deferred = run.deferreds.get(callId);
    if (!deferred) return;
    run.deferreds.delete(callId);
    const ctx = this.context;
    const value = answer.ok
      ? answer.valueJson === undefined
        ? ctx.undefined
        : ctx.newString(answer.valueJson)
      : ctx.newError({ name: answer.name, message: answer.message });
    try {
      if (answer.ok) deferred.resolve(value);
      else deferred.reject(value);
    } catch {
      // Settling can fail only when the guest is out of memory; the run then ends on its own.
    } finally {
      value.dispose();
      deferred.dispose();
    }
    run.wake?.();
  }

  /**
   * Sets the memory limit of the runs to come (a context made ahead of its run learns the
   * run's limit here, before any of its code runs).
   */
  setMemoryLimitBytes(memoryLimitBytes: number): void {
    this.memoryLimitBytes = memoryLimitBytes;
    this.runtime.setMemoryLimit(memoryLimitBytes);
  }

  /** Releases the context and runtime. Throws if QuickJS reports leaked handles. */
  dispose(): void {
    this.consoleHandle?.dispose();
    this.consoleHandle = undefined;
    this.helper?.dispose();
    this.helper = undefined;
    for (const h of this.natives) h.dispose();
    this.jsonObject.dispose();
    this.context.dispose();
    this.runtime.dispose();
  }

  private setUp(setup: GuestSetup): QuickJSHandle | undefined {
    const ctx = this.context;
    if (setup.globalsJson !== undefined && setup.globalNames && setup.globalNames.length > 0) {
      // One JSON string crosses and is parsed inside the guest by its original JSON.parse.
      const json = ctx.newString(setup.globalsJson);
      const parsed = ctx.callFunction(this.natives[NATIVE_PARSE], this.jsonObject, json);
      json.dispose();
      if (parsed.error) return parsed.error;
      try {
        for (const name of setup.globalNames) {
          const value = ctx.getProp(parsed.value, name);
          ctx.setProp(ctx.global, name, value);
          value.dispose();
        }
      } finally {
        parsed.value.dispose();
      }
    }
    const fresh = setup.hostFunctionNames.filter((n) => !this.hostFunctionNames.has(n));
    if (fresh.length > 0) {
      for (const n of fresh) this.hostFunctionNames.add(n);
      const r = this.helperCall(HelperOp.DefineHostFunctions, JSON.stringify(fresh));
      if (r.error) return r.error;
      r.value.dispose();
    }
    return undefined;
  }

  /**
   * Calls the prelude's dispatcher. Strings and numbers are copied in (and freed here);
   * handles are borrowed from the caller.
   */
  private helperCall(op: HelperOp, a?: QuickJSHandle | string | number, b?: QuickJSHandle | string | number) {
    const ctx = this.context;
    const made: QuickJSHandle[] = [];
    const toHandle = (v: QuickJSHandle | string | number | undefined): QuickJSHandle => {
      if (v === undefined) return ctx.undefined;
      if (typeof v === "object") return v;
      const h = typeof v === "string" ? ctx.newString(v) : ctx.newNumber(v);
      made.push(h);
      return h;
    };
    let helper = this.helper;
    if (!helper) {
      try {
        helper = this.helper = this.loadPrelude();
      } catch (error) {
        // Only an interrupted or out-of-memory guest cannot evaluate the prelude.
        return { error: ctx.newError({ name: "InternalError", message: (error as Error).message }) };
      }
    }
    const opHandle = toHandle(op);
    try {
      return ctx.callFunction(helper, ctx.undefined, opHandle, toHandle(a), toHandle(b));
    } finally {
      for (const h of made) h.dispose();
    }
  }

  private makeConsole(): QuickJSHandle {
    const ctx = this.context;
    const object = ctx.newObject();
    const methods: [string, "stdout" | "stderr"][] = [
      ["log", "stdout"],
      ["info", "stdout"],
      ["debug", "stdout"],
      ["warn", "stderr"],
      ["error", "stderr"],
      ["trace", "stderr"],
    ];
    for (const [name, stream] of methods) {
      const fn = ctx.newFunction(name, (...args: QuickJSHandle[]) => this.print(stream, args));
      ctx.setProp(object, name, fn);
      fn.dispose();
    }
    const assert = ctx.newFunction("assert", (condition?: QuickJSHandle, ...rest: QuickJSHandle[]) => {
      if (condition !== undefined && this.truthy(condition)) return;
      const run = this.current;
      if (!run) return;
      this.write(run, "stderr", rest.length > 0 ? `Assertion failed: ${this.format(rest)}\n` : "Assertion failed\n");
    });
    ctx.setProp(object, "assert", assert);
    assert.dispose();
    return object;
  }

  private print(stream: "stdout" | "stderr", args: QuickJSHandle[]): void {
    const run = this.current;
    if (!run || run.abort) return;
    this.write(run, stream, `${this.format(args)}\n`);
  }

  /** Formats console arguments like Node: strings raw, numbers and booleans as text, the rest inspected. */
  private format(args: QuickJSHandle[]): string {
    const ctx = this.context;
    let text = "";
    for (let i = 0; i < args.length; i++) {
      const h = args[i];
      let piece: string;
      switch (ctx.typeof(h)) {
        case "string":
          piece = ctx.getString(h);
          break;
        case "number": {
          const n = ctx.getNumber(h);
          piece = Object.is(n, -0) ? "-0" : String(n);
          break;
        }
        case "boolean":
          piece = ctx.sameValue(h, ctx.true) ? "true" : "false";
          break;
        case "undefined":
          piece = "undefined";
          break;
        default:
          piece = this.inspect(h);
      }
      text += i > 0 ? ` ${piece}` : piece;
    }
    return text;
  }

  private inspect(h: QuickJSHandle): string {
    const r = this.helperCall(HelperOp.Inspect, h);
    if (r.error) {
      r.error.dispose();
      return "[value that cannot be printed]";
    }
    const ctx = this.context;
    const text = ctx.typeof(r.value) === "string" ? ctx.getString(r.value) : "[value that cannot be printed]";
    r.value.dispose();
    return text;
  }

  private truthy(h: QuickJSHandle): boolean {
    const ctx = this.context;
    switch (ctx.typeof(h)) {
      case "boolean":
        return ctx.sameValue(h, ctx.true);
      case "number": {
        const n = ctx.getNumber(h);
        return n !== 0 && !Number.isNaN(n);
      }
      case "string":
        return ctx.getString(h) !== "";
      case "undefined":
        return false;
      case "bigint":
        return this.inspect(h) !== "0n";
      default:
        return !ctx.sameValue(h, ctx.null);
    }
  }

  /** Evaluates the prelude and returns its dispatcher. Throws if the guest cannot run it. */
  private loadPrelude(): QuickJSHandle {
    const ctx = this.context;
    const bridge = ctx.newFunction("bridge", (op, a, b) => this.onBridge(op, a, b));
    const librarySource = ctx.newString(GUEST_LIBRARY_SOURCE);
    try {
      const fn = ctx.unwrapResult(ctx.evalCode(GUEST_PRELUDE_SOURCE, PRELUDE_FILE_NAME));
      try {
        const natives = ctx.newArray();
        try {
          // defineProp, not setProp: an index setter the guest put on Array.prototype must not see them.
          this.natives.forEach((h, i) => ctx.defineProp(natives, i, { value: h, configurable: false, enumerable: true }));
          return ctx.unwrapResult(ctx.callFunction(fn, ctx.undefined, bridge, librarySource, natives));
        } finally {
          natives.dispose();
        }
      } finally {
        fn.dispose();
      }
    } finally {
      librarySource.dispose();
      bridge.dispose();
    }
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
      run.settled = { ok: true, json: this.stringify(value) };
      return;
    }
    this.callHelper(HelperOp.Settle, value, mode);
  }

  private mayBeThenable(value: QuickJSHandle): boolean {
    const ctx = this.context;
    const type = ctx.typeof(value);
    if (type !== "object" && type !== "function") return false;
    try {
      const then = ctx.getProp(value, "then");
      const callable = ctx.typeof(then) === "function";
      then.dispose();
      return callable;
    } catch {
      // A throwing `then` getter: let the prelude's settle meet it inside the guest.
      return true;
    }
  }

  /** JSON text of a guest value, made by the guest's JSON.stringify; undefined if not representable. */
  private stringify(value: QuickJSHandle): string | undefined {
    const ctx = this.context;
    const r = ctx.callFunction(this.natives[NATIVE_STRINGIFY], this.jsonObject, value);
    if (r.error) {
      r.error.dispose();
      return undefined;
    }
    const json = ctx.typeof(r.value) === "string" ? ctx.getString(r.value) : undefined;
    r.value.dispose();
    return json;
  }

  /** Calls a helper whose return value is not needed. */
  private callHelper(op: HelperOp, a?: QuickJSHandle | string | number, b?: QuickJSHandle | string | number): void {
    const r = this.helperCall(op, a, b);
    if (r.error) {
      // settle() only schedules promise reactions; it throws only when the run was interrupted.
      r.error.dispose();
      return;
    }
    r.value.dispose();
  }

  private async withRun(
    runId: number,
    limits: WorkerRunLimits,
    startedMs: number,
    nullMeansOutOfMemory: boolean,
    start: () => QuickJSHandle | undefined,
  ): Promise<WorkerOutcome> {
    const run: RunState = {
      runId,
      nullMeansOutOfMemory,
      limits,
      deadlineMs: startedMs + limits.timeoutMs,
      outputBytes: 0,
      stdoutPending: "",
      stderrPending: "",
      pendingBytes: 0,
      lastFlushMs: startedMs,
      deferreds: new Map(),
      nextCallId: 1,
    };
    this.current = run;
    this.host.mirror?.clear();
    try {
      let thrown: QuickJSHandle | undefined;
      try {
        thrown = start();
      } catch (error) {
        // A host-side call into the guest failed (e.g. interrupted mid-way): report, don't crash.
        return this.failure(run, { name: "InternalError", message: (error as Error).message ?? String(error) }, startedMs);
      }
      if (thrown) return this.failure(run, this.describe(thrown), startedMs);
      for (;;) {
        const jobs = this.runtime.executePendingJobs();
        if (jobs.error) jobs.error.dispose();
        if (run.abort) break;
        if (run.settled) break;
        if (run.deferreds.size === 0) {
          return {
            status: "runtime_error",
            error: {
              name: "Error",
              message:
                "the program's promise never settled: it awaits something that can never resolve " +
                "(there are no timers here, and no host function call is in flight)",
            },
            durationMs: performance.now() - startedMs,
          };
        }
        await this.waitForReply(run);
        if (performance.now() > run.deadlineMs && !run.settled) run.abort = "timeout";
        if (run.abort) break;
      }
      if (run.abort) return this.aborted(run, startedMs);
      const settled = run.settled;
      if (settled && settled.ok) return { status: "success", resultJson: settled.json, durationMs: performance.now() - startedMs };
      return this.failure(run, settled ? parseRaw(settled.errorJson) : undefined, startedMs);
    } finally {
      for (const d of run.deferreds.values()) d.dispose();
      run.deferreds.clear();
      this.lastOutput = { stdout: run.stdoutPending, stderr: run.stderrPending };
      this.current = undefined;
      this.runtime.setMemoryLimit(this.memoryLimitBytes);
    }
  }

  /** Output of the last run not yet sent to the host (goes with the final message). */
  takeOutput(): { stdout: string; stderr: string } {
    const out = this.lastOutput;
    this.lastOutput = { stdout: "", stderr: "" };
    return out;
  }
  private lastOutput = { stdout: "", stderr: "" };

  private waitForReply(run: RunState): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, run.deadlineMs - performance.now()) + 1);
      function done(): void {
        clearTimeout(timer);
        run.wake = undefined;
        resolve();
      }
      run.wake = done;
    });
  }

  private aborted(run: RunState, startedMs: number): WorkerOutcome {
    const durationMs = performance.now() - startedMs;
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

  private failure(run: RunState, raw: RawError | undefined, startedMs: number): WorkerOutcome {
    if (run.abort) return this.aborted(run, startedMs);
    const durationMs = performance.now() - startedMs;
    const error: ExecutionError = raw ? locateError(raw) : { name: "Error", message: "the code failed in a way that cannot be described" };
    if (error.name === "InternalError" && /out of memory/.test(error.message)) {
      return {
        status: "memory_limit",
        error: {
          ...error,
          name: "MemoryLimitError",
          message: `the code used more than ${this.memoryLimitBytes} bytes of memory (${error.message}); use less memory, e.g. process data in smaller pieces`,
        },
        durationMs,
      };
    }
    return { status: "runtime_error", error, durationMs };
  }

  /** Describes a thrown handle through the prelude (with headroom in case memory ran out). */
  private describe(thrown: QuickJSHandle): RawError | undefined {
    const ctx = this.context;
    this.runtime.setMemoryLimit(this.memoryLimitBytes + OOM_DESCRIBE_HEADROOM_BYTES);
    try {
      // QuickJS throws a bare `null` when it runs out of memory while already handling an
      // out-of-memory error (e.g. growing a Map's table), and the memory is freed again by the
      // time we could measure it. A program may `throw null` itself, so a null counts as out
      // of memory only for code with no `throw null` / `reject(null)` in it.
      if (this.current?.nullMeansOutOfMemory && ctx.sameValue(thrown, ctx.null)) {
        return { name: "InternalError", message: "out of memory" };
      }
      const r = this.helperCall(HelperOp.Describe, thrown);
      if (r.error) {
        r.error.dispose();
        return undefined;
      }
      const json = ctx.getString(r.value);
      r.value.dispose();
      return parseRaw(json);
    } finally {
      thrown.dispose();
    }
  }

  private onInterrupt(): boolean {
    const run = this.current;
    if (!run) return false;
    if (run.abort) return true;
    const now = performance.now();
    if (now > run.deadlineMs) {
      run.abort = "timeout";
      return true;
    }
    if (run.pendingBytes > 0 && now - run.lastFlushMs >= OUTPUT_FLUSH_INTERVAL_MS) this.flush(run, now);
    return false;
  }

  private flush(run: RunState, now: number): void {
    // Cleared before sending: in a race the host may miss a chunk, never see one twice.
    this.host.mirror?.clear();
    this.host.output(run.runId, run.stdoutPending, run.stderrPending);
    run.stdoutPending = "";
    run.stderrPending = "";
    run.pendingBytes = 0;
    run.lastFlushMs = now;
  }

  private onBridge(op: QuickJSHandle, a: QuickJSHandle, b: QuickJSHandle): QuickJSHandle | undefined {
    const run = this.current;
    const ctx = this.context;
    if (!run) return undefined;
    switch (ctx.getNumber(op)) {
      case 0:
        this.write(run, ctx.getNumber(a) === 2 ? "stderr" : "stdout", ctx.getString(b));
        return undefined;
      case 1: {
        const name = ctx.getString(a);
        const argsJson = ctx.getString(b);
        const deferred = ctx.newPromise();
        if (!this.hostFunctionNames.has(name)) {
          const error = ctx.newError({ name: "Error", message: `host function ${name} is not available in this run` });
          deferred.reject(error);
          error.dispose();
          // The function machinery disposes the returned handle; reject() freed the resolvers.
          return deferred.handle;
        }
        const callId = run.nextCallId++;
        run.deferreds.set(callId, deferred);
        this.host.call(run.runId, callId, name, argsJson);
        return deferred.handle;
      }
      case 2:
        run.settled = { ok: true, json: ctx.typeof(a) === "string" ? ctx.getString(a) : undefined };
        return undefined;
      case 3:
        run.settled = { ok: false, errorJson: ctx.getString(a) };
        return undefined;
      default:
        return undefined;
    }
  }

  private write(run: RunState, stream: "stdout" | "stderr", text: string): void {
    if (run.abort) return;
    const cap = run.limits.maxOutputBytes;
    let bytes = Buffer.byteLength(text);
    if (run.outputBytes + bytes > cap) {
      text = cutToBytes(text, cap - run.outputBytes);
      bytes = Buffer.byteLength(text);
      run.abort = "output";
    }
    run.outputBytes += bytes;
    run.pendingBytes += bytes;
    if (stream === "stdout") run.stdoutPending += text;
    else run.stderrPending += text;
    // Output must survive a watchdog kill (a built-in that never polls the interrupt handler):
    // it goes to the shared mirror, or, without one (or when it is full), to the host at once.
    const mirror = this.host.mirror;
    const mustSend = mirror ? !mirror.append(stream, text) : run.outputBytes === run.pendingBytes;
    if (run.pendingBytes >= OUTPUT_FLUSH_BYTES || mustSend) {
      this.flush(run, performance.now());
    } else {
      const now = performance.now();
      if (now - run.lastFlushMs >= OUTPUT_FLUSH_INTERVAL_MS) this.flush(run, now);
    }
  }
}

interface RawError {
  name: string;
  message: string;
  stack?: string;
}

function parseRaw(json: string): RawError | undefined {
  try {
    return JSON.parse(json) as RawError;
  } catch {
    return undefined;
  }
}

/** The error reported for a run that passed its time limit. */
export function timeoutError(timeoutMs: number): ExecutionError {
  return {
    name: "TimeoutError",
    message: `the code ran longer than the ${timeoutMs} ms limit and was stopped (look for an endless loop, or do less work)`,
  };
}

/** Longest prefix of `text` that fits in `maxBytes` of UTF-8. */
function cutToBytes(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return "";
  if (text.length <= maxBytes && Buffer.byteLength(text) <= maxBytes) return text;
  const buf = Buffer.from(text).subarray(0, maxBytes);
  // Drop a trailing partial character rather than emit a replacement character.
  return buf.toString("utf8").replace(/\uFFFD$/, "");
}
