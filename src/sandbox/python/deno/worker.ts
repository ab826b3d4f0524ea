/**
 * Deno worker that owns one Pyodide interpreter. It runs inside the runner process, which Deno
 * started with every permission denied except reading the Pyodide files: that process boundary
 * keeps the host's files, network, environment and processes out of reach.
 *
 * This realm is untrusted: Python can reach parts of it (`importlib.import_module("js")`, the
 * constructors behind any JavaScript value; not Pyodide's API, pyodide-api.ts). So before any user code runs, this file captures what it needs
 * (posting to the runner, timers, the real `Memory.prototype.grow`, `Reflect.apply`) in closures
 * and strips the realm's globals: no `Deno`, no `postMessage`, no message listeners, no
 * `Worker`, no network, and timers that exist only while a run is going. The runner does not
 * believe this file either: every message carries the run's nonce, and the runner counts output,
 * time and memory on its own side. What this file adds is precision (MemoryError at the cap,
 * output cut at the exact byte), not the boundary.
 */
import { types as nodeTypes } from "node:util";
import type { loadPyodide as LoadPyodide, PyodideAPI } from "pyodide";
import type { PythonOutcome, PythonTestsOutcome, WorkerMessage, WorkerRequest } from "../shared/protocol.js";
import { collectWorkDir, fileSystemBytes, filesPlace, prepareWorkDir, WORK_DIR, type EmscriptenFs } from "./files.js";
import { installRunInputs } from "./run-inputs.js";
import nodeCrypto from "node:crypto";
import { createHostBridge, replyText } from "./host-bridge.js";
import { installPackages, loadNativePackages, setUpCharts } from "./packages.js";
import { FORBIDDEN_MODULES, PYTHON_PRELUDE } from "./prelude.js";
import { PYTHON_ASYNC_ERRORS_PRELUDE } from "./prelude-async-errors.js";
import { PYTHON_RUN_PRELUDE } from "./prelude-run.js";
import { untrackInternedStrings } from "./interned-strings.js";
import { closePyodideApi } from "./pyodide-api.js";
import { PRELOADED_BEFORE_SEAL, sealImports, type SealModule } from "./import-seal.js";
import { testsNotRun } from "./tests-verdict.js";
import { ENCODER_BUILTINS } from "./value-encoder.js";
import { createRunDriver, type DriverPython, type PyObject, type RunDriver } from "./run-driver.js";
import { scopeAsyncSources, type ProxyRelease } from "./async-sources.js";
import { makeReadOnly, type ReadOnlyFs } from "./read-only-tree.js";
import { reachableGlobals, takeFingerprint, type FingerprintSources } from "./fingerprint.js";
import { captureBaseline, type BaselineModule, type InterpreterBaseline } from "./interpreter-baseline.js";
import { createPurityClassifier, type PurityFs } from "./pure-imports.js";
import { moduleImports, withWatchedInstantiation, type ImportWatch, type InstantiatedPyodide } from "./wasm-imports.js";
import { captureFresh, hashFreshPages, JAVASCRIPT_DIFFERS, restoreImage, takeImage, walkJavascript, type GraphWalk, type FreshInterpreter, type ImageModule } from "./session-image.js";

type Fn = (...args: never[]) => unknown;
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(deltaPages: number): number;
}

// ---- Captured before anything else runs in this realm ------------------------------------
const realm = globalThis as unknown as Record<string, unknown>;
const ReflectApply = Reflect.apply;
const defineProperty = Object.defineProperty;
const freeze = Object.freeze;
const realPost = (realm.postMessage as Fn).bind(globalThis) as unknown as (message: unknown, transfer?: ArrayBuffer[]) => void;
const realListen = (realm.addEventListener as Fn).bind(globalThis) as unknown as (type: string, listener: (event: { data: unknown }) => void) => void;
const realSetTimeout = realm.setTimeout as (fn: () => void, ms?: number) => number;
const realClearTimeout = realm.clearTimeout as (id: number) => void;
const realSetInterval = realm.setInterval as (fn: () => void, ms?: number) => number;
const AtomicsStore = Atomics.store;
const AtomicsExchange = Atomics.exchange;
const JSONParse = JSON.parse;
const JSONStringify = JSON.stringify;
const memoryPrototype = (realm.WebAssembly as { Memory: { prototype: WasmMemory } }).Memory.prototype;
const realGrow = memoryPrototype.grow;
const memoryBufferGetter = Object.getOwnPropertyDescriptor(memoryPrototype, "buffer")!.get!;
const byteLengthGetter = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength")!.get!;
const isProxy = nodeTypes.isProxy as (value: unknown) => boolean;
const WASM_PAGE_BYTES = 65536;
/** Clock and entropy of runs given `inputs`, installed before Pyodide loads (run-inputs.ts). */
const runInputs = installRunInputs(nodeCrypto as unknown as { randomFillSync(view: ArrayBufferView): unknown });

// ---- Memory cap (precision only; the runner's RSS watchdog is the limit) ------------------
// Pyodide's heap is WebAssembly memory, outside V8's heap limit, and Emscripten grows it
// through Memory.prototype.grow. Refusing growth past the cap makes malloc fail, which Python
// turns into MemoryError. Nothing here is looked up on guest-reachable objects at call time.
let capBytes = Number.POSITIVE_INFINITY;
let growRefused = false;
function grow(this: WasmMemory, deltaPages: unknown): number {
  const pages = Number(deltaPages);
  const current = ReflectApply(byteLengthGetter, ReflectApply(memoryBufferGetter, this, []), []) as number;
  if (!(pages >= 0) || current + pages * WASM_PAGE_BYTES > capBytes) {
    growRefused = true;
    throw new RangeError("codegen-sandbox: memory limit reached");
  }
  return ReflectApply(realGrow, this, [pages]) as number;
}
memoryPrototype.grow = grow;

// ---- The worker's own next task ---------------------------------------------------------------
// A run's `done` is posted from a fresh task, after the microtasks the run left. A timer of 0 ms
// waited longer than a millisecond in Deno (its timers have a 1 ms floor, and the idle event loop
// sleeps): a large share of a small session run. A message on
// a channel of the worker's own is a task that comes as soon as the microtasks are done. The
// channel and its ports are made here and held in this closure only (the realm's MessageChannel
// and MessagePort are removed before any user code runs), and postMessage is called as captured.
interface OwnPort {
  onmessage: (() => void) | null;
}
const ownTasks = new (realm.MessageChannel as new () => { port1: OwnPort; port2: OwnPort })();
const portPostMessage = (realm.MessagePort as { prototype: { postMessage: Fn } }).prototype.postMessage;
// A queue without Array methods (the guest can reach and patch Array.prototype) or a prototype.
const queuedTasks = Object.create(null) as Record<number, () => void>;
let firstQueued = 0;
let nextQueued = 0;
ownTasks.port1.onmessage = () => {
  if (firstQueued === nextQueued) return;
  const task = queuedTasks[firstQueued]!;
  delete queuedTasks[firstQueued];
  firstQueued += 1;
  task();
};

