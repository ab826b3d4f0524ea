/**
 * Main thread of the Deno runner process. The host starts it with every Deno permission
 * denied except reading the Pyodide files and this directory, so Python code (in a worker of
 * this process) cannot touch the host's files, network, environment or processes.
 *
 * This thread never runs Python: it keeps one interpreter worker ready, forwards requests,
 * and enforces the time and output limits from outside the worker: a soft interrupt
 * (Pyodide's interrupt buffer raises KeyboardInterrupt) first, then `terminate()`.
 * In pool mode every run gets a fresh worker, so nothing survives from one run to the next.
 */
import { MAX_HOST_ARGS_CHARS, MAX_HOST_NAME_CHARS } from "./host-bridge.js";
import type { HostRequest, PythonOutcome, RunLimits, RunnerMessage, WorkerMessage, WorkerRequest } from "./protocol.js";
import { testsAfterStop } from "./run-phases.js";

interface DenoApi {
  args: string[];
  stdin: { readable: ReadableStream<Uint8Array> };
  stdout: { writeSync(bytes: Uint8Array): number };
  readFile(path: string): Promise<Uint8Array>;
  exit(code: number): never;
}
interface DenoWorker {
  postMessage(message: WorkerRequest, transfer?: ArrayBuffer[]): void;
  onmessage: ((event: { data: WorkerMessage }) => void) | null;
  onerror: ((event: { message?: string; preventDefault(): void }) => void) | null;
  terminate(): void;
}
type WorkerConstructor = new (url: URL, options: { type: "module" }) => DenoWorker;

const Deno = (globalThis as unknown as { Deno: DenoApi }).Deno;
const WorkerCtor = (globalThis as unknown as { Worker: WorkerConstructor }).Worker;

/** Startup configuration, passed by the host as the first script argument (JSON). */
interface RunnerConfig {
  pyodideUrl: string;
  snapshotPath?: string;
  /** Session mode keeps one interpreter across requests instead of a fresh one per run. */
  session: boolean;
}
const config = JSON.parse(Deno.args[0] ?? "{}") as RunnerConfig;

/** Time Python gets to unwind after the soft interrupt before its worker is terminated. */
const HARD_KILL_GRACE_MS = 150;

/**
 * Python in a worker can write to this process's stdout too (through the JavaScript bridge),
 * so every message to the host starts with a random token the host sent on stdin before any
 * Python ran; the host ignores lines without it (a guest cannot forge results or snapshots).
 */
let channelToken = "";
const encoder = new TextEncoder();
function send(message: RunnerMessage): void {
  const bytes = encoder.encode(`${channelToken} ${JSON.stringify(message)}\n`);
  let written = 0;
  while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
}

function newWorker(): DenoWorker {
  return new WorkerCtor(new URL("./worker.js", import.meta.url), { type: "module" });
}

async function obtainSnapshot(): Promise<Uint8Array | undefined> {
  if (config.snapshotPath) {
    try {
      return await Deno.readFile(config.snapshotPath);
    } catch {
      // Missing or unreadable: make a new one below.
    }
  }
  const maker = newWorker();
  try {
    const bytes = await new Promise<Uint8Array>((resolve, reject) => {
      maker.onmessage = (event) => {
        if (event.data.type === "snapshot") resolve(event.data.bytes);
        else if (event.data.type === "failed") reject(new Error(event.data.message));
      };
      maker.onerror = (event) => {
        event.preventDefault();
        reject(new Error(event.message ?? "snapshot worker failed"));
      };
      maker.postMessage({ type: "make-snapshot", pyodideUrl: config.pyodideUrl });
    });
    send({ type: "snapshot", base64: toBase64(bytes) });
    return bytes;
  } catch {
    return undefined; // Start without a snapshot: slower, same behaviour.
  } finally {
    maker.terminate();
  }
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) binary += String.fromCharCode(...bytes.subarray(i, i + step));
  return btoa(binary);
}

