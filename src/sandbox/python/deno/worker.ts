/**
 * Deno worker that owns one Pyodide interpreter. It runs inside the runner process, which
 * Deno started with every permission denied except reading the Pyodide files: that process
 * boundary is the sandbox. What this file adds is behaviour, not security: the memory cap on
 * WebAssembly growth, the output cap, and calls into the Python prelude.
 */
import type { loadPyodide as LoadPyodide, PyodideAPI } from "pyodide";
import type { PythonOutcome, WorkerMessage, WorkerRequest } from "./protocol.js";
import { createHostBridge, replyText } from "./host-bridge.js";
import { FORBIDDEN_MODULES, PYTHON_PRELUDE } from "./prelude.js";
import { PYTHON_RUN_PRELUDE } from "./prelude-run.js";

interface WorkerScope {
  postMessage(message: WorkerMessage, transfer?: ArrayBuffer[]): void;
  onmessage: ((event: { data: WorkerRequest }) => void) | null;
}
const scope = globalThis as unknown as WorkerScope;
const WASM_PAGE_BYTES = 65536;

// Memory cap: Pyodide's heap is WebAssembly memory, outside V8's heap limit, and Emscripten
// grows it only through Memory.prototype.grow. Refusing growth past the cap makes malloc fail,
// which Python turns into MemoryError. The host's RSS watchdog backs this up.
let capBytes = Number.POSITIVE_INFINITY;
let growRefused = false;
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(deltaPages: number): number;
}
const memoryPrototype = (globalThis as unknown as { WebAssembly: { Memory: { prototype: WasmMemory } } }).WebAssembly.Memory.prototype;
const realGrow = memoryPrototype.grow;
memoryPrototype.grow = function grow(this: WasmMemory, deltaPages: number): number {
  if (this.buffer.byteLength + deltaPages * WASM_PAGE_BYTES > capBytes) {
    growRefused = true;
    throw new RangeError("codegen-sandbox: memory limit reached");
  }
  return realGrow.call(this, deltaPages);
};

let pyodide: PyodideAPI | undefined;
let interrupt: Int32Array | undefined;
let baselineHeapBytes = 0;
let outputBytes = 0;
let maxOutputBytes = Number.POSITIVE_INFINITY;
let outputLimitHit = false;
const decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };

function post(message: WorkerMessage, transfer?: ArrayBuffer[]): void {
  scope.postMessage(message, transfer);
}
const bridge = createHostBridge((message) => post(message));

function writer(stream: "stdout" | "stderr"): { write: (buffer: Uint8Array) => number } {
  return {
    write(buffer: Uint8Array): number {
      if (outputLimitHit) return buffer.length;
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
        if (interrupt) Atomics.store(interrupt, 0, 2);
      }
      return buffer.length;
    },
  };
}

function heapBytes(py: PyodideAPI): number {
  // `_module` is Pyodide's Emscripten module; its HEAPU8 views the whole WebAssembly memory.
  return (py as unknown as { _module: { HEAPU8: Uint8Array } })._module.HEAPU8.length;
}

async function load(pyodideUrl: string, snapshot: Uint8Array | undefined, makeSnapshot: boolean): Promise<PyodideAPI> {
  const module = (await import(`${pyodideUrl}pyodide.mjs`)) as { loadPyodide: typeof LoadPyodide };
  // Pyodide under Deno reads its files by path, not by URL.
  return module.loadPyodide({
    indexURL: decodeURIComponent(new URL(pyodideUrl).pathname),
    ...(snapshot ? { _loadSnapshot: snapshot } : {}),
    ...(makeSnapshot ? { _makeSnapshot: true } : {}),
  });
}

/** Prelude functions, looked up once: each lookup would otherwise leave a proxy behind. */
const entryPoints = new Map<string, (...args: unknown[]) => string>();
function entryPoint(py: PyodideAPI, name: string): (...args: unknown[]) => string {
  let entry = entryPoints.get(name);
  if (!entry) {
    entry = py.globals.get(name) as (...args: unknown[]) => string;
    entryPoints.set(name, entry);
  }
  return entry;
}

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
  if (text.includes("NotCapable") || text.includes("PermissionDenied")) {
    return {
      status: "runtime_error",
      error: { name: "PermissionError", message: `the sandbox denied a host operation (no files, network, environment or processes): ${text.slice(0, 300)}` },
    };
  }
  return { status: "runtime_error", error: { name: "InterpreterError", message: `the Python interpreter failed: ${text.slice(0, 500)}` } };
}