/** Runs `task` in a task of its own, after the microtasks pending now (one task per call, in order). */
function nextTask(task: () => void): void {
  queuedTasks[nextQueued] = task;
  nextQueued += 1;
  ReflectApply(portPostMessage, ownTasks.port2, [0]);
}

// ---- Run scope: nonce, output, timers -----------------------------------------------------
/** Nonce of the request being served; only messages carrying it are believed by the runner. */
let nonce = "";
let inRun = false;
/** Changes at the end of every run (async-sources.ts scopes callbacks by it). */
let runEpoch = 0;
let proxyRelease: ProxyRelease | undefined;
/** Timer ids are increasing integers: every timer made during a run lies in [firstTimer, ∞). */
let firstTimer = 0;
let interrupt: Int32Array | undefined;
let outputBytes = 0;
let maxOutputBytes = Number.POSITIVE_INFINITY;
let outputLimitHit = false;
const decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };

function post(message: WorkerMessage, transfer?: ArrayBuffer[]): void {
  realPost({ ...message, nonce }, transfer);
}
/** Host calls, test phase and the end of a waiting run (host-bridge.ts); made before user code. */
const bridge = createHostBridge((message) => post(message));

function writer(stream: "stdout" | "stderr"): { write: (buffer: Uint8Array) => number } {
  return {
    write(buffer: Uint8Array): number {
      if (outputLimitHit || !inRun) return buffer.length;
      let chunk = buffer;
      if (outputBytes + buffer.length > maxOutputBytes) {
        chunk = buffer.subarray(0, Math.max(0, maxOutputBytes - outputBytes));
        outputLimitHit = true;
      }
      outputBytes += chunk.length;
      const text = decoders[stream].decode(chunk, { stream: !outputLimitHit });
      if (text.length > 0) post({ type: "output", stream, text });
      if (outputLimitHit) {
        post({ type: "output-limit" });
        // Ask Python to stop at its next check; the runner kills the worker if it does not.
        if (interrupt) AtomicsStore(interrupt, 0, 2);
      }
      return buffer.length;
    },
  };
}

/** Timers for the guest (and Pyodide's event loop): only during a run, all cleared at its end. */
function scopedTimer(real: (fn: () => void, ms?: number) => number, guest: boolean) {
  return function timer(fn: unknown, ms?: unknown, ...args: unknown[]): number {
    if (!inRun || typeof fn !== "function") return 0;
    if (guest) guestTimerUsed = true;
    return real(() => {
      if (!inRun) return;
      ReflectApply(fn as Fn, undefined, args);
    }, Number(ms) || 0);
  };
}
/**
 * Set once the guest itself started a timer (not Pyodide's event loop): a session image is then
 * refused. Red team: a Python callback given to a guest timer, cleared at the run's end, left a
 * state the image does not carry; the restored session's next `await asyncio.sleep` failed
 * inside Pyodide ("hiwire_get is falsy") where the live one went on.
 */
let guestTimerUsed = false;
const guestSetTimeout = scopedTimer(realSetTimeout, true);
const guestSetInterval = scopedTimer(realSetInterval, true);
/** Pyodide's event loop's later callbacks (scheduleCallback): scoped the same way, not marked. */
const loopSetTimeout = scopedTimer(realSetTimeout, false);
function guestClearTimeout(id: unknown): void {
  if (typeof id === "number" && id >= firstTimer) realClearTimeout(id);
}
/**
 * Pyodide's event loop schedules through this (instead of a MessageChannel of its own that cannot
 * be cancelled). A callback due now (`call_soon`, a future's done callbacks: every `await` of a
 * host call) is a task of the worker's own queue, dropped unless its run is still going: on a
 * timer of 0 ms each such step waited for Deno's 1 ms timer floor, which a cell with one host call
 * paid many times over. A later one is a scoped timer, cleared when the run ends.
 */
function scheduleCallback(fn: unknown, ms?: unknown): void {
  if (!inRun || typeof fn !== "function") return;
  if ((Number(ms) || 0) > 0) {
    loopSetTimeout(fn, ms);
    return;
  }
  const epoch = runEpoch;
  nextTask(() => {
    if (inRun && runEpoch === epoch) ReflectApply(fn as Fn, undefined, []);
  });
}

function beginRun(): void {
  const probe = realSetTimeout(() => undefined, 0);
  realClearTimeout(probe);
  firstTimer = probe;
  inRun = true;
}

/** Everything the run scheduled dies here: timers, intervals, event-loop callbacks, proxies. */
function endRun(): void {
  // Inside the run still: a released proxy's __del__ runs now, not in a later call.
  proxyRelease?.releaseRun();
  inRun = false;
  runEpoch += 1;
  const last = realSetTimeout(() => undefined, 0);
  for (let id = firstTimer; id <= last; id++) realClearTimeout(id);
}

/** The realm the guest can see: no Deno, no messaging, no workers, no network, no real timers. */
function stripRealm(): void {
  const names = [
    "Deno", "postMessage", "close", "addEventListener", "removeEventListener", "dispatchEvent",
    "onmessage", "onmessageerror", "onerror", "onunhandledrejection", "Worker", "SharedWorker", "fetch", "Request",
    "Response", "WebSocket", "WebSocketStream", "EventSource", "BroadcastChannel", "MessageChannel", "MessagePort",
    "importScripts", "navigator", "caches", "indexedDB", "localStorage", "sessionStorage", "location",
    "reportError", "setImmediate", "process", "require", "Buffer", "global",
  ];
  // Not "queueMicrotask": Deno's core replaces it lazily on first internal use (it deletes and
  // redefines the global), so a non-configurable one makes message delivery during a run throw;
  // it gives the guest nothing that Promise.resolve().then does not.
  for (const name of names) {
    try {
      delete realm[name];
      defineProperty(globalThis, name, { value: undefined, writable: false, configurable: false, enumerable: false });
    } catch {
      // A name that cannot be redefined stays undefined after the delete above.
    }
  }
  const guestTimers: Record<string, unknown> = {
    setTimeout: guestSetTimeout,
    setInterval: guestSetInterval,
    clearTimeout: guestClearTimeout,
    clearInterval: guestClearTimeout,
  };
  for (const name of ["setTimeout", "setInterval", "clearTimeout", "clearInterval"]) {
    delete realm[name];
    defineProperty(globalThis, name, { value: guestTimers[name], writable: false, configurable: false, enumerable: true });
  }
  const silent = freeze({ log() {}, info() {}, warn() {}, error() {}, debug() {}, trace() {}, dir() {}, table() {}, assert() {} });
  delete realm.console;
  defineProperty(globalThis, "console", { value: silent, writable: false, configurable: false, enumerable: false });
}