/** One interpreter worker and its interrupt buffer. */
interface Interpreter {
  worker: DenoWorker;
  interrupt: Int32Array;
  ready: Promise<void>;
  dead: boolean;
}

let snapshot: Uint8Array | undefined;
let current: Interpreter | undefined;

function startInterpreter(): Interpreter {
  const worker = newWorker();
  const buffer = new SharedArrayBuffer(4);
  const interpreter: Interpreter = { worker, interrupt: new Int32Array(buffer), ready: Promise.resolve(), dead: false };
  interpreter.ready = new Promise<void>((resolve, reject) => {
    worker.onmessage = (event) => {
      if (event.data.type === "ready") resolve();
      else if (event.data.type === "failed") reject(new Error(event.data.message));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(event.message ?? "interpreter worker failed to start"));
    };
  });
  // The worker gets its own copy by transfer (one copy, not two); the original is kept for later interpreters.
  const copy = snapshot?.slice();
  worker.postMessage({ type: "init", pyodideUrl: config.pyodideUrl, snapshot: copy, interruptBuffer: buffer }, copy ? [copy.buffer as ArrayBuffer] : []);
  return interpreter;
}

function kill(interpreter: Interpreter): void {
  interpreter.dead = true;
  interpreter.worker.terminate();
}

async function readyInterpreter(): Promise<Interpreter> {
  if (!current || current.dead) current = startInterpreter();
  await current.ready;
  return current;
}

function replaceInterpreter(): void {
  if (current) kill(current);
  current = startInterpreter();
  current.ready.then(
    () => send({ type: "ready" }),
    (error: unknown) => {
      // Exit so the host sees a dead process (and replaces it) instead of waiting for "ready".
      send({ type: "fatal", message: `could not start a Python interpreter: ${String(error)}` });
      Deno.exit(1);
    },
  );
}

interface Execution {
  outcome: PythonOutcome;
  stdout: string;
  stderr: string;
  testsStdout: string;
  testsStderr: string;
  outputTruncated: boolean;
  durationMs: number;
  killed: boolean;
}

/** The run whose host calls and replies are being relayed (host request id, worker run number). */
let relaying: { hostId: number; run: number; interpreter: Interpreter } | undefined;
let runCounter = 0;

/** Relays a host call of the worker to the host, after checking its shape and size (the guest may have forged it). */
function relayHostCall(message: Extract<WorkerMessage, { type: "host-call" }>): void {
  const active = relaying;
  if (!active || message.run !== active.run || !Number.isSafeInteger(message.callId)) return;
  const refuse = (text: string) => active.interpreter.worker.postMessage({ type: "host-reply", run: active.run, callId: message.callId, ok: false, name: "HostCallError", message: text });
  if (typeof message.name !== "string" || message.name.length > MAX_HOST_NAME_CHARS) return refuse("a host call needs the name of a host function");
  if (typeof message.argsJson !== "string" || message.argsJson.length > MAX_HOST_ARGS_CHARS) {
    return refuse(`host call arguments must be JSON text of at most ${MAX_HOST_ARGS_CHARS} characters`);
  }
  send({ type: "host-call", id: active.hostId, callId: message.callId, name: message.name, argsJson: message.argsJson });
}