/** Calls a prelude entry point; a run that waits on an await finishes through the bridge's `done` hook. */
async function callPython(fn: string, args: unknown[], memoryLimitBytes: number, outputCap: number): Promise<{ outcome: PythonOutcome; fatal: boolean }> {
  const py = pyodide!;
  outputBytes = 0;
  outputLimitHit = false;
  maxOutputBytes = outputCap;
  growRefused = false;
  capBytes = baselineHeapBytes + memoryLimitBytes;
  try {
    const entry = entryPoint(py, fn);
    const returned = entry(...args) as string | undefined;
    const text = typeof returned === "string" ? returned : await bridge.waitDone();
    const outcome = JSON.parse(text) as PythonOutcome;
    if (growRefused && outcome.status === "runtime_error") {
      return { outcome: { ...outcome, status: "memory_limit" }, fatal: false };
    }
    return { outcome, fatal: false };
  } catch (error) {
    // A JavaScript-level fault (stack overflow, denied host call) leaves Pyodide unusable.
    return { outcome: faultOutcome(error), fatal: true };
  } finally {
    capBytes = Number.POSITIVE_INFINITY;
  }
}

scope.onmessage = (event) => {
  const request = event.data;
  void handle(request).catch((error: unknown) => {
    post({ type: "failed", message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  });
};

async function handle(request: WorkerRequest): Promise<void> {
  switch (request.type) {
    case "make-snapshot": {
      const py = await load(request.pyodideUrl, undefined, true);
      const bytes = py.makeMemorySnapshot();
      post({ type: "snapshot", bytes }, [bytes.buffer as ArrayBuffer]);
      return;
    }
    case "init": {
      const py = await load(request.pyodideUrl, request.snapshot, false);
      interrupt = new Int32Array(request.interruptBuffer);
      py.setInterruptBuffer(interrupt);
      py.setStdout(writer("stdout"));
      py.setStderr(writer("stderr"));
      py.runPython(`_CS_FORBIDDEN_JSON = ${JSON.stringify(JSON.stringify(FORBIDDEN_MODULES))}\n${PYTHON_PRELUDE}\n${PYTHON_RUN_PRELUDE}`);
      py.globals.set("_cs_hooks", bridge.hooks);
      pyodide = py;
      // One throwaway run pages in the code paths of a run, so the first real run is fast.
      bridge.begin(0, []);
      await callPython("_cs_run", ["pass", "{}", false, "[]"], 256 * 1024 * 1024, 0);
      bridge.end();
      baselineHeapBytes = heapBytes(py);
      post({ type: "ready" });
      return;
    }
    case "run":
    case "call": {
      const { extras } = request;
      const names = JSON.stringify(extras.hostFunctionNames);
      bridge.begin(request.run, extras.hostFunctionNames);
      const { outcome, fatal } =
        request.type === "run"
          ? await callPython("_cs_run", [request.code, JSON.stringify(request.globals), request.session, names, extras.tests], request.memoryLimitBytes, request.maxOutputBytes)
          : await callPython("_cs_call", [request.name, JSON.stringify(request.args), names], request.memoryLimitBytes, request.maxOutputBytes);
      bridge.end();
      post({ type: "done", outcome, fatal });
      return;
    }
    case "host-reply": {
      if (!bridge.isCurrent(request.run)) return;
      try {
        entryPoint(pyodide!, "_cs_host_reply")(request.callId, replyText(request));
      } catch {
        // Python refused the reply (an interrupt pending); the runner's limit ends the run.
      }
      return;
    }
    case "interrupt": {
      // Python is idle at an await (a busy Python never lets this message in): throw the
      // interrupt into the run's coroutine; a run that ignores it is killed by the runner.
      if (!bridge.waiting(request.run) || !interrupt) return;
      Atomics.store(interrupt, 0, 0);
      try {
        entryPoint(pyodide!, "_cs_interrupt")();
      } catch {
        // The run ends through the runner's hard kill.
      }
      if (bridge.waiting(request.run)) Atomics.store(interrupt, 0, 2);
      return;
    }
    case "check": {
      const check = entryPoint(pyodide!, "_cs_check");
      post({ type: "done", outcome: JSON.parse(check(request.code)) as PythonOutcome, fatal: false });
      return;
    }
    case "functions": {
      const list = entryPoint(pyodide!, "_cs_functions");
      post({ type: "functions", names: JSON.parse(list()) as string[] });
      return;
    }
  }
}
