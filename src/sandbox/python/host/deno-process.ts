/**
 * One Deno runner process seen from the host: spawns it with permissions denied, speaks the
 * JSON-lines protocol, and backs the runner's own limits with host-side ones (a wall-clock
 * kill and an RSS watchdog), so a wedged or ballooning process is killed from outside.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ExecutionResult, ExecutionStatus, JsonValue } from "../../types.js";
import { checkDenoReadPaths, type PythonPaths } from "./deno-paths.js";
import type { HostReply, HostRequest, PythonOutcome, RunLimits, RunnerMessage } from "../shared/protocol.js";
import { EngineSetupError } from "./errors.js";
import { HostCallBroker } from "./host-calls.js";
import { noExtras, type PythonRunExtras } from "./run-extras.js";
import { extrasLineBytes, finishResult, requestExtras } from "./run-result.js";
import { TokenLineReader } from "./stdout-reader.js";
import { checkResultReply } from "./reply-check.js";
import { checkOutcome } from "../shared/outcome-check.js";
import { MAX_SESSION_IMAGE_LINE_BYTES } from "../shared/bounds.js";
import { cancelledResult } from "../../cancelled.js";

/** Extra time past `timeoutMs` before the host kills the whole process (the runner terminates a run that ignores its interrupt at +150 ms in a pool, +1 s in a session). */
export const HOST_KILL_GRACE_MS = 1500;
/**
 * Resident memory a run may add beyond `memoryLimitBytes` before the host kills the process.
 * The runner's own watchdog (48 MiB slack, 10 ms polls) stops the worker first; this is the
 * backstop for a runner that cannot.
 */
export const RSS_SLACK_BYTES = 128 * 1024 * 1024;
/** A process not ready after this long is killed (making a snapshot on a loaded machine can take a minute). */
export const STARTUP_TIMEOUT_MS = 180_000;
/** How often the RSS watchdog samples the process during a run. */
const RSS_POLL_MS = 20;
/** V8 heap limit of the Deno process (Pyodide's own heap is WebAssembly memory, capped separately). */
const V8_OLD_SPACE_MB = 512;
const PAGE_BYTES = 4096;
/**
 * Bound of the one big message: the memory snapshot (base64, ~42 MB for Pyodide 314) sent once,
 * before the first "ready". After that, lines are bounded by the request's caps.
 */
export const SNAPSHOT_LINE_LIMIT_BYTES = 96 * 1024 * 1024;
/** Bound of a reply that carries no user output (ready, check, function names, fatal). */
const SMALL_LINE_LIMIT_BYTES = 1024 * 1024;
/** A session image's reply: base64 of up to the memory limit's heap and the files (an image past it is not kept). */
const IMAGE_LINE_LIMIT_BYTES = MAX_SESSION_IMAGE_LINE_BYTES;
/** Raw bytes the guest may write outside the channel while no run is going before the process is replaced. */
const IDLE_GUEST_BYTES_LIMIT = 64 * 1024;

/**
 * Longest result line the host accepts for a run: the output and the result are capped by the
 * runner, and JSON escaping can grow a byte to at most six (`\u0000`).
 */
export function resultLineLimitBytes(limits: RunLimits): number {
  return 6 * (limits.maxOutputBytes + limits.maxResultBytes) + 64 * 1024;
}

