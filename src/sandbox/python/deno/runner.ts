/**
 * Main thread of the Deno runner process: the supervisor. The host starts it with every Deno
 * permission denied except reading the Pyodide files and this directory.
 *
 * This thread never runs Python and never trusts the worker that does: the worker's realm is
 * reachable from Python. The supervisor decides on its own evidence when a run ended (a `done`
 * carrying the run's nonce, which only the worker's closures hold), counts every byte of output
 * against the cap, watches the process's memory, and stops runs that pass their time limit or
 * are cancelled: a soft interrupt (Pyodide's interrupt buffer raises KeyboardInterrupt) first,
 * then `terminate()`. In pool mode every run gets a fresh interpreter.
 */
import { MAX_CLOCK_READS, MAX_HOST_ARGS_CHARS, MAX_HOST_NAME_CHARS, MAX_SESSION_IMAGE_LINE_BYTES } from "../shared/bounds.js";
import type { HostRequest, Nonced, PythonOutcome, RunLimits, RunnerMessage, WorkerMessage, WorkerPackages, WorkerRequest } from "../shared/protocol.js";
import { checkOutcome } from "../shared/outcome-check.js";
import { encodeReturnedFiles } from "./returned-files.js";
import { testsAfterStop } from "./run-phases.js";

interface DenoApi {
  args: string[];
  stdin: { readable: ReadableStream<Uint8Array> };
  stdout: { writeSync(bytes: Uint8Array): number };
  readFile(path: string): Promise<Uint8Array>;
  memoryUsage(): { rss: number };
  exit(code: number): never;
}
interface DenoWorker {
  postMessage(message: WorkerRequest & { nonce: string }, transfer?: ArrayBuffer[]): void;
  onmessage: ((event: { data: unknown }) => void) | null;
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
  /** Tests only: the worker answers `fingerprint` requests (fingerprint.ts). */
  introspection?: boolean;
}
const config = JSON.parse(Deno.args[0] ?? "{}") as RunnerConfig;

/**
 * Time Python gets to unwind after the soft interrupt before its worker is terminated. A session
 * keeps its interpreter when the interrupt works, so it gets longer; a pool interpreter is
 * replaced after a timeout either way, and the grace only buys the error's line and stack (a
 * loop that swallows KeyboardInterrupt returns at the limit + this). Sessions that ended after an
 * `output_limit` were not a short grace: the interrupt landed in the driver's own frames after
 * the program's last step (run-driver.ts masks it there now). A session's 300 ms was missed on a
 * loaded 2-core CI machine (the call ended `timeout` and took the session's state with it), so a
 * session gets a full second; the host's own kill (+1.5 s) stays later.
 */
const HARD_KILL_GRACE_MS = config.session ? 1000 : 150;
/** A cancelled run gets less: the caller is waiting (the host kills the process at 280 ms). */
const CANCEL_GRACE_MS = 200;
/**
 * How often the supervisor samples the process's resident memory during a run (two samples in a
 * row over the line stop it). A JS-side bomb grows by ~1 MiB per ms here: 10 ms polls let it
 * overshoot the slack by ~25 MiB, 5 ms by about half (bench: "memory-limit overshoot").
 */
const MEMORY_POLL_MS = 5;
/**
 * Resident memory a run may add beyond its limit before the supervisor terminates the worker
 * (the JS side of output and results, allocator slack). The in-realm cap usually stops a
 * program first with a MemoryError; this catches a guest that got around it.
 */
export const MEMORY_SLACK_BYTES = 48 * 1024 * 1024;
/**
 * A session's slack, counted from the process when its interpreter was ready: wider, since the
 * runtime's own garbage from earlier calls is in it too (the worker counts what the session keeps
 * precisely at the end of each call; this is the backstop for what it cannot see).
 */
const SESSION_MEMORY_SLACK_BYTES = 96 * 1024 * 1024;
/** A reset copies ~31 MB; one that takes longer than this means the worker is stuck. */
const RESET_TIMEOUT_MS = 5000;