/**
 * Emscripten bound `Module.print` and `Module.printErr` to the real console when Pyodide loaded
 * (before the realm was stripped), and Python reached them as `pyodide_js._module.print` (before
 * pyodide_js was unregistered; kept silent should another route appear): they
 * wrote straight to the process's stdout and stderr, around the run's output cap (the host's
 * byte bound caught it). Replaced by silent functions; Pyodide's own output goes through
 * setStdout/setStderr, not through these.
 */
function silenceModuleConsole(module: Record<string, unknown>): void {
  const silent = freeze(function silent(): void {});
  for (const name of ["print", "printErr"]) {
    defineProperty(module, name, { value: silent, writable: true, configurable: true, enumerable: true });
  }
}

/** Free WebAssembly memory an interpreter starts with above its heap's break (see init). */
const HEAP_HEADROOM_BYTES = 16 * 1024 * 1024;

/** Longest line the terminal devices buffer before it is written out. */
const TTY_LINE_BYTES = 4096;

/**
 * `/dev/tty` and `/dev/tty1` are Emscripten terminals whose default operations write through the
 * console bound at load (to the process's real stdout and stderr, around the output cap) and read
 * the process's real stdin (the supervisor's request pipe; it failed only because `process` is
 * gone from the realm). Writes now go to the run's counted stdout and stderr like any output,
 * in lines of at most 4 KiB (the default kept any number of bytes until a newline); reads fail
 * with EIO, like stdin.
 */
function tameTerminals(module: { TTY: Record<string, unknown>; FS: { ErrnoError: new (errno: number) => Error } }, eio: number): void {
  const routes: Array<[string, "stdout" | "stderr"]> = [["default_tty_ops", "stdout"], ["default_tty1_ops", "stderr"]];
  for (const [name, stream] of routes) {
    const ops = module.TTY[name] as Record<string, unknown> | undefined;
    if (!ops) continue;
    const sink = writer(stream);
    const flush = (tty: { output?: number[] }) => {
      const bytes = tty.output ?? [];
      tty.output = [];
      if (bytes.length > 0) sink.write(Uint8Array.from(bytes));
    };
    ops.put_char = (tty: { output?: number[] }, value: number | null) => {
      if (value === null || value === 10) {
        if (value === 10) (tty.output ??= []).push(10);
        flush(tty);
        return;
      }
      if (value !== 0) (tty.output ??= []).push(value);
      if ((tty.output?.length ?? 0) >= TTY_LINE_BYTES) flush(tty);
    };
    ops.fsync = flush;
    ops.get_char = () => {
      throw new module.FS.ErrnoError(eio);
    };
  }
}

/** What Python's `js` module shows (Pyodide's `jsglobals`): timers only. */
const jsGlobals = freeze({
  setTimeout: guestSetTimeout,
  setInterval: guestSetInterval,
  clearTimeout: guestClearTimeout,
  clearInterval: guestClearTimeout,
});

// ---- Reset in place: a pristine interpreter for every pool run --------------------------------
/**
 * Every call from Pyodide's WebAssembly into JavaScript goes through its import object, which
 * is watched from before the instance exists (wasm-imports.ts). A pool run whose every import
 * call is on the closed list of pure-imports.ts changed nothing but the WebAssembly instance
 * and a few listed JavaScript properties, and interpreter-baseline.ts restores all of those.
 * Any other call, a file given to the run, a limit or a fault: the runner replaces the worker.
 */
let watch: ImportWatch | undefined;
let classifier: ReturnType<typeof createPurityClassifier> | undefined;
let baseline: InterpreterBaseline | undefined;
/** Set when the worker itself changed the interpreter's files for a run (the `files` option). */
let touchedByWorker = "";
/** Why the last reset did not happen (for the bench's fallback count and the tests). */
let resetMiss = "";

function beginWatch(): void {
  watch?.clear();
  classifier?.resetRun();
  touchedByWorker = "";
}

/** Restores the baseline when the run left nothing else; returns whether the interpreter is pristine again. */
function restore(): boolean {
  resetMiss = "no baseline";
  if (!baseline || !watch) return false;
  if (touchedByWorker) {
    resetMiss = touchedByWorker;
    return false;
  }
  if (watch.impure) {
    resetMiss = `the run called ${watch.impure}`;
    return false;
  }
  resetMiss = baseline.restore();
  return resetMiss === "";
}

// ---- Pyodide ---------------------------------------------------------------------------------
let pyodide: PyodideAPI | undefined;
let baselineHeapBytes = 0;
/** Bytes of file contents when the interpreter was ready (the standard library, packages). */
let baselineFileBytes = 0;

function heapBytes(py: PyodideAPI): number {
  // `_module` is Pyodide's Emscripten module; its HEAPU8 views the whole WebAssembly memory.
  return (py as unknown as { _module: { HEAPU8: Uint8Array } })._module.HEAPU8.length;
}

/** What loading gave back besides the API: the import watch and the instance (absent for the snapshot maker). */
let instantiated: InstantiatedPyodide | undefined;

async function load(pyodideUrl: string, snapshot: Uint8Array | undefined, makeSnapshot: boolean): Promise<PyodideAPI> {
  const module = (await import(`${pyodideUrl}pyodide.mjs`)) as { loadPyodide: typeof LoadPyodide };
  // Pyodide under Deno reads its files by path, not by URL.
  const start = () =>
    module.loadPyodide({
      indexURL: decodeURIComponent(new URL(pyodideUrl).pathname),
      // A fixed hash seed: the order of a set of strings is the same in every interpreter, on every
      // machine (a thread's replay in another process must see the order its first run saw). The
      // snapshot carries it; its file name says so (deno-paths.ts).
      env: { HOME: "/home/pyodide", PYTHONHASHSEED: "0" },
      ...(makeSnapshot ? {} : { jsglobals: jsGlobals }),
      ...(snapshot ? { _loadSnapshot: snapshot } : {}),
      ...(makeSnapshot ? { _makeSnapshot: true } : {}),
    });
  if (makeSnapshot) return start();
  const loaded = await withWatchedInstantiation(start);
  watch = loaded.watch;
  instantiated = loaded.instantiated;
  return loaded.value;
}

/** Tests only: the interpreter's fingerprint when it was ready the first time (fingerprint.ts). */
let baselineFingerprint: Record<string, string> | undefined;

/** The baseline's JavaScript graph, line by line, to say what differs later (tests only). */
const fingerprintReference = { lines: [] as string[] };

function fingerprintNow(): Record<string, string> {
  return takeFingerprint(fingerprintSources(), fingerprintReference);
}