/** Builds the `deno run` command line: read access to Pyodide and the runner only, everything else denied. */
export function denoArgs(paths: PythonPaths, session: boolean, introspection = false): string[] {
  // Checked again here, where the list is made (paths may have been changed since they were resolved).
  checkDenoReadPaths(paths);
  const config = JSON.stringify({ pyodideUrl: `file://${paths.pyodideDir}`, snapshotPath: paths.snapshotFile, session, ...(introspection ? { introspection } : {}) });
  return [
    "run",
    "--no-config",
    "--no-lock",
    "--no-npm",
    "--no-remote",
    "--no-prompt",
    "--quiet",
    // Packages with native code are read by Pyodide's loader from the package cache: those files
    // only (package-fetch.ts checked their sha256); still no network.
    `--allow-read=${[paths.pyodideDir, paths.runnerDir, paths.sharedDir, paths.snapshotFile, ...(paths.packages?.native ?? []).map((n) => n.path)].join(",")}`,
    "--deny-write",
    "--deny-net",
    "--deny-env",
    "--deny-run",
    "--deny-ffi",
    "--deny-sys",
    // No eval or `new Function` anywhere in the process: a guest that reaches its realm's
    // Function constructor (`constructor.constructor`) cannot turn strings into code.
    // --liftoff-only: Pyodide's 10 MB of WebAssembly stays on the baseline compiler: less resident
    // memory (`npm run bench -- python`, row "memory per ready interpreter (Deno process RSS)"),
    // a faster start, and no background tier-up competing with runs for the CPU (docs/python.md).
    `--v8-flags=--max-old-space-size=${V8_OLD_SPACE_MB},--disallow-code-generation-from-strings,--liftoff-only,--max-semi-space-size=2`,
    join(paths.runnerDir, "runner.js"),
    config,
  ];
}

/** A run's result plus what the engine needs to know about the interpreter behind it. */
export type ProcessResult = ExecutionResult & {
  /** The interpreter (or its process) was killed during the run: a session's state is gone. */
  interpreterLost?: boolean;
};

/** After a cancel request, how long the runner gets to stop the run before the process is killed. */
export const CANCEL_KILL_MS = 280;

type Pending = {
  resolve(message: RunnerMessage): void;
  reject(error: Error): void;
};

/** Why the host killed the process, so the pending request can report the right status. */
type KillReason = "timeout" | "memory_limit" | "output_limit" | "cancelled" | "dispose" | "fault";

/**
 * A Deno runner process. One request at a time; `ready` is true when an interpreter waits.
 *
 * @example
 * const proc = new DenoProcess(resolvePythonPaths(), false);
 * await proc.whenReady();
 * const result = await proc.run("1 + 1", {}, limits);
 * proc.dispose();
 */
export class DenoProcess {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #paths: PythonPaths;
  readonly #session: boolean;
  #sessionRss: number | undefined;
  /** Authenticates the runner's messages (see runner.ts); with its trailing space. */
  readonly #token = `${randomBytes(16).toString("hex")} `;
  readonly #reader = new TokenLineReader(Buffer.from(this.#token), SNAPSHOT_LINE_LIMIT_BYTES);
  /** Raw guest bytes allowed in the current state (the run's output cap, or a small idle budget). */
  #guestBytesLimit = IDLE_GUEST_BYTES_LIMIT;
  #everReady = false;
  #stderrTail = "";
  #nextId = 1;
  #pending = new Map<number, Pending>();
  #readyWaiters: Array<{ resolve(): void; reject(error: Error): void }> = [];
  #killReason: KillReason | undefined;
  #clearStartup: () => void = () => undefined;
  #ready = false;
  #exited = false;
  #busy = false;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
  /** Called whenever the process becomes ready (an interpreter waits) or exits. */
  onChange: (() => void) | undefined;