/**
 * Python in a worker may reach this process's stdout too, so every message to the host starts
 * with a random token the host sent on stdin before any Python ran; the host ignores and
 * counts bytes without it.
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

function newNonce(): string {
  return crypto.randomUUID();
}

async function obtainSnapshot(): Promise<Uint8Array | undefined> {
  if (config.snapshotPath) {
    try {
      const bytes = await Deno.readFile(config.snapshotPath);
      snapshotInFile = true;
      return bytes;
    } catch {
      // Missing or unreadable: make a new one below.
    }
  }
  const maker = newWorker();
  const nonce = newNonce();
  try {
    const bytes = await new Promise<Uint8Array>((resolve, reject) => {
      maker.onmessage = (event) => {
        const data = event.data as Nonced<WorkerMessage>;
        if (data?.nonce !== nonce) return;
        if (data.type === "snapshot") resolve(data.bytes);
        else if (data.type === "failed") reject(new Error(data.message));
      };
      maker.onerror = (event) => {
        event.preventDefault();
        reject(new Error(event.message ?? "snapshot worker failed"));
      };
      maker.postMessage({ type: "make-snapshot", pyodideUrl: config.pyodideUrl, packages, nonce });
    });
    send({ type: "snapshot", base64: toBase64(bytes) });
    return bytes;
  } catch {
    return undefined; // Start without a snapshot: slower, same behaviour.
  } finally {
    maker.terminate();
  }
}

function fromBase64Files(files: Record<string, string>): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  for (const [path, base64] of Object.entries(files)) out[path] = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return out;
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
  /** Nonce of the last request sent (its `reset` message carries it). */
  lastNonce: string;
  interrupt: Int32Array;
  ready: Promise<void>;
  dead: boolean;
  /** Resident memory of the process when the interpreter became ready (a session's memory floor). */
  readyRss: number;
}

/**
 * The snapshot, kept in this thread only when there is no file to read it from again (31 MB of
 * resident memory per process otherwise): a snapshot read from the cache file is read again for
 * every new interpreter (from the page cache: small beside the replacement itself, `npm run bench --
 * python`, row "a run that writes a file, then the next run (worker replaced)").
 */
let snapshot: Uint8Array | undefined;
let snapshotInFile = false;
/** The bytes read at start, handed to the first interpreter as they are. */
let firstRead: Uint8Array | undefined;

/** The snapshot bytes for one new interpreter (its own copy: it is transferred). */
async function snapshotForInterpreter(): Promise<Uint8Array | undefined> {
  if (firstRead) {
    const bytes = firstRead;
    firstRead = undefined;
    return bytes;
  }
  if (snapshotInFile && config.snapshotPath) {
    try {
      return await Deno.readFile(config.snapshotPath);
    } catch {
      // Deleted since: the interpreter starts without one (slower, same behaviour).
      return undefined;
    }
  }
  return snapshot?.slice();
}
/** Packages to install in every interpreter (the host's second line; see wheels.ts). */
let packages: WorkerPackages = { files: {}, topLevel: [], native: [], lockImports: {} };
let current: Interpreter | undefined;

function startInterpreter(): Interpreter {
  const worker = newWorker();
  const buffer = new SharedArrayBuffer(4);
  const nonce = newNonce();
  const interpreter: Interpreter = { worker, lastNonce: nonce, interrupt: new Int32Array(buffer), ready: Promise.resolve(), dead: false, readyRss: 0 };
  const started = new Promise<void>((resolve, reject) => {
    worker.onmessage = (event) => {
      const data = event.data as Nonced<WorkerMessage>;
      if (data?.nonce !== nonce) return;
      if (data.type === "ready") {
        interpreter.readyRss = Deno.memoryUsage().rss;
        resolve();
      } else if (data.type === "failed") reject(new Error(data.message));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(event.message ?? "interpreter worker failed to start"));
    };
  });
  // The worker gets its own copy by transfer (one copy, not two).
  interpreter.ready = snapshotForInterpreter().then((copy) => {
    if (interpreter.dead) return started;
    worker.postMessage({ type: "init", pyodideUrl: config.pyodideUrl, snapshot: copy, interruptBuffer: buffer, packages, session: config.session, introspection: config.introspection === true, nonce }, copy ? [copy.buffer as ArrayBuffer] : []);
    return started;
  });
  // Not awaited by anyone when the interpreter is killed before it is ready.
  started.catch(() => undefined);
  return interpreter;
}