function fingerprintSources(): FingerprintSources {
  const py = pyodide!;
  const module = (py as unknown as { _module: BaselineModule & { ENV: Record<string, unknown>; FS: FingerprintSources["fs"] } })._module;
  return {
    heap: () => module.HEAPU8,
    globals: () => [module.___stack_pointer.value, module._emscripten_stack_get_base(), module._emscripten_stack_get_end(), module._getTempRet0(), ...gotGlobals(instantiated!).map((g) => Number(g.value))],
    tableLength: () => module.wasmTable.length,
    hiwire: () => {
      const parts: string[] = [];
      for (let i = 0; i < 1024; i++) {
        const info = module.__hiwire_slot_info(i);
        if (info !== 0) parts.push(`${i}:${info}:${(info & 1) === 1 ? typeof module.__hiwire_get(i) : ""}`);
      }
      return parts.join(" ");
    },
    fs: module.FS,
    env: module.ENV,
    roots: { pyodide_js: py, js: jsGlobals, module, api: (py as unknown as { _api: object })._api, global: globalThis },
    isProxy,
  };
}

/**
 * What Python can get hold of in JavaScript through `js`, as names (tests only). Pyodide's API,
 * its Emscripten module and its internal API are named, to show they stay out of reach
 * (pyodide-api.ts). Python-side references are checked from Python by the tests.
 */
function reachableFromPython(): string {
  const secrets = new Map<unknown, string>([
    [pyodide, "<pyodide api>"],
    [(pyodide as unknown as { _module: object })._module, "<emscripten module>"],
    [(pyodide as unknown as { _api: object })._api, "<pyodide internal api>"],
    [(pyodide as unknown as { _module: { HEAPU8: { buffer: object } } })._module.HEAPU8.buffer, "<interpreter memory>"],
  ]);
  return reachableGlobals({ js: jsGlobals }, isProxy, secrets).join(" ");
}

/** The imported GOT globals of the instance (mutable WebAssembly globals set by JavaScript). */
function gotGlobals(found: InstantiatedPyodide): Array<{ value: unknown }> {
  const globals: Array<{ value: unknown }> = [];
  for (const entry of moduleImports(found.module)) {
    if (entry.kind !== "global") continue;
    const global = (found.imports[entry.module] as Record<string, unknown> | undefined)?.[entry.name];
    if (global !== null && typeof global === "object" && "value" in global) globals.push(global as { value: unknown });
  }
  return globals;
}

/** The prelude's own module namespace (not in sys.modules), captured at init. */
let runtimeNamespace: { get(name: string): unknown; set(name: string, value: unknown): void } | undefined;
/** C-level callables and the program's namespace, captured at init for the tests step. */
let clearTracing: (() => void) | undefined;

/** The prelude functions the worker calls. */
const ENTRY_POINTS = ["_cs_prepare_run", "_cs_prepare_call", "_cs_describe_exception", "_cs_format_exception", "_cs_result_text", "_cs_host_reply", "_cs_flush_step", "_cs_check", "_cs_functions", "_cs_unobserved", "_cs_async_quiet"];

/** Prelude functions, looked up once (at init): each lookup would otherwise leave a proxy behind. */
const entryPoints = new Map<string, (...args: unknown[]) => unknown>();
function entryPoint(name: string): (...args: unknown[]) => unknown {
  let entry = entryPoints.get(name);
  if (!entry) {
    entry = runtimeNamespace!.get(name) as (...args: unknown[]) => unknown;
    entryPoints.set(name, entry);
  }
  return entry;
}

/** Runs programs, session calls and tests with an await; decides how they ended (run-driver.ts). */
let driver: RunDriver | undefined;

function faultOutcome(error: unknown): PythonOutcome {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  if (growRefused) {
    return { status: "memory_limit", error: { name: "MemoryError", message: "the program ran out of its memory limit" } };
  }
  if (text.includes("Maximum call stack size exceeded")) {
    return {
      status: "runtime_error",
      error: { name: "RecursionError", message: "maximum recursion depth exceeded (the interpreter's stack overflowed); use iteration or less recursion" },
    };
  }
  // The realm has no Deno and no process: Emscripten's system() and friends fail on them.
  if (text.includes("NotCapable") || text.includes("PermissionDenied") || /Deno is not defined|process is not defined|reading 'env'/.test(text)) {
    return {
      status: "runtime_error",
      error: { name: "PermissionError", message: `the sandbox denied a host operation (no files, network, environment or processes): ${text.slice(0, 300)}` },
    };
  }
  return { status: "runtime_error", error: { name: "InterpreterError", message: `the Python interpreter failed: ${text.slice(0, 500)}` } };
}

/** Options passed to the prelude's entry points as one JSON object (easy to extend). */
type EntryOptions = Record<string, unknown>;
type Done = { outcome: PythonOutcome; fatal: boolean };

/** Runs `work` under the request's memory and output caps (precision only; see the top of the file). */
async function limited(memoryLimitBytes: number, outputCap: number, work: () => Promise<Done>): Promise<Done> {
  decoders.stdout = new TextDecoder();
  decoders.stderr = new TextDecoder();
  outputBytes = 0;
  outputLimitHit = false;
  maxOutputBytes = outputCap;
  growRefused = false;
  capBytes = baselineHeapBytes + memoryLimitBytes;
  try {
    const done = await work();
    if (growRefused && !done.fatal && (done.outcome.status === "runtime_error" || done.outcome.tests?.error?.name === "MemoryError")) {
      return { ...done, outcome: { ...done.outcome, status: "memory_limit" } };
    }
    return done;
  } catch (error) {
    // A JavaScript-level fault (stack overflow, denied host call) leaves Pyodide unusable.
    return { outcome: faultOutcome(error), fatal: true };
  } finally {
    capBytes = Number.POSITIVE_INFINITY;
  }
}

/**
 * A session keeps its interpreter: its memory limit counts what it keeps, the WebAssembly memory
 * it grew and the bytes of its in-memory files (JavaScript-side). Past the limit the call ends
 * `memory_limit` and the interpreter is replaced (the session ends).
 */
function sessionKeepsTooMuch(done: Done, memoryLimitBytes: number): Done {
  if (done.fatal || !pyodide) return done;
  const module = (pyodide as unknown as { _module: { FS: { root: unknown; isDir(mode: number): boolean; isFile(mode: number): boolean } } })._module;
  const kept = heapBytes(pyodide) - baselineHeapBytes + fileSystemBytes(module.FS.root as never, module.FS) - baselineFileBytes;
  if (kept <= memoryLimitBytes) return done;
  return {
    outcome: { status: "memory_limit", error: { name: "MemoryError", message: `the session keeps ${kept} bytes (memory and files) past its ${memoryLimitBytes}-byte limit; its interpreter was stopped` } },
    fatal: true,
  };
}

/** A program or a session call, run by the driver with the run's seed. */
async function entryDone(kind: "run" | "call", first: string, options: EntryOptions): Promise<Done & { exited?: string }> {
  // The run's generator when it was given inputs (a replay repeats it), else real entropy.
  const seed = runInputs.words();
  const optionsJson = JSONStringify({ ...options, seed: `${seed[0]}${seed[1]}${seed[2]}${seed[3]}` });
  const maxResultBytes = typeof options.maxResultBytes === "number" ? options.maxResultBytes : 1 << 20;
  // A session's tasks may run on in its next call: only a pool run's pending tasks are lost.
  const pendingLost = kind === "run" && options.session !== true;
  return kind === "run" ? driver!.runProgram(first, optionsJson, maxResultBytes, pendingLost) : driver!.callFunction(first, optionsJson, maxResultBytes);
}