  /**
   * @param introspection tests only: the interpreter answers `fingerprint()` (the reset's
   *   differential test); never set by the engine.
   */
  constructor(paths: PythonPaths, session: boolean, introspection = false) {
    this.#paths = paths;
    this.#session = session;
    this.#child = spawn(paths.denoBinary, denoArgs(paths, session, introspection), {
      stdio: ["pipe", "pipe", "pipe"],
      // Nothing of the host's environment crosses over (Deno also denies env access).
      env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", DENO_DIR: join(dirname(paths.snapshotFile), "deno-dir") },
    });
    this.#child.stdout.on("data", (chunk: Buffer) => this.#onStdout(chunk));
    this.#child.stderr.on("data", (chunk: Buffer) => this.#onStderr(chunk));
    this.#child.stdout.on("error", () => undefined);
    this.#child.stderr.on("error", () => undefined);
    this.#child.stdin.write(`${this.#token.trim()}\n`);
    // Second line: the packages to install (wheels.ts), read by the runner before any Python runs.
    this.#child.stdin.write(packagesLine(paths));
    this.#child.stdin.on("error", () => {
      // EPIPE after the process died; the exit handler reports it.
    });
    this.exited = new Promise((resolve) => {
      this.#child.on("exit", (code, signal) => {
        this.#onExit(code, signal);
        resolve();
      });
      this.#child.on("error", (error) => {
        this.#onExit(null, null, error);
        resolve();
      });
    });
    // Only a caller waiting on this process (whenReady, a request) keeps the host alive.
    this.#setRef(false);
    const startup = setTimeout(() => {
      this.#stderrTail += `\nnot ready after ${STARTUP_TIMEOUT_MS} ms`;
      this.#kill("dispose");
    }, STARTUP_TIMEOUT_MS);
    startup.unref();
    this.#clearStartup = () => clearTimeout(startup);
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }
  get ready(): boolean {
    return this.#ready && !this.#exited;
  }
  get busy(): boolean {
    return this.#busy;
  }
  get alive(): boolean {
    return !this.#exited;
  }
  /** Why the runner replaced its interpreter before the latest `ready` ("" when it reset it in place). */
  get lastReplaced(): string {
    return this.#lastReplaced;
  }
  #lastReplaced = "";

  /** Resolves when an interpreter is ready; rejects with `EngineSetupError` if the process dies first. */
  whenReady(): Promise<void> {
    if (this.#exited) return Promise.reject(this.#deathError());
    if (this.#ready) return Promise.resolve();
    this.#setRef(true);
    return new Promise((resolve, reject) => this.#readyWaiters.push({ resolve, reject }));
  }

  /** Runs code (pool mode: in a fresh interpreter; session mode: in the session's). */
  async run(code: string, globals: Record<string, JsonValue>, limits: RunLimits, signal?: AbortSignal, extras: PythonRunExtras = noExtras()): Promise<ProcessResult> {
    return this.#execute({ type: "run", id: this.#nextId++, code, globals, ...limits, ...requestExtras(extras, true) }, limits, signal, extras);
  }

  /** Calls a function defined in the session's namespace. */
  async call(name: string, args: JsonValue[], limits: RunLimits, signal?: AbortSignal, extras: PythonRunExtras = noExtras()): Promise<ProcessResult> {
    return this.#execute({ type: "call", id: this.#nextId++, name, args, ...limits, ...requestExtras(extras, false) }, limits, signal, extras);
  }

  /** Syntax and import check; does not consume the interpreter. */
  async check(code: string): Promise<PythonOutcome> {
    const reply = await this.#request({ type: "check", id: this.#nextId++, code });
    const outcome = reply.type === "checked" ? checkOutcome(reply.outcome, 0, true) : "not a check reply";
    if (typeof outcome === "string") {
      this.#kill("fault");
      throw new EngineSetupError(`the interpreter process sent a malformed check reply (${outcome}); the process was replaced`);
    }
    return outcome;
  }

  /** Names of the functions defined in a session. */
  async functionNames(): Promise<string[]> {
    const reply = await this.#request({ type: "functions", id: this.#nextId++ });
    if (reply.type !== "functions" || !Array.isArray(reply.names)) {
      this.#kill("fault");
      throw new EngineSetupError("the interpreter process sent a malformed function listing; the process was replaced");
    }
    return (reply.names as unknown[]).filter((name): name is string => typeof name === "string" && name.length <= 200).slice(0, 10_000);
  }

  /** Tests only: the fingerprint of the ready interpreter now and when it was fresh (needs `introspection`). */
  async fingerprint(): Promise<{ baseline: Record<string, string>; now: Record<string, string> }> {
    const reply = await this.#request({ type: "fingerprint", id: this.#nextId++ }, 16 * 1024 * 1024);
    if (reply.type !== "fingerprint") throw new EngineSetupError(`unexpected reply "${reply.type}" to a fingerprint`);
    // The runner says "ready" just after the reply.
    await this.whenReady();
    return { baseline: reply.baseline, now: reply.now };
  }

  /**
   * The session's image now (session-image.ts in the runner), or why it cannot be taken: page
   * numbers, pages and the worker-side state. Nothing the image holds is trusted here beyond its
   * shape: it goes into a signed record and back into an interpreter only.
   */
  async sessionImage(): Promise<{ memoryBytes: number; pageIndex: Uint32Array; pages: Uint8Array; state: string } | string> {
    const reply = await this.#request({ type: "session-image", id: this.#nextId++ }, IMAGE_LINE_LIMIT_BYTES);
    await this.whenReady().catch(() => undefined);
    if (reply.type !== "session-image") throw new EngineSetupError(`unexpected reply "${reply.type}" to a session image`);
    if (typeof reply.refused === "string") return reply.refused;
    if (typeof reply.pageIndex !== "string" || typeof reply.pages !== "string" || typeof reply.state !== "string" || !Number.isSafeInteger(reply.memoryBytes)) return "the interpreter sent a malformed image";
    const index = Buffer.from(reply.pageIndex, "base64");
    const pages = new Uint8Array(Buffer.from(reply.pages, "base64"));
    if (index.byteLength % 4 !== 0 || pages.byteLength !== (index.byteLength / 4) * 4096) return "the interpreter sent a malformed image";
    const pageIndex = new Uint32Array(index.byteLength / 4);
    for (let i = 0; i < pageIndex.length; i++) pageIndex[i] = index.readUInt32LE(i * 4);
    return { memoryBytes: reply.memoryBytes!, pageIndex, pages, state: reply.state };
  }

  /**
   * Tells a session's interpreter, before its first run, that it will be imaged (`keep`: its
   * first run hashes the fresh memory first) or, for a process started ahead, to prepare in idle
   * time. No reply.
   */
  prepareImages(keep: boolean): void {
    if (this.#session && this.#ready) this.#send({ type: "prepare-images", id: 0, keep });
  }

  /** Writes an image into the session's interpreter (which has run nothing yet): undefined when done, else why it was refused. */
  async restoreSessionImage(image: { memoryBytes: number; pageIndex: Uint32Array; pages: Uint8Array; state: string }, freshJavascript?: string): Promise<{ refused?: string; freshJavascript?: string }> {
    const index = Buffer.alloc(image.pageIndex.length * 4);
    image.pageIndex.forEach((page, i) => index.writeUInt32LE(page, i * 4));
    const reply = await this.#request({
      type: "session-restore",
      id: this.#nextId++,
      memoryBytes: image.memoryBytes,
      pageIndex: index.toString("base64"),
      pages: Buffer.from(image.pages.buffer, image.pages.byteOffset, image.pages.byteLength).toString("base64"),
      state: image.state,
      ...(freshJavascript ? { freshJavascript } : {}),
    });
    await this.whenReady().catch(() => undefined);
    if (reply.type !== "session-restored") throw new EngineSetupError(`unexpected reply "${reply.type}" to a session restore`);
    return {
      ...(typeof reply.refused === "string" ? { refused: reply.refused } : {}),
      ...(typeof reply.freshJavascript === "string" && /^[0-9a-f]{64}$/.test(reply.freshJavascript) ? { freshJavascript: reply.freshJavascript } : {}),
    };
  }

  /** Kills the process; pending requests settle with their failure. */
  dispose(): void {
    // Keep the host alive until the exit is seen, so `await exited` settles. Once disposing,
    // nothing takes the references back (a `ready` line still in the pipe used to, and Node
    // then exited with code 13 in the middle of `await dispose()`).
    if (!this.#exited) {
      this.#disposing = true;
      this.#setRef(true);
    }
    this.#kill("dispose");
  }
  #disposing = false;

  async #execute(request: HostRequest & { type: "run" | "call" }, limits: RunLimits, signal: AbortSignal | undefined, extras: PythonRunExtras): Promise<ProcessResult> {
    const startedAt = performance.now();
    const isRun = request.type === "run";
    if (signal?.aborted) return finishResult(cancelledResult("python", signal, false), undefined, extras, isRun, 0);
    const broker = new HostCallBroker(extras.hostFunctions, extras, (callId, reply) => this.#sendHostReply(request.id, callId, reply));
    this.#brokers.set(request.id, broker);
    let cancelKill: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      // The runner interrupts Python and replies "cancelled"; if it cannot, the process goes.
      this.#send({ type: "cancel", id: request.id });
      cancelKill = setTimeout(() => this.#kill("cancelled"), CANCEL_KILL_MS);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const deadline = setTimeout(() => this.#kill("timeout"), limits.timeoutMs + HOST_KILL_GRACE_MS);
    // A session keeps its state: its memory is counted from its first run on, not per run.
    const baselineRss = this.#session ? (this.#sessionRss ??= this.#rssBytes()) : this.#rssBytes();
    const watchdog = setInterval(() => {
      const rss = this.#rssBytes();
      if (rss !== undefined && baselineRss !== undefined && rss - baselineRss > limits.memoryLimitBytes + RSS_SLACK_BYTES) {
        this.#kill("memory_limit");
      }
    }, RSS_POLL_MS);
    watchdog.unref();
    try {
      const received = await this.#request(request, resultLineLimitBytes(limits) + extrasLineBytes(extras), limits.maxOutputBytes);
      broker.end();
      // The process ran guest code: a reply that does not pass the check replaces it.
      const reply = checkResultReply(received, limits);
      if (typeof reply === "string") {
        this.#kill("fault");
        return finishResult({
          status: "runtime_error",
          stdout: "",
          stderr: "",
          outputTruncated: false,
          error: { name: "InterpreterError", message: `the interpreter process sent a malformed result (${reply}); the process was replaced` },
          durationMs: performance.now() - startedAt,
          language: "python",
          interpreterLost: true,
        }, undefined, extras, isRun, broker.started);
      }
      const result = toExecutionResult(reply.outcome, reply.stdout, reply.stderr, reply.outputTruncated, reply.durationMs, reply.interpreterReset);
      return finishResult(result, reply, extras, isRun, broker.started);
    } catch (error) {
      broker.end();
      const reason = this.#killReason;
      if (reason === "timeout" || reason === "memory_limit" || reason === "output_limit" || reason === "cancelled") {
        return finishResult({ ...killedResult(reason, limits, performance.now() - startedAt, this.#rawFlood), interpreterLost: true }, undefined, extras, isRun, broker.started);
      }
      if (error instanceof ProcessDiedError) {
        const outOfMemory = /out of memory|allocation fail/i.test(this.#stderrTail);
        return finishResult({
          status: outOfMemory ? "memory_limit" : "runtime_error",
          stdout: "",
          stderr: "",
          outputTruncated: false,
          error: {
            name: outOfMemory ? "MemoryError" : "InterpreterError",
            message: outOfMemory
              ? "the interpreter process ran out of memory and was stopped; output was lost"
              : `the Python interpreter process exited unexpectedly; output was lost (${error.message})`,
          },
          durationMs: performance.now() - startedAt,
          language: "python",
          interpreterLost: true,
        }, undefined, extras, isRun, broker.started);
      }
      throw error;
    } finally {
      broker.end();
      this.#brokers.delete(request.id);
      clearTimeout(deadline);
      clearInterval(watchdog);
      if (cancelKill !== undefined) clearTimeout(cancelKill);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  #send(request: HostRequest): void {
    if (this.#exited) return;
    try {
      this.#child.stdin.write(JSON.stringify(request) + "\n");
    } catch {
      // The exit handler reports a dead process.
    }
  }

  #request(request: HostRequest, lineLimitBytes = SMALL_LINE_LIMIT_BYTES, guestBytesLimit = IDLE_GUEST_BYTES_LIMIT): Promise<RunnerMessage> {
    if (this.#exited) return Promise.reject(new ProcessDiedError(this.#deathDetail()));
    if (!this.#ready) return Promise.reject(new EngineSetupError("a request was sent before the interpreter was ready (engine bug)"));
    this.#busy = true;
    this.#ready = false;
    this.#reader.lineLimitBytes = lineLimitBytes;
    this.#reader.resetGuestBytes();
    this.#guestBytesLimit = guestBytesLimit;
    this.#setRef(true);
    return new Promise<RunnerMessage>((resolve, reject) => {
      this.#pending.set(request.id, { resolve, reject });
      this.#send(request);
    }).finally(() => {
      this.#busy = false;
      this.#reader.lineLimitBytes = SMALL_LINE_LIMIT_BYTES;
      this.#reader.resetGuestBytes();
      this.#guestBytesLimit = IDLE_GUEST_BYTES_LIMIT;
      this.#updateRef();
    });
  }

  /** Never throws: a fault here would take the host down with the guest. */
  #onStdout(chunk: Buffer): void {
    try {
      for (const event of this.#reader.push(chunk)) {
        if (event.kind === "overflow") {
          this.#stderrTail += `\na message of the runner passed its ${this.#reader.lineLimitBytes}-byte bound`;
          this.#kill(this.#busy ? "output_limit" : "fault");
          return;
        }
        let message: RunnerMessage;
        try {
          message = JSON.parse(event.json) as RunnerMessage;
        } catch {
          continue;
        }
        if (message === null || typeof message !== "object") continue;
        this.#onMessage(message);
      }
      this.#checkGuestBytes();
    } catch (error) {
      this.#stderrTail += `\nhost-side fault reading the runner: ${String(error)}`;
      this.#kill("fault");
    }
  }

  #onStderr(chunk: Buffer): void {
    try {
      // Deno's own errors are short; a guest may flood stderr too, so it counts like raw stdout.
      this.#reader.guestBytes += chunk.length;
      this.#stderrTail = (this.#stderrTail + chunk.subarray(Math.max(0, chunk.length - 4000)).toString("utf8")).slice(-4000);
      this.#checkGuestBytes();
    } catch {
      this.#kill("fault");
    }
  }

  /** Bytes outside the channel mean the guest reached its realm: past the budget, the process goes. */
  #checkGuestBytes(): void {
    if (this.#reader.guestBytes > this.#guestBytesLimit) {
      this.#rawFlood = true;
      this.#kill(this.#busy ? "output_limit" : "fault");
    }
  }
  #rawFlood = false;

  #onMessage(message: RunnerMessage): void {
    switch (message.type) {
      case "ready":
        this.#clearStartup();
        this.#lastReplaced = typeof message.replaced === "string" ? message.replaced.slice(0, 200) : "";
        this.#everReady = true;
        this.#reader.lineLimitBytes = SMALL_LINE_LIMIT_BYTES;
        this.#ready = true;
        for (const waiter of this.#readyWaiters.splice(0)) waiter.resolve();
        this.#updateRef();
        this.onChange?.();
        return;
      case "snapshot":
        // Only before the first "ready": the runner sends it before any Python runs.
        if (!this.#everReady && typeof message.base64 === "string") saveSnapshot(this.#paths.snapshotFile, message.base64);
        return;
      case "fatal":
        this.#stderrTail = (this.#stderrTail + `\n${String(message.message).slice(0, 1000)}`).slice(-4000);
        return;
      case "host-call":
        // Checked and bounded by the run's broker (an unknown id is dropped).
        if (typeof message.id === "number") this.#brokers.get(message.id)?.handle(message.callId, message.name, message.argsJson);
        return;
      default: {
        // Runner errors reply to requests with the request's id.
        if (typeof (message as { id?: unknown }).id !== "number") return;
        const pending = this.#pending.get(message.id);
        if (!pending) return;
        this.#pending.delete(message.id);
        pending.resolve(message);
      }
    }
  }

  #brokers = new Map<number, HostCallBroker>();

  #sendHostReply(id: number, callId: number, reply: HostReply): void {
    if (!this.#brokers.has(id)) return;
    this.#send({ type: "host-reply", id, callId, ...reply });
  }

  #onExit(code: number | null, signal: NodeJS.Signals | null, error?: Error): void {
    if (this.#exited) return;
    this.#exited = true;
    this.#ready = false;
    const detail = error ? error.message : `exit code ${code ?? "none"}, signal ${signal ?? "none"}`;
    this.#deathDetailText = detail;
    for (const waiter of this.#readyWaiters.splice(0)) waiter.reject(this.#deathError());
    for (const pending of this.#pending.values()) pending.reject(new ProcessDiedError(this.#deathDetail()));
    this.#pending.clear();
    this.#updateRef();
    this.onChange?.();
  }

  #deathDetailText = "";
  #deathDetail(): string {
    const tail = this.#stderrTail.trim().split("\n").slice(-3).join(" | ");
    return `${this.#deathDetailText}${tail ? `; ${tail.slice(0, 600)}` : ""}`;
  }
  #deathError(): EngineSetupError {
    return new EngineSetupError(`the Deno interpreter process stopped (${this.#deathDetail()})`);
  }

  #kill(reason: KillReason): void {
    if (this.#exited) return;
    this.#killReason ??= reason;
    this.#child.kill("SIGKILL");
  }

  #rssBytes(): number | undefined {
    if (this.#child.pid === undefined || process.platform !== "linux") return undefined;
    try {
      const fields = readFileSync(`/proc/${this.#child.pid}/statm`, "utf8").split(" ");
      return Number(fields[1]) * PAGE_BYTES;
    } catch {
      return undefined;
    }
  }

  /**
   * The process and its pipes keep the host alive only while someone waits on them: a request,
   * a `whenReady`, or a `dispose` whose exit is not seen yet. After the exit nothing does.
   */
  #updateRef(): void {
    this.#setRef(!this.#exited && (this.#disposing || this.#busy || this.#readyWaiters.length > 0));
  }
  #setRef(on: boolean): void {
    const handles = [this.#child, this.#child.stdin, this.#child.stdout, this.#child.stderr] as Array<{ ref?(): void; unref?(): void }>;
    for (const handle of handles) {
      if (on) handle.ref?.();
      else handle.unref?.();
    }
  }
}

/** The process died while a request was pending. */
class ProcessDiedError extends Error {
  override name = "ProcessDiedError";
}

const packageLines = new WeakMap<object, string>();
/** The second stdin line: the packages to install (base64), cached per package set. */
function packagesLine(paths: PythonPaths): string {
  const packages = paths.packages;
  const lockImports = paths.lockImports ?? {};
  if (!packages) return `${JSON.stringify({ files: {}, topLevel: [], native: [], lockImports })}\n`;
  let line = packageLines.get(packages);
  if (line === undefined) {
    const files = Object.fromEntries(Object.entries(packages.files).map(([path, bytes]) => [path, Buffer.from(bytes).toString("base64")]));
    line = `${JSON.stringify({ files, topLevel: packages.topLevel, native: (packages.native ?? []).map((n) => n.path), lockImports })}\n`;
    packageLines.set(packages, line);
  }
  return line;
}

function saveSnapshot(file: string, base64: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, Buffer.from(base64, "base64"));
    renameSync(temporary, file);
  } catch {
    // A read-only install: every new process makes its own snapshot (slower start, same behaviour).
  }
}

function toExecutionResult(
  outcome: PythonOutcome,
  stdout: string,
  stderr: string,
  outputTruncated: boolean,
  durationMs: number,
  interpreterReset: boolean,
): ProcessResult {
  const result: ProcessResult = { status: outcome.status, stdout, stderr, outputTruncated, durationMs, language: "python" };
  if (outcome.resultJson !== undefined) result.result = JSON.parse(outcome.resultJson) as JsonValue;
  if (outcome.error) result.error = { ...outcome.error };
  if (interpreterReset) result.interpreterLost = true;
  return result;
}


function killedResult(reason: "timeout" | "memory_limit" | "output_limit" | "cancelled", limits: RunLimits, durationMs: number, rawFlood: boolean): ExecutionResult {
  const status: ExecutionStatus = reason;
  const messages = {
    timeout: { name: "TimeoutError", message: `execution passed the ${limits.timeoutMs} ms time limit; the interpreter process was killed and its output lost` },
    memory_limit: { name: "MemoryError", message: `the interpreter process grew past the ${limits.memoryLimitBytes}-byte memory limit and was killed; output was lost` },
    output_limit: {
      name: "OutputLimitError",
      message: rawFlood
        ? `the program wrote more than ${limits.maxOutputBytes} bytes around the sandbox's output channel; the interpreter process was replaced and its output lost. Print less, with print().`
        : `the program's reply passed its size bound (${limits.maxOutputBytes}-byte output cap, ${limits.maxResultBytes}-byte result cap); the interpreter process was replaced and its output lost`,
    },
    cancelled: { name: "CancelledError", message: "the run was cancelled by the caller; the interpreter process was stopped and its output lost" },
  } as const;
  return { status, stdout: "", stderr: "", outputTruncated: reason === "output_limit", error: { ...messages[reason] }, durationMs, language: "python" };
}