function kill(interpreter: Interpreter): void {
  interpreter.dead = true;
  interpreter.worker.onmessage = null;
  interpreter.worker.onerror = null;
  interpreter.worker.terminate();
}

async function readyInterpreter(): Promise<Interpreter> {
  if (!current || current.dead) current = startInterpreter();
  await current.ready;
  return current;
}

/** Replaces the interpreter; `why` (bounded) goes with the next `ready` so the host can tell. */
function replaceInterpreter(why: string): void {
  if (current) kill(current);
  current = startInterpreter();
  current.ready.then(
    () => send({ type: "ready", replaced: why.slice(0, 200) }),
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
  /** Output written after the run's tests started (runs with tests). */
  testsStdout: string;
  testsStderr: string;
  files?: Record<string, string>;
  filesError?: string;
  clockReads?: unknown;
  outputTruncated: boolean;
  durationMs: number;
  killed: boolean;
}

/** Waits for the worker's `reset` message after a pool run: "" when it is pristine again, else why not. */
function awaitReset(interpreter: Interpreter, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      interpreter.worker.onmessage = null;
      resolve("the reset did not finish in time");
    }, timeoutMs);
    interpreter.worker.onmessage = (event) => {
      const data = event.data as Nonced<WorkerMessage> | null;
      clearTimeout(timer);
      interpreter.worker.onmessage = null;
      if (data?.nonce !== interpreter.lastNonce || data.type !== "reset") {
        resolve("the worker sent something else than its reset");
        return;
      }
      resolve(data.fresh === true ? "" : typeof data.resetMiss === "string" ? data.resetMiss : "not reset");
    };
  });
}

type StopReason = "timeout" | "output_limit" | "memory_limit" | "cancelled" | "forged";

/** The run being served, so an out-of-band cancel can reach it. */
let active: { id: number; stop(reason: StopReason): void } | undefined;

/** The run whose host calls and replies are relayed (host request id, worker run number, nonce). */
let relaying: { hostId: number; run: number; nonce: string; interpreter: Interpreter } | undefined;
let runCounter = 0;

/** Relays a host call of the worker to the host, after checking its shape and size (the guest may have shaped it). */
function relayHostCall(message: Extract<WorkerMessage, { type: "host-call" }>): void {
  const target = relaying;
  if (!target || message.run !== target.run || !Number.isSafeInteger(message.callId)) return;
  const refuse = (text: string) =>
    target.interpreter.worker.postMessage({ type: "host-reply", run: target.run, callId: message.callId, ok: false, name: "HostCallError", message: text, nonce: target.nonce });
  if (typeof message.name !== "string" || message.name.length > MAX_HOST_NAME_CHARS) return refuse("a host call needs the name of a host function");
  if (typeof message.argsJson !== "string" || message.argsJson.length > MAX_HOST_ARGS_CHARS) {
    return refuse(`host call arguments must be JSON text of at most ${MAX_HOST_ARGS_CHARS} characters`);
  }
  send({ type: "host-call", id: target.hostId, callId: message.callId, name: message.name, argsJson: message.argsJson });
}