/**
 * The tests step of a run, decided by the worker: the phase starts here (not when Python says
 * so), tracing and monitoring hooks the program left are cleared, and tests without an `await`
 * are executed by the interpreter's C-level `exec` in the program's namespace, called from here:
 * passed when it returns, failed when it raises. No Python function the program could have
 * rewritten stands between the tests and their verdict (the program can still lie in the
 * values it gives the tests, e.g. with an `__eq__` that always says yes: see docs/security.md).
 */
async function runTests(program: Done & { exited?: string }, tests: string, run: number): Promise<PythonTestsOutcome> {
  if (program.exited !== undefined) return { status: "not_run", reason: `the program called ${program.exited} before the tests ran` };
  if (program.outcome.status !== "success") return testsNotRun(program.outcome);
  // The program's task flushed its streams (a replaced stream's flush is the guest's code).
  post({ type: "phase", run, phase: "tests" });
  clearTracing!();
  return driver!.runTests(tests);
}

function isPythonError(error: unknown): error is { type: string; message: string } {
  return error instanceof Error && typeof (error as { type?: unknown }).type === "string";
}

/**
 * Runs one request's Python inside the run scope; `done` is posted from a fresh task, after the
 * microtasks it left. With `reset`, the interpreter's memory is restored to its baseline after
 * `done` when the run left nothing outside it, and a `reset` message says whether that worked.
 */
async function serve(work: () => Promise<{ outcome: PythonOutcome; fatal: boolean }>, after?: (fatal: boolean) => Partial<WorkerMessage>, reset = false): Promise<void> {
  beginRun();
  let done: { outcome: PythonOutcome; fatal: boolean };
  try {
    done = await work();
  } catch (error) {
    done = { outcome: faultOutcome(error), fatal: true };
  }
  bridge.end();
  driver?.abandon();
  // The run's timers die now, before any of them can fire (one that came due during a long run
  // would otherwise run before the task below); microtasks the run left still drain first.
  endRun();
  nextTask(() => {
    const extra = after?.(done.fatal) ?? {};
    post({ ...extra, type: "done", outcome: done.outcome, fatal: done.fatal } as WorkerMessage);
    if (!reset) return;
    // After the reply, so the caller does not wait for the copy; the runner waits for this
    // message before it calls the interpreter ready again.
    const fresh = !done.fatal && restore();
    post({ type: "reset", fresh, ...(fresh ? {} : { resetMiss: done.fatal ? "fault" : resetMiss }) });
  });
}