/** Sends one run or call to the interpreter and enforces its time and output limits. */
function execute(interpreter: Interpreter, request: WorkerRequest, limits: RunLimits, hostId = -1): Promise<Execution> {
  return new Promise((resolve) => {
    const startedAt = performance.now();
    const run = request.type === "run" || request.type === "call" ? request.run : -1;
    let stdout = "";
    let stderr = "";
    let testsStdout = "";
    let testsStderr = "";
    let phase: "program" | "tests" = "program";
    let outputTruncated = false;
    let stopReason: "timeout" | "output_limit" | undefined;
    let hardTimer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;

    const finish = (outcome: PythonOutcome | undefined, killed: boolean) => {
      if (settled) return;
      settled = true;
      if (relaying?.run === run) relaying = undefined;
      clearTimeout(softTimer);
      if (hardTimer !== undefined) clearTimeout(hardTimer);
      interpreter.worker.onmessage = null;
      interpreter.worker.onerror = null;
      const durationMs = performance.now() - startedAt;
      let final = outcome ?? { status: "runtime_error", error: { name: "InterpreterError", message: "the interpreter stopped without a result" } };
      if (stopReason === "timeout") {
        final = {
          status: "timeout",
          error: {
            name: "TimeoutError",
            message: `execution passed the ${limits.timeoutMs} ms time limit and was ${killed ? "killed (it did not stop on interrupt)" : "interrupted"}; output up to that point is kept`,
            ...(outcome?.error?.line !== undefined ? { line: outcome.error.line } : {}),
            ...(outcome?.error?.stack !== undefined && !killed ? { stack: outcome.error.stack } : {}),
          },
        };
      } else if (stopReason === "output_limit") {
        final = {
          status: "output_limit",
          error: { name: "OutputLimitError", message: `output passed the ${limits.maxOutputBytes}-byte limit; output up to the limit is kept. Print less (summaries, not every item).` },
        };
      }
      if (request.type === "run" && request.extras.tests !== undefined && (stopReason || killed || !final.tests)) {
        final = { ...final, tests: testsAfterStop(final, phase) };
      }
      resolve({ outcome: final, stdout, stderr, testsStdout, testsStderr, outputTruncated, durationMs, killed });
    };

    const stop = (reason: "timeout" | "output_limit") => {
      if (stopReason || settled) return;
      stopReason = reason;
      Atomics.store(interpreter.interrupt, 0, 2);
      // A Python that waits on an await never sees the interrupt buffer: the worker throws it in.
      if (run >= 0) interpreter.worker.postMessage({ type: "interrupt", run });
      hardTimer = setTimeout(() => {
        kill(interpreter);
        finish(undefined, true);
      }, HARD_KILL_GRACE_MS);
    };

    interpreter.worker.onmessage = (event) => {
      const message = event.data;
      switch (message.type) {
        case "output":
          if (phase === "tests") {
            if (message.stream === "stdout") testsStdout += message.text;
            else testsStderr += message.text;
          } else if (message.stream === "stdout") stdout += message.text;
          else stderr += message.text;
          return;
        case "phase":
          if (message.run === run) phase = "tests";
          return;
        case "host-call":
          relayHostCall(message);
          return;
        case "output-limit":
          outputTruncated = true;
          stop("output_limit");
          return;
        case "done":
          if (message.fatal) {
            kill(interpreter);
            // Pyodide's fatal-error handler dumps interpreter frames to stdout: not the user's output.
            const dump = stdout.lastIndexOf("Stack (most recent call first):\n");
            if (dump >= 0) stdout = stdout.slice(0, dump);
          }
          finish(message.outcome, message.fatal);
          return;
        case "failed":
          kill(interpreter);
          finish({ status: "runtime_error", error: { name: "InterpreterError", message: message.message } }, true);
          return;
        default:
          return;
      }
    };
    interpreter.worker.onerror = (event) => {
      event.preventDefault();
      kill(interpreter);
      finish({ status: "runtime_error", error: { name: "InterpreterError", message: `the interpreter crashed: ${event.message ?? "unknown error"}` } }, true);
    };
    const softTimer = setTimeout(() => stop("timeout"), limits.timeoutMs);
    Atomics.store(interpreter.interrupt, 0, 0);
    if (run >= 0) relaying = { hostId, run, interpreter };
    interpreter.worker.postMessage(request);
  });
}