/** Sends one run or call to the interpreter and enforces its limits from outside the worker. */
function execute(interpreter: Interpreter, id: number, request: WorkerRequest, limits: RunLimits): Promise<Execution> {
  return new Promise((resolve) => {
    const nonce = newNonce();
    const startedAt = performance.now();
    const run = request.type === "run" || request.type === "call" ? request.run : -1;
    let stdout = "";
    let stderr = "";
    let testsStdout = "";
    let testsStderr = "";
    let phase: "program" | "tests" = "program";
    let returned: { files: Record<string, string> } | { error: string } | undefined;
    let clockReads: unknown;
    let outputBytes = 0;
    let outputTruncated = false;
    let stopReason: StopReason | undefined;
    let hardTimer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    // A session's limit counts what it keeps (its files live in JavaScript, outside the
    // interpreter's memory): its floor is the process when the interpreter was ready.
    const baselineRss = config.session && interpreter.readyRss > 0 ? interpreter.readyRss : Deno.memoryUsage().rss;

    const finish = (outcome: PythonOutcome | undefined, killed: boolean) => {
      if (settled) return;
      settled = true;
      active = undefined;
      if (relaying?.run === run) relaying = undefined;
      clearTimeout(softTimer);
      clearInterval(memoryTimer);
      if (hardTimer !== undefined) clearTimeout(hardTimer);
      // A stop asked for after the run's last step must not reach the interpreter's next request.
      Atomics.store(interpreter.interrupt, 0, 0);
      interpreter.worker.onmessage = null;
      interpreter.worker.onerror = null;
      const durationMs = performance.now() - startedAt;
      let final = outcome ?? { status: "runtime_error", error: { name: "InterpreterError", message: "the interpreter stopped without a result" } };
      const how = killed ? "stopped (it did not stop on interrupt, so its interpreter was killed)" : "interrupted";
      if (stopReason === "timeout") {
        final = {
          status: "timeout",
          error: {
            name: "TimeoutError",
            message: `execution passed the ${limits.timeoutMs} ms time limit and was ${how}; output up to that point is kept`,
            ...(outcome?.error?.line !== undefined ? { line: outcome.error.line } : {}),
            ...(outcome?.error?.stack !== undefined && !killed ? { stack: outcome.error.stack } : {}),
          },
        };
      } else if (stopReason === "output_limit") {
        final = {
          status: "output_limit",
          error: { name: "OutputLimitError", message: `output passed the ${limits.maxOutputBytes}-byte limit; output up to the limit is kept. Print less (summaries, not every item).` },
        };
      } else if (stopReason === "memory_limit") {
        final = {
          status: "memory_limit",
          error: { name: "MemoryError", message: `the program grew the interpreter's memory past the ${limits.memoryLimitBytes}-byte limit; its interpreter was stopped` },
        };
      } else if (stopReason === "cancelled") {
        final = { status: "cancelled", error: { name: "CancelledError", message: `the run was cancelled by the caller and ${how}; output up to that point is kept` } };
      } else if (stopReason === "forged") {
        final = {
          status: "runtime_error",
          error: { name: "SandboxViolation", message: "the program sent a message to the supervisor that the interpreter did not send (forged); its interpreter was stopped" },
        };
      }
      if (request.type === "run" && request.extras.tests !== undefined && (stopReason || killed || !final.tests)) {
        final = { ...final, tests: testsAfterStop(final, phase) };
      }
      const files = returned === undefined ? {} : "files" in returned ? { files: returned.files } : { filesError: returned.error };
      if (clockReads !== undefined) Object.assign(files, { clockReads });
      resolve({ outcome: final, stdout, stderr, testsStdout, testsStderr, outputTruncated, durationMs, killed, ...files });
    };

    const stop = (reason: StopReason) => {
      if (stopReason || settled) return;
      stopReason = reason;
      if (reason === "memory_limit" || reason === "forged") {
        // Evidence that the guest got around the worker's own checks: no second chance.
        kill(interpreter);
        finish(undefined, true);
        return;
      }
      Atomics.store(interpreter.interrupt, 0, 2);
      // A Python that waits on an await never sees the interrupt buffer: the worker throws it in.
      if (run >= 0) interpreter.worker.postMessage({ type: "interrupt", run, nonce });
      hardTimer = setTimeout(
        () => {
          kill(interpreter);
          finish(undefined, true);
        },
        reason === "cancelled" ? CANCEL_GRACE_MS : HARD_KILL_GRACE_MS,
      );
    };
    active = { id, stop };

    const addOutput = (stream: "stdout" | "stderr", text: string) => {
      if (outputTruncated) return;
      const bytes = encoder.encode(text);
      let kept = text;
      if (outputBytes + bytes.length > limits.maxOutputBytes) {
        kept = new TextDecoder().decode(bytes.subarray(0, Math.max(0, limits.maxOutputBytes - outputBytes))).replace(/\uFFFD$/, "");
        outputTruncated = true;
      }
      outputBytes += Math.min(bytes.length, limits.maxOutputBytes - outputBytes);
      if (phase === "tests") {
        if (stream === "stdout") testsStdout += kept;
        else testsStderr += kept;
      } else if (stream === "stdout") stdout += kept;
      else stderr += kept;
      if (outputTruncated) stop("output_limit");
    };

    interpreter.worker.onmessage = (event) => {
      const message = event.data as Nonced<WorkerMessage> | null;
      if (message === null || typeof message !== "object" || message.nonce !== nonce) {
        stop("forged");
        return;
      }
      switch (message.type) {
        case "output":
          if ((message.stream === "stdout" || message.stream === "stderr") && typeof message.text === "string") addOutput(message.stream, message.text);
          else stop("forged");
          return;
        case "output-limit":
          outputTruncated = true;
          stop("output_limit");
          return;
        case "phase":
          if (message.run === run) phase = "tests";
          return;
        case "host-call":
          relayHostCall(message);
          return;
        case "done": {
          // Every field is checked again: the worker's realm is the guest's.
          const checked = checkOutcome(message.outcome, limits.maxResultBytes, true);
          if (typeof message.fatal !== "boolean" || typeof checked === "string") {
            stop("forged");
            return;
          }
          message.outcome = checked;
          if ((request.type === "run" || request.type === "call") && request.extras.files !== undefined && !message.fatal) {
            returned =
              message.filesError !== undefined
                ? { error: String(message.filesError).slice(0, 500) }
                : encodeReturnedFiles(message.files, request.extras.maxFileBytes, request.extras.maxTotalFileBytes);
          }
          if (!message.fatal) clockReads = message.clockReads;
          if (message.fatal) {
            kill(interpreter);
            // Pyodide's fatal-error handler dumps interpreter frames to stdout: not the user's output.
            const dump = stdout.lastIndexOf("Stack (most recent call first):\n");
            if (dump >= 0) stdout = stdout.slice(0, dump);
          }
          finish(message.outcome, message.fatal);
          return;
        }
        case "failed":
          kill(interpreter);
          finish({ status: "runtime_error", error: { name: "InterpreterError", message: String(message.message).slice(0, 500) } }, true);
          return;
        default:
          stop("forged");
          return;
      }
    };
    interpreter.worker.onerror = (event) => {
      event.preventDefault();
      kill(interpreter);
      finish({ status: "runtime_error", error: { name: "InterpreterError", message: `the interpreter crashed: ${String(event.message ?? "unknown error").slice(0, 500)}` } }, true);
    };
    const softTimer = setTimeout(() => stop("timeout"), limits.timeoutMs);
    // Two samples in a row over the line: a dead worker's memory being handed back, or a
    // transient spike of the runtime, is not the guest's.
    let over = 0;
    const memoryTimer = setInterval(() => {
      over = Deno.memoryUsage().rss - baselineRss > limits.memoryLimitBytes + (config.session ? SESSION_MEMORY_SLACK_BYTES : MEMORY_SLACK_BYTES) ? over + 1 : 0;
      if (over >= 2) stop("memory_limit");
    }, MEMORY_POLL_MS);
    Atomics.store(interpreter.interrupt, 0, 0);
    interpreter.lastNonce = nonce;
    if (run >= 0) relaying = { hostId: id, run, nonce, interpreter };
    interpreter.worker.postMessage({ ...request, nonce });
  });
}