realListen("message", (event) => {
  const request = event.data as WorkerRequest & { nonce?: string };
  // Host replies and interrupts belong to the run in progress: they carry its nonce and keep it.
  if (request.type === "host-reply" || request.type === "interrupt") {
    if (request.nonce === nonce) onRunMessage(request);
    return;
  }
  // No reply and no run: it keeps the nonce of the run in progress.
  if (request.type === "prepare-images") return prepareImages(request.keep === true);
  nonce = typeof request.nonce === "string" ? request.nonce : "";
  void handle(request).catch((error: unknown) => {
    post({ type: "failed", message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  });
});

/** A host reply or an interrupt for the run in progress (already matched to its nonce). */
function onRunMessage(request: Extract<WorkerRequest, { type: "host-reply" | "interrupt" }>): void {
  if (!pyodide) return;
  if (request.type === "host-reply") {
    if (!bridge.isCurrent(request.run)) return;
    try {
      entryPoint("_cs_host_reply")(request.callId, replyText(request));
    } catch {
      // Python refused the reply (an interrupt pending); the runner's limit ends the run.
    }
    return;
  }
  // Python is idle at an await (a busy Python never lets this message in): throw the
  // interrupt into the run's coroutine; a run that ignores it is killed by the runner.
  if (!bridge.isCurrent(request.run) || !driver?.waiting() || !interrupt) return;
  AtomicsStore(interrupt, 0, 0);
  try {
    driver.interrupt();
  } catch {
    // The run ends through the runner's hard kill.
  }
  // The cancellation reaches the coroutine from the event loop (a few turns): a run still going
  // after that gets KeyboardInterrupt at its next bytecode (one that waits again is killed).
  const flag = interrupt;
  realSetTimeout(() => {
    if (driver?.waiting()) AtomicsStore(flag, 0, 2);
  }, 50);
}

// ---- Session images (session-image.ts) --------------------------------------------------------
/** The clock (2026-01-01T00:00:00Z, then a millisecond a reading) and seed a session interpreter starts on. */
const FRESH_INPUTS = { seed: "5e551011000000000000000000000001", clockReads: [1_767_225_600_000] };
/** A session's fresh state, captured at init; images are taken against it and restored into it. */
let fresh: FreshInterpreter | undefined;
/** Set by the first run or call (and by a restore): an image is restored only into a fresh interpreter. */
let ranUserCode = false;
/** Objects Python may hold that an image names: object → name, and name → object. */
let capabilityNames: Map<unknown, string> | undefined;
let capabilityObjects: Map<string, unknown> | undefined;
/** The fresh interpreter's hiwire objects and the capabilities, in a fixed order: roots of the JavaScript walk. */
let heldRoots: unknown[] = [];

function imageModule(): ImageModule {
  return (pyodide as unknown as { _module: ImageModule })._module;
}

function javascriptWalk(): GraphWalk {
  const py = pyodide!;
  const module = imageModule();
  return walkJavascript({ api: (py as unknown as { _api: object })._api, globals: globalThis, js: jsGlobals, module: module as unknown as object, pyodide: py, held: heldRoots }, module.FS, isProxy);
}

function currentJavascriptHash(): string {
  const walk = javascriptWalk();
  walk.step(Number.POSITIVE_INFINITY);
  return walk.digest();
}

/** The fresh interpreter's JavaScript walk, made in the background (a restore compares with it). */
let freshWalk: GraphWalk | undefined;

/** Pages hashed per background task: a chunk small enough that a run arriving meanwhile barely waits. */
const FRESH_HASH_CHUNK = 512;

/** Objects walked per background task (small, for the same reason). */
const FRESH_WALK_CHUNK = 500;

/** Set when the host said this session will be imaged (`sandbox.createSession({ snapshottable: true })`). */
let imagesWanted = false;
let backgroundStarted = false;

/**
 * Between requests, while the session is fresh and it was asked to prepare (a session started
 * ahead, or one that will be imaged): hashes its memory's pages, then walks its JavaScript side
 * (only a restore needs that walk; the first run abandons it). Chunks come from a timer, not from
 * the worker's own task queue: that queue runs before the runner's messages.
 */
function hashFreshInBackground(): void {
  if (!fresh || ranUserCode) return;
  if (inRun) return void realSetTimeout(hashFreshInBackground, 20);
  if (!hashFreshPages(imageModule(), fresh, FRESH_HASH_CHUNK)) return void realSetTimeout(hashFreshInBackground, 1);
  freshWalk ??= javascriptWalk();
  if (!freshWalk.step(FRESH_WALK_CHUNK)) realSetTimeout(hashFreshInBackground, 1);
}

function prepareImages(keep: boolean): void {
  if (!fresh || ranUserCode) return;
  if (keep) imagesWanted = true;
  if (!backgroundStarted) {
    backgroundStarted = true;
    realSetTimeout(hashFreshInBackground, 1);
  }
}

/**
 * Before the first code of any kind runs: a session that will be imaged finishes hashing its
 * fresh memory (what the background had not hashed yet); any other lets its fresh state go.
 */
function leaveFresh(): void {
  if (!fresh || ranUserCode) return;
  freshWalk = undefined;
  if (imagesWanted) hashFreshPages(imageModule(), fresh, Number.POSITIVE_INFINITY);
  else fresh = undefined;
}

/** Finishes hashing the fresh memory (a restore needs it now). */
function finishFreshHashes(): void {
  if (fresh && !ranUserCode) hashFreshPages(imageModule(), fresh, Number.POSITIVE_INFINITY);
}

/** The fresh interpreter's JavaScript hash (finishing the background walk). */
function freshJavascriptHash(): string {
  freshWalk ??= javascriptWalk();
  freshWalk.step(Number.POSITIVE_INFINITY);
  return freshWalk.digest();
}

async function handle(request: WorkerRequest): Promise<void> {
  switch (request.type) {
    case "make-snapshot": {
      const py = await load(request.pyodideUrl, undefined, true);
      installPackages(py, request.packages, true);
      // Imported here, where the snapshot keeps them, rather than by every interpreter's seal
      // (compiled from source they took seconds on a loaded machine).
      py.runPython(`import importlib as _cs_il\nfor _cs_name in ${JSONStringify(PRELOADED_BEFORE_SEAL)}:\n    try:\n        _cs_il.import_module(_cs_name)\n    except ImportError:\n        pass\ndel _cs_il, _cs_name`);
      const bytes = py.makeMemorySnapshot();
      post({ type: "snapshot", bytes }, [bytes.buffer as ArrayBuffer]);
      return;
    }
    case "init": {
      // A session's interpreter starts on a fixed clock and generator: every fresh session
      // interpreter of this build is then the same, byte for byte (file times included), so an
      // image carries only what the session changed (session-image.ts). Its first run reseeds
      // Python's `random` from real entropy unless the run is given inputs.
      if (request.session) runInputs.begin(FRESH_INPUTS);
      const py = await load(request.pyodideUrl, request.snapshot, false);
      // Pyodide keeps its load options as `_api.config`, and the init message holds the 31 MB
      // snapshot too: both dropped (its bytes were copied into the interpreter's memory), so
      // V8 can free that copy (the snapshot's size, per process).
      const loadConfig = (py as unknown as { _api: { config?: Record<string, unknown> } })._api.config;
      if (loadConfig) delete loadConfig._loadSnapshot;
      delete (request as { snapshot?: Uint8Array }).snapshot;
      installPackages(py, request.packages, false);
      await loadNativePackages(py, request.packages);
      setUpCharts(py, request.packages);
      // The standard library, site-packages and lib-dynload cannot be changed by any descriptor.
      const modFs = py as unknown as { _module: { FS: ReadOnlyFs; ERRNO_CODES: Record<string, number> } };
      makeReadOnly(modFs._module.FS, "/lib", modFs._module.ERRNO_CODES.EROFS ?? 69);
      interrupt = new Int32Array(request.interruptBuffer);
      py.setInterruptBuffer(interrupt);
      // Pyodide's default stdin reads the process's real file descriptor 0 (through node:fs,
      // captured at load): the runner's request pipe. A guest reading it would steal (or block
      // on) the host's next messages, even from a terminated worker. Reads fail instead.
      py.setStdin({ error: true });
      py.setStdout(writer("stdout"));
      py.setStderr(writer("stderr"));
      const api = (py as unknown as { _api: Record<string, unknown> })._api;
      api.scheduleCallback = scheduleCallback;
      // The prelude runs in a module namespace of its own; programs run in __main__.
      type Dict = { get(name: string): unknown; set(name: string, value: unknown): void };
      const runtime = py.runPython("import types as _t\n_t.ModuleType('_cs_runtime').__dict__") as Dict;
      py.runPython(
        `_CS_FORBIDDEN_JSON = ${JSONStringify(JSONStringify(FORBIDDEN_MODULES))}\n_CS_PACKAGES_JSON = ${JSONStringify(JSONStringify(request.packages.topLevel))}\n_CS_LOCK_IMPORTS_JSON = ${JSONStringify(JSONStringify(request.packages.lockImports))}\n${PYTHON_PRELUDE}\n${PYTHON_RUN_PRELUDE}\n${PYTHON_ASYNC_ERRORS_PRELUDE}`,
        { globals: runtime as never },
      );
      runtime.set("_cs_hooks", bridge.hooks);
      const inRuntime = (code: string) => py.runPython(code, { globals: runtime as never });
      closePyodideApi({ unregisterJsModule: (name) => py.unregisterJsModule(name), evaluate: inRuntime });
      runtimeNamespace = runtime;
      // Every entry point is looked up now, before any run: proxies made during a run are
      // released at its end (async-sources.ts).
      for (const name of ENTRY_POINTS) entryPoint(name);
      // Destroyed at once: a proxy left to the garbage collector would change the memory
      // (a reference count) at a moment of the collector's choosing, after the baseline.
      const install = runtime.get("_cs_install_scheduler") as ((fn: unknown) => void) & { destroy(): void };
      install(scheduleCallback);
      install.destroy();
      // From here the forbidden modules are absent (before any guest code and the baseline).
      sealImports((py as unknown as { _module: SealModule })._module, FORBIDDEN_MODULES, inRuntime, (name) => py.unregisterJsModule(name));
      // A pool interpreter gets headroom above the heap's break, before the baseline: a run that
      // allocates a few MiB and frees them (a list of small objects) fits without growing the
      // memory, which the reset cannot undo (the worker would be replaced). Not for a session:
      // it is never reset, and its memory limit counts what it keeps of the process.
      if (!request.session) {
        const heapModule = (py as unknown as { _module: { HEAPU8: Uint8Array; growMemory(size: number): unknown } })._module;
        heapModule.growMemory(heapModule.HEAPU8.byteLength + HEAP_HEADROOM_BYTES);
      }
      untrackInternedStrings({
        evaluate: inRuntime,
        module: (py as unknown as { _module: Parameters<typeof untrackInternedStrings>[0]["module"] })._module,
      });
      // C-level callables for the tests step, captured before any program ran (kept for good).
      const cLevel = (expression: string) => inRuntime(expression) as (...args: unknown[]) => unknown;
      const settrace = cLevel("__import__('sys').settrace");
      const setprofile = cLevel("__import__('sys').setprofile");
      const freeTool = cLevel("__import__('sys').monitoring.free_tool_id");
      clearTracing = () => {
        // undefined crosses as None (null would be JsNull).
        settrace(undefined);
        setprofile(undefined);
        for (let tool = 0; tool < 6; tool++) {
          try {
            freeTool(tool);
          } catch {
            // Not in use.
          }
        }
      };
      const builtin = (name: string) => cLevel(`__import__('builtins').${name}`) as unknown as PyObject;
      const entry = (name: string) => entryPoint(name) as unknown as (...args: unknown[]) => unknown;
      const PyProxyClass = (py as unknown as { ffi: { PyProxy: new () => unknown } }).ffi.PyProxy;
      // Taken before any program ran (the realm is the guest's afterwards).
      const setInterruptBuffer = py.setInterruptBuffer.bind(py) as (buffer: Int32Array | undefined) => void;
      const python: DriverPython = {
        exec: builtin("exec"),
        eval: builtin("eval"),
        compile: builtin("compile"),
        hasattr: builtin("hasattr"),
        type: builtin("type"),
        dict: builtin("dict"),
        list: builtin("list"),
        stops: cLevel("(SystemExit, KeyboardInterrupt)") as unknown as PyObject,
        keeps: cLevel("(SystemExit, KeyboardInterrupt, MemoryError)") as unknown as PyObject,
        task: cLevel("__import__('_asyncio').Task") as unknown as PyObject,
        loop: cLevel("__import__('asyncio').get_event_loop()") as unknown as PyObject,
        mainNamespace: runtime.get("_CS_MAIN") as PyObject,
        slot: runtime.get("_CS_SLOT") as PyObject,
        topLevelAwait: Number(runtime.get("_CS_TLA")),
        prepareRun: entry("_cs_prepare_run"),
        prepareCall: entry("_cs_prepare_call"),
        describe: entry("_cs_describe_exception"),
        format: entry("_cs_format_exception"),
        flushStep: entryPoint("_cs_flush_step") as unknown as PyObject,
        resultTextStep: entryPoint("_cs_result_text") as unknown as PyObject,
        describeStep: entryPoint("_cs_describe_exception") as unknown as PyObject,
        formatStep: entryPoint("_cs_format_exception") as unknown as PyObject,
        asyncQuiet: entry("_cs_async_quiet"),
        unobservedStep: entryPoint("_cs_unobserved") as unknown as PyObject,
        anything: cLevel("BaseException") as unknown as PyObject,
        issubclass: builtin("issubclass"),
        systemExit: cLevel("SystemExit") as unknown as PyObject,
        exitCode: cLevel("SystemExit.__dict__['code'].__get__") as unknown as PyObject,
        slice: builtin("slice"),
        encoderBuiltins: cLevel(`(${ENCODER_BUILTINS})`) as unknown as PyObject,
        mask: () => {
          setInterruptBuffer(undefined);
          return interrupt !== undefined && AtomicsExchange(interrupt, 0, 0) !== 0;
        },
        unmask: () => setInterruptBuffer(interrupt),
        isProxy: (value: unknown): value is PyObject => (typeof value === "object" || typeof value === "function") && value !== null && value instanceof PyProxyClass,
      };
      driver = createRunDriver(python, isPythonError);
      pyodide = py;
      const module = (py as unknown as { _module: BaselineModule & PurityFs })._module;
      // Before the baseline is taken: the devices are part of every interpreter's start.
      runInputs.replaceEntropyDevices(module.FS as unknown as Parameters<typeof runInputs.replaceEntropyDevices>[0]);
      stripRealm();
      silenceModuleConsole(module as unknown as Record<string, unknown>);
      tameTerminals(module as unknown as Parameters<typeof tameTerminals>[0], modFs._module.ERRNO_CODES.EIO ?? 29);
      proxyRelease = scopeAsyncSources(
        { setTimeout: (fn, ms) => guestSetTimeout(fn, ms), epoch: () => runEpoch, inRun: () => inRun },
        (py as unknown as { _module: Parameters<typeof scopeAsyncSources>[1] })._module,
        (ptr) => (py as unknown as { _module: { _Py_DecRef(ptr: number): void } })._module._Py_DecRef(ptr),
      );
      // Until the classifier is set every import call counts as a change.
      const pyApi = (py as unknown as { _api: { isPyProxy(value: unknown): boolean } })._api;
      const isPyProxyNow = pyApi.isPyProxy;
      const proxyAttrs = (module as unknown as { PyProxy_getAttrs(value: unknown): { props: { roundtrip: boolean } } }).PyProxy_getAttrs;
      const isPlainPyProxy = (value: unknown): boolean => {
        try {
          return isPyProxyNow(value) && !proxyAttrs(value).props.roundtrip;
        } catch {
          return false; // destroyed
        }
      };
      classifier = createPurityClassifier(module.FS as unknown as PurityFs, [module.FS.streams[0], module.FS.streams[1], module.FS.streams[2]], isProxy, isPlainPyProxy);
      watch!.setClassifier(classifier);
      // One throwaway run pages in the code paths of a run, so the first real run is fast.
      const warmUp = async () => {
        beginRun();
        beginWatch();
        bridge.begin(0, []);
        await limited(256 * 1024 * 1024, 0, () => entryDone("run", "pass", { globals: {}, session: false, maxResultBytes: 0 }));
        bridge.end();
        endRun();
      };
      await warmUp();
      if (request.session) runInputs.end();
      baselineHeapBytes = heapBytes(py);
      baselineFileBytes = fileSystemBytes(module.FS.root as never, module.FS as never);
      // Pool interpreters keep a baseline to reset to; a session's state is meant to last.
      if (!request.session) {
        baseline = captureBaseline(module, [(py as unknown as { _api: object })._api], gotGlobals(instantiated!));
        // A second warm-up must be pure and restorable, or no run will be reset in place.
        await warmUp();
        if (!restore()) baseline = undefined;
      }
      if (request.session) {
        fresh = captureFresh(module as unknown as ImageModule, gotGlobals(instantiated!));
        const named: Array<[unknown, string]> = [[jsGlobals, "js"], [scheduleCallback, "scheduler"], [bridge.hooks, "hooks"], [bridge.hooks.hostCall, "hooks.hostCall"]];
        for (const [name, value] of Object.entries(jsGlobals)) named.push([value, `js.${name}`]);
        capabilityNames = new Map(named);
        capabilityObjects = new Map(named.map(([value, name]) => [name, value]));
        heldRoots = [...fresh.slots.values(), ...fresh.immortals, ...named.map(([value]) => value)];
      }
      if (request.introspection) baselineFingerprint = { ...fingerprintNow(), reachable: reachableFromPython() };
      post({ type: "ready" });
      return;
    }
    case "session-image": {
      if (!fresh || !pyodide || !capabilityNames) {
        post({ type: "session-image", refused: "the session was not opened for snapshots (sandbox.createSession({ snapshottable: true }))" });
        return;
      }
      if (fresh.digest === "") {
        post({ type: "session-image", refused: "the fresh memory was not hashed" });
        return;
      }
      if (guestTimerUsed) {
        post({ type: "session-image", refused: "a run started a JavaScript timer (what it leaves behind is not carried)" });
        return;
      }
      let image: ReturnType<typeof takeImage>;
      try {
        image = takeImage(imageModule(), { fresh, got: gotGlobals(instantiated!), capabilities: capabilityNames, javascript: currentJavascriptHash() });
      } catch {
        // Nothing of a thrown value is read: it may be the guest's.
        image = "the image could not be taken (the engine threw while reading the session)";
      }
      if (typeof image === "string") post({ type: "session-image", refused: image });
      else post({ type: "session-image", image: image as unknown as Extract<WorkerMessage, { type: "session-image" }>["image"] }, [image.pageIndex.buffer as ArrayBuffer, image.pages.buffer as ArrayBuffer, image.fileBytes.buffer as ArrayBuffer]);
      return;
    }
    case "session-restore": {
      if (!fresh || !pyodide || !capabilityObjects) {
        post({ type: "session-restored", refused: "this interpreter keeps no fresh state (not a session)" });
        return;
      }
      if (ranUserCode) {
        post({ type: "session-restored", refused: "this session has already run code" });
        return;
      }
      const module = imageModule();
      finishFreshHashes();
      const restoreWith = (javascript: string) =>
        restoreImage(module, request.image, {
          fresh: fresh!,
          capabilities: capabilityObjects!,
          javascript,
          grow: (bytes) => (module as unknown as { growMemory(size: number): unknown }).growMemory(bytes) === 1 || module.HEAPU8.byteLength >= bytes,
        });
      // Every fresh session interpreter of a build walks alike: the host keeps the hash of a walk
      // (beside the Pyodide snapshot) and gives it to later restores. When the image's hash is not
      // that one, this interpreter walks itself (a refusal touched nothing): a kept hash that went
      // stale costs a walk, never a wrong restore or a refusal.
      let refused = request.freshJavascript === undefined ? undefined : restoreWith(request.freshJavascript);
      if (request.freshJavascript === undefined || refused === JAVASCRIPT_DIFFERS) refused = restoreWith(freshJavascriptHash());
      if (refused === undefined) ranUserCode = true;
      const walked = freshWalk && freshWalk.digest() !== "" ? { freshJavascript: freshWalk.digest() } : {};
      // What the restored session keeps, as sessionKeepsTooMuch counts it: the runner moves its
      // resident-memory floor up by the restore's own garbage (the image's copies), not by this.
      const keptBytes = refused === undefined ? heapBytes(pyodide) - baselineHeapBytes + fileSystemBytes(module.FS.root as never, module.FS as never) - baselineFileBytes : 0;
      post({ type: "session-restored", ...(refused === undefined ? { keptBytes } : { refused }), ...walked });
      return;
    }
    case "run":
    case "call": {
      leaveFresh();
      const firstRun = !ranUserCode;
      ranUserCode = true;
      const { extras } = request;
      const fs = (pyodide as unknown as { FS: EmscriptenFs }).FS;
      const place = filesPlace(extras.filesAtRoot === true);
      // The run's clock starts before its files are placed: their timestamps are readings too.
      runInputs.begin(extras.inputs);
      let clockReads: number[] | undefined;
      const ended = <T>(value: T): T => {
        clockReads = runInputs.end();
        return value;
      };
      beginWatch();
      // A pool run starts in the baseline's empty working directory; given files are written
      // by the worker, which then replaces the interpreter after the run (as it does when the
      // files sit at the root: the worker changed the working directory). A session keeps its
      // files unless given new ones.
      const pool = request.type === "run" && !request.session;
      if (extras.files !== undefined) {
        touchedByWorker = "the run was given files";
        prepareWorkDir(fs, true, extras.files, place);
      } else if (!pool || place.dir !== WORK_DIR) {
        if (pool) touchedByWorker = "the run's files are at the root";
        prepareWorkDir(fs, false, undefined, place);
      }
      bridge.begin(request.run, extras.hostFunctionNames);
      const host = { hostFunctionNames: extras.hostFunctionNames };
      const filesBack = (fatal: boolean): Partial<WorkerMessage> => {
        const readings = clockReads ? { clockReads } : {};
        if (extras.files === undefined || fatal) return readings;
        const back = collectWorkDir(fs, extras.maxFileBytes, extras.maxTotalFileBytes, place);
        return "files" in back ? { files: back.files, ...readings } : { filesError: back.error, ...readings };
      };
      const limits = { maxResultBytes: request.maxResultBytes, ...host };
      await serve(
        () =>
          limited(request.memoryLimitBytes, request.maxOutputBytes, async () => {
            const done = await (async (): Promise<Done> => {
              if (request.type === "call") return entryDone("call", request.name, { args: request.args, ...limits });
              // A run given inputs reseeds `random` from its own generator, in a session too: its
              // numbers then depend on the cell's recorded seed, not on the interpreter's start.
              // A session's interpreter started on a fixed seed: its first run reseeds from real entropy.
              const reseed = extras.inputs !== undefined || (request.session && firstRun);
              const program = await entryDone("run", request.code, { globals: request.globals, session: request.session, ...(reseed ? { reseed: true } : {}), ...limits });
              if (program.fatal || extras.tests === undefined) return program;
              return { outcome: { ...program.outcome, tests: await runTests(program, extras.tests, request.run) }, fatal: false };
            })();
            return pool ? done : sessionKeepsTooMuch(done, request.memoryLimitBytes);
          }).then(ended, (error: unknown) => {
            ended(undefined);
            throw error;
          }),
        filesBack,
        request.type === "run" && !request.session,
      );
      return;
    }
    case "host-reply":
    case "interrupt":
      return;
    case "check": {
      // Python runs: a session's memory is no longer the fresh one (no image is written into it).
      leaveFresh();
      ranUserCode = true;
      const check = entryPoint("_cs_check");
      post({ type: "done", outcome: JSONParse(String(check(request.code))) as PythonOutcome, fatal: false });
      return;
    }
    case "fingerprint": {
      post({ type: "fingerprint", baseline: baselineFingerprint ?? {}, now: { ...fingerprintNow(), reachable: reachableFromPython() } });
      return;
    }
    case "functions": {
      leaveFresh();
      ranUserCode = true;
      const list = entryPoint("_cs_functions");
      post({ type: "functions", names: JSONParse(String(list())) as string[] });
      return;
    }
  }
}