async function handle(request: HostRequest): Promise<void> {
  const interpreter = await readyInterpreter();
  switch (request.type) {
    case "run":
    case "call": {
      const run = ++runCounter;
      const extras = { hostFunctionNames: request.hostFunctionNames, ...(request.tests !== undefined ? { tests: request.tests } : {}), maxFileBytes: request.maxFileBytes, maxTotalFileBytes: request.maxTotalFileBytes };
      const workerRequest: WorkerRequest =
        request.type === "run"
          ? { type: "run", run, code: request.code, globals: request.globals, session: config.session, memoryLimitBytes: request.memoryLimitBytes, maxOutputBytes: request.maxOutputBytes, extras }
          : { type: "call", run, name: request.name, args: request.args, memoryLimitBytes: request.memoryLimitBytes, maxOutputBytes: request.maxOutputBytes, extras };
      const done = await execute(interpreter, workerRequest, request, request.id);
      const reset = done.killed || interpreter.dead;
      const tests = request.type === "run" && request.tests !== undefined ? { testsStdout: done.testsStdout, testsStderr: done.testsStderr } : {};
      send({ type: "result", id: request.id, outcome: done.outcome, stdout: done.stdout, stderr: done.stderr, outputTruncated: done.outputTruncated, durationMs: done.durationMs, interpreterReset: reset && config.session, ...tests });
      // Pool mode: a fresh interpreter for every run. Session mode: only after a kill.
      if (!config.session || interpreter.dead) replaceInterpreter();
      else send({ type: "ready" });
      return;
    }
    case "check": {
      const done = await execute(interpreter, { type: "check", code: request.code }, { timeoutMs: 10_000, memoryLimitBytes: 256 * 1024 * 1024, maxOutputBytes: 0 });
      send({ type: "checked", id: request.id, outcome: done.outcome });
      if (interpreter.dead) replaceInterpreter();
      else send({ type: "ready" });
      return;
    }
    case "functions": {
      const names = await new Promise<string[]>((resolve) => {
        interpreter.worker.onmessage = (event) => {
          if (event.data.type === "functions") resolve(event.data.names);
        };
        interpreter.worker.postMessage({ type: "functions" });
      });
      interpreter.worker.onmessage = null;
      send({ type: "functions", id: request.id, names });
      send({ type: "ready" });
      return;
    }
  }
}

async function* readLines(): AsyncGenerator<string> {
  // Scan only each new chunk for newlines: a request with large globals spans many chunks.
  let parts: string[] = [];
  const decoder = new TextDecoder();
  for await (const bytes of Deno.stdin.readable) {
    const chunk = decoder.decode(bytes, { stream: true });
    let start = 0;
    let newline = chunk.indexOf("\n");
    while (newline >= 0) {
      const line = parts.join("") + chunk.slice(start, newline);
      parts = [];
      start = newline + 1;
      newline = chunk.indexOf("\n", start);
      if (line.trim() !== "") yield line;
    }
    if (start < chunk.length) parts.push(chunk.slice(start));
  }
}

async function main(): Promise<void> {
  const lines = readLines();
  // The first line is the channel token; it is read before any Python runs, so no guest sees it.
  const first = await lines.next();
  if (first.done) Deno.exit(0);
  channelToken = first.value.trim();
  snapshot = await obtainSnapshot();
  current = startInterpreter();
  try {
    await current.ready;
  } catch (error) {
    send({ type: "fatal", message: `could not start a Python interpreter: ${String(error)}` });
    Deno.exit(1);
  }
  send({ type: "ready" });
  // Requests are handled one at a time, in order; the host sends the next after a reply.
  let queue = Promise.resolve();
  for await (const line of lines) {
    const request = JSON.parse(line) as HostRequest;
    if (request.type === "host-reply") {
      // Answered at once: the run that waits for it holds the queue.
      const active = relaying;
      if (active && active.hostId === request.id) {
        const { id: _id, type: _type, ...reply } = request;
        active.interpreter.worker.postMessage({ ...reply, type: "host-reply", run: active.run });
      }
      continue;
    }
    queue = queue.then(() => handle(request)).catch((error: unknown) => send({ type: "fatal", message: String(error) }));
  }
  // The host closed stdin (it exited or disposed us): answer what was asked, then stop.
  await queue;
  Deno.exit(0);
}

await main();