async function handle(request: HostRequest): Promise<void> {
  const interpreter = await readyInterpreter();
  switch (request.type) {
    case "run":
    case "call": {
      const limits: RunLimits = { timeoutMs: request.timeoutMs, memoryLimitBytes: request.memoryLimitBytes, maxOutputBytes: request.maxOutputBytes, maxResultBytes: request.maxResultBytes };
      const run = ++runCounter;
      const extras = {
        hostFunctionNames: request.hostFunctionNames,
        ...(request.type === "run" && request.tests !== undefined ? { tests: request.tests } : {}),
        ...(request.files !== undefined ? { files: fromBase64Files(request.files) } : {}),
        maxFileBytes: request.maxFileBytes,
        maxTotalFileBytes: request.maxTotalFileBytes,
        ...(request.filesAtRoot === true ? { filesAtRoot: true } : {}),
        ...(request.inputs !== undefined ? { inputs: request.inputs } : {}),
      };
      const workerRequest: WorkerRequest =
        request.type === "run"
          ? { type: "run", run, code: request.code, globals: request.globals, session: config.session, ...limits, extras }
          : { type: "call", run, name: request.name, args: request.args, ...limits, extras };
      const done = await execute(interpreter, request.id, workerRequest, limits);
      const reset = done.killed || interpreter.dead;
      const tests = request.type === "run" && request.tests !== undefined ? { testsStdout: done.testsStdout, testsStderr: done.testsStderr } : {};
      const files = done.files !== undefined ? { files: done.files } : done.filesError !== undefined ? { filesError: done.filesError } : {};
      // The worker's readings are passed on as they are; the host checks them.
      if (Array.isArray(done.clockReads) && done.clockReads.length <= MAX_CLOCK_READS) Object.assign(files, { clockReads: done.clockReads });
      send({ type: "result", id: request.id, outcome: done.outcome, stdout: done.stdout, stderr: done.stderr, outputTruncated: done.outputTruncated, durationMs: done.durationMs, interpreterReset: reset && config.session, ...tests, ...files });
      // Pool mode: a pristine interpreter for every run, restored in place when the run ended
      // normally and left nothing outside the memory, else a new worker. Session mode: the
      // same interpreter until it has to be killed.
      const limitHit = done.outcome.status === "timeout" || done.outcome.status === "memory_limit" || done.outcome.status === "output_limit" || done.outcome.status === "cancelled";
      if (interpreter.dead || (!config.session && limitHit)) replaceInterpreter(interpreter.dead ? "the interpreter was stopped" : `the run ended ${done.outcome.status}`);
      else if (!config.session) {
        const miss = await awaitReset(interpreter, RESET_TIMEOUT_MS);
        if (miss) replaceInterpreter(miss);
        else send({ type: "ready" });
      } else send({ type: "ready" });
      return;
    }
    case "check": {
      const done = await execute(interpreter, request.id, { type: "check", code: request.code }, { timeoutMs: 10_000, memoryLimitBytes: 256 * 1024 * 1024, maxOutputBytes: 0, maxResultBytes: 0 });
      send({ type: "checked", id: request.id, outcome: done.outcome });
      if (interpreter.dead) replaceInterpreter("the interpreter was stopped");
      else send({ type: "ready" });
      return;
    }
    case "functions": {
      const nonce = newNonce();
      const names = await new Promise<string[]>((resolve) => {
        const timer = setTimeout(() => {
          kill(interpreter);
          resolve([]);
        }, 10_000);
        interpreter.worker.onmessage = (event) => {
          const data = event.data as Nonced<WorkerMessage> | null;
          clearTimeout(timer);
          if (data?.nonce === nonce && data.type === "functions" && Array.isArray(data.names)) {
            resolve(data.names.filter((n): n is string => typeof n === "string").slice(0, 10_000));
          } else {
            kill(interpreter);
            resolve([]);
          }
        };
        interpreter.worker.postMessage({ type: "functions", nonce });
      });
      interpreter.worker.onmessage = null;
      send({ type: "functions", id: request.id, names });
      if (interpreter.dead) replaceInterpreter("the interpreter was stopped");
      else send({ type: "ready" });
      return;
    }
    case "fingerprint": {
      const nonce = newNonce();
      const reply = await new Promise<{ baseline: Record<string, string>; now: Record<string, string> }>((resolve) => {
        const empty = { baseline: {}, now: { error: "no fingerprint" } };
        if (config.introspection !== true) return resolve(empty);
        const timer = setTimeout(() => resolve(empty), 30_000);
        interpreter.worker.onmessage = (event) => {
          const data = event.data as Nonced<WorkerMessage> | null;
          clearTimeout(timer);
          resolve(data?.nonce === nonce && data.type === "fingerprint" ? { baseline: data.baseline, now: data.now } : empty);
        };
        interpreter.worker.postMessage({ type: "fingerprint", nonce });
      });
      interpreter.worker.onmessage = null;
      send({ type: "fingerprint", id: request.id, ...reply });
      send({ type: "ready" });
      return;
    }
    case "session-image":
    case "session-restore": {
      const nonce = newNonce();
      const reply = await new Promise<Nonced<WorkerMessage> | undefined>((resolve) => {
        // Hashing ~30 MB of memory and copying the pages take well under this.
        const timer = setTimeout(() => resolve(undefined), 30_000);
        interpreter.worker.onmessage = (event) => {
          clearTimeout(timer);
          resolve(event.data as Nonced<WorkerMessage>);
        };
        if (request.type === "session-image") interpreter.worker.postMessage({ type: "session-image", nonce });
        else {
          const image = { memoryBytes: request.memoryBytes, pageIndex: new Uint32Array(fromBase64(request.pageIndex).buffer), pages: fromBase64(request.pages), state: request.state };
          const fresh = typeof request.freshJavascript === "string" && /^[0-9a-f]{64}$/.test(request.freshJavascript) ? { freshJavascript: request.freshJavascript } : {};
          interpreter.worker.postMessage({ type: "session-restore", image, ...fresh, nonce }, [image.pageIndex.buffer as ArrayBuffer, image.pages.buffer as ArrayBuffer]);
        }
      });
      interpreter.worker.onmessage = null;
      const valid = reply?.nonce === nonce && reply.type === (request.type === "session-image" ? "session-image" : "session-restored");
      if (!valid) {
        // No answer, or not the one asked for: the interpreter cannot be trusted with the session.
        kill(interpreter);
        send(request.type === "session-image" ? { type: "session-image", id: request.id, refused: "the interpreter did not answer" } : { type: "session-restored", id: request.id, refused: "the interpreter did not answer" });
      } else if (reply.type === "session-image") {
        const image = reply.image;
        if (typeof reply.refused === "string" || !image) send({ type: "session-image", id: request.id, refused: String(reply.refused ?? "no image").slice(0, 300) });
        else if (!(image.pageIndex instanceof Uint32Array) || !(image.pages instanceof Uint8Array) || !(image.fileBytes instanceof Uint8Array) || image.pages.byteLength !== image.pageIndex.length * 4096 || typeof image.state !== "object" || image.state === null) {
          kill(interpreter);
          send({ type: "session-image", id: request.id, refused: "the interpreter sent a malformed image" });
        } else {
          // Base64 of the pages and files past the host's line bound: refused here, since the
          // host kills a process whose line passes it (the live session would end; red team).
          const lineBytes = ((image.pages.byteLength + image.fileBytes.byteLength + image.pageIndex.byteLength) * 4) / 3 + 64 * 1024;
          if (lineBytes > MAX_SESSION_IMAGE_LINE_BYTES) send({ type: "session-image", id: request.id, refused: `the image is too large (about ${Math.round(lineBytes / 1048576)} MiB encoded, at most ${MAX_SESSION_IMAGE_LINE_BYTES / 1048576} MiB)` });
          else {
            const state = JSON.stringify({ ...image.state, files: toBase64(image.fileBytes) });
            const index = new Uint8Array(image.pageIndex.buffer, image.pageIndex.byteOffset, image.pageIndex.byteLength);
            const line = { type: "session-image" as const, id: request.id, memoryBytes: Number(image.memoryBytes), pageIndex: toBase64(index), pages: toBase64(image.pages), state };
            if (line.pages.length + line.state.length + line.pageIndex.length + 1024 > MAX_SESSION_IMAGE_LINE_BYTES) send({ type: "session-image", id: request.id, refused: "the image is too large" });
            else send(line);
          }
        }
      } else if (reply.type === "session-restored") {
        // The restore's garbage (the request line, its decoded pages and files) is resident until
        // V8 collects it: the session's floor is the process now less what the session keeps, or
        // its next run is stopped at the limit where the live session's is not (red team).
        if (reply.refused === undefined && typeof reply.keptBytes === "number" && Number.isFinite(reply.keptBytes)) {
          interpreter.readyRss = Math.max(interpreter.readyRss, Deno.memoryUsage().rss - Math.max(0, reply.keptBytes));
        }
        const walked = typeof reply.freshJavascript === "string" && /^[0-9a-f]{64}$/.test(reply.freshJavascript) ? { freshJavascript: reply.freshJavascript } : {};
        send({ type: "session-restored", id: request.id, ...(typeof reply.refused === "string" ? { refused: reply.refused.slice(0, 300) } : {}), ...walked });
      }
      if (interpreter.dead) replaceInterpreter("the interpreter was stopped");
      else send({ type: "ready" });
      return;
    }
    case "cancel":
    case "host-reply":
      return;
  }
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
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
  // The second line: the packages to install in every interpreter (wheels.ts).
  const second = await lines.next();
  if (second.done) Deno.exit(0);
  const sent = JSON.parse(second.value) as { files: Record<string, string>; topLevel: string[]; native?: string[]; lockImports?: Record<string, string> };
  packages = { files: fromBase64Files(sent.files), topLevel: sent.topLevel, native: sent.native ?? [], lockImports: sent.lockImports ?? {} };
  const obtained = await obtainSnapshot();
  // A snapshot that is in the cache file is read from there again (snapshotForInterpreter).
  if (snapshotInFile) firstRead = obtained;
  else snapshot = obtained;
  current = startInterpreter();
  try {
    await current.ready;
  } catch (error) {
    send({ type: "fatal", message: `could not start a Python interpreter: ${String(error)}` });
    Deno.exit(1);
  }
  send({ type: "ready" });
  // Requests are handled one at a time, in order; the host sends the next after a reply.
  // A cancel is handled at once: it names the run it stops.
  let queue = Promise.resolve();
  for await (const line of lines) {
    const request = JSON.parse(line) as HostRequest;
    if (request.type === "cancel") {
      if (active?.id === request.id) active.stop("cancelled");
      continue;
    }
    if (request.type === "prepare-images") {
      // Before any run (the host sends it right after the session's process is ready).
      if (config.session && current && !current.dead && !active) current.worker.postMessage({ type: "prepare-images", keep: request.keep === true, nonce: "" });
      continue;
    }
    if (request.type === "host-reply") {
      // Answered at once: the run that waits for it holds the queue.
      const target = relaying;
      if (target && target.hostId === request.id) {
        const { id: _id, type: _type, ...reply } = request;
        target.interpreter.worker.postMessage({ ...reply, type: "host-reply", run: target.run, nonce: target.nonce });
      }
      continue;
    }
    queue = queue.then(() => handle(request)).catch((error: unknown) => send({ type: "fatal", message: String(error) }));
  }
  // The host closed stdin: it is gone (the host never closes it while it wants answers; a
  // killed host leaves it closed). Nobody reads what a run would answer, and the host's own
  // deadlines went with it: stop now, runs and all (else a `while True` ran on, orphaned).
  Deno.exit(0);
}

await main();
