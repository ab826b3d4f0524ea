/**
 * One Deno runner process seen from the host: spawns it with permissions denied, speaks the
 * JSON-lines protocol, and backs the runner's own limits with host-side ones (a wall-clock
 * kill and an RSS watchdog), so a wedged or ballooning process is killed from outside.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ExecutionResult, ExecutionStatus, JsonValue } from "../types.js";
import type { PythonPaths } from "./deno-paths.js";
import type { HostReply, HostRequest, PythonOutcome, RunLimits, RunnerMessage } from "./deno/protocol.js";
import { EngineSetupError } from "./errors.js";
import { HostCallBroker } from "./host-calls.js";
import { finishResult, requestExtras } from "./run-result.js";
import { noExtras, type PythonRunExtras } from "./run-extras.js";

/** Extra time past `timeoutMs` before the host kills the whole process (the runner stops the run itself at +150 ms). */
export const HOST_KILL_GRACE_MS = 1500;
/** Resident memory a run may add beyond `memoryLimitBytes` before the host kills the process (JS-side buffers, output). */
export const RSS_SLACK_BYTES = 256 * 1024 * 1024;
/** A process not ready after this long is killed (making a snapshot on a loaded machine can take a minute). */
export const STARTUP_TIMEOUT_MS = 180_000;
/** How often the RSS watchdog samples the process during a run. */
const RSS_POLL_MS = 50;
/** V8 heap limit of the Deno process (Pyodide's own heap is WebAssembly memory, capped separately). */
const V8_OLD_SPACE_MB = 512;
const PAGE_BYTES = 4096;

/** Builds the `deno run` command line: read access to Pyodide and the runner only, everything else denied. */
export function denoArgs(paths: PythonPaths, session: boolean): string[] {
  const config = JSON.stringify({ pyodideUrl: `file://${paths.pyodideDir}`, snapshotPath: paths.snapshotFile, session });
  return [
    "run",
    "--no-config",
    "--no-lock",
    "--no-npm",
    "--no-remote",
    "--no-prompt",
    "--quiet",
    `--allow-read=${paths.pyodideDir},${paths.runnerDir},${paths.snapshotFile}`,
    "--deny-write",
    "--deny-net",
    "--deny-env",
    "--deny-run",
    "--deny-ffi",
    "--deny-sys",
    `--v8-flags=--max-old-space-size=${V8_OLD_SPACE_MB}`,
    join(paths.runnerDir, "runner.js"),
    config,
  ];
}

type Pending = {
  resolve(message: RunnerMessage): void;
  reject(error: Error): void;
};

/** Why the host killed the process, so the pending request can report the right status. */
type KillReason = "timeout" | "memory_limit" | "dispose";

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
  /** Authenticates the runner's messages (see runner.ts); with its trailing space. */
  readonly #token = `${randomBytes(16).toString("hex")} `;
  #stdoutParts: string[] = [];
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

  constructor(paths: PythonPaths, session: boolean) {
    this.#paths = paths;
    this.#child = spawn(paths.denoBinary, denoArgs(paths, session), {
      stdio: ["pipe", "pipe", "pipe"],
      // Nothing of the host's environment crosses over (Deno also denies env access).
      env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", DENO_DIR: join(dirname(paths.snapshotFile), "deno-dir") },
    });
    this.#child.stdout.setEncoding("utf8");
    this.#child.stderr.setEncoding("utf8");
    this.#child.stdout.on("data", (chunk: string) => this.#onStdout(chunk));
    this.#child.stderr.on("data", (chunk: string) => {
      this.#stderrTail = (this.#stderrTail + chunk).slice(-4000);
    });
    this.#child.stdin.write(`${this.#token.trim()}\n`);
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

  /** Resolves when an interpreter is ready; rejects with `EngineSetupError` if the process dies first. */
  whenReady(): Promise<void> {
    if (this.#exited) return Promise.reject(this.#deathError());
    if (this.#ready) return Promise.resolve();
    this.#setRef(true);
    return new Promise((resolve, reject) => this.#readyWaiters.push({ resolve, reject }));
  }

  /** Runs code (pool mode: in a fresh interpreter; session mode: in the session's). */
  async run(code: string, globals: Record<string, JsonValue>, limits: RunLimits, extras: PythonRunExtras = noExtras()): Promise<ExecutionResult> {
    return this.#execute({ type: "run", id: this.#nextId++, code, globals, ...limits, ...requestExtras(extras, true) }, limits, extras);
  }

  /** Calls a function defined in the session's namespace. */
  async call(name: string, args: JsonValue[], limits: RunLimits, extras: PythonRunExtras = noExtras()): Promise<ExecutionResult> {
    return this.#execute({ type: "call", id: this.#nextId++, name, args, ...limits, ...requestExtras(extras, false) }, limits, extras);
  }

  /** Syntax and import check; does not consume the interpreter. */
  async check(code: string): Promise<PythonOutcome> {
    const reply = await this.#request({ type: "check", id: this.#nextId++, code });
    if (reply.type !== "checked") throw new EngineSetupError(`unexpected reply "${reply.type}" to a check`);
    return reply.outcome;
  }

  /** Names of the functions defined in a session. */
  async functionNames(): Promise<string[]> {
    const reply = await this.#request({ type: "functions", id: this.#nextId++ });
    if (reply.type !== "functions") throw new EngineSetupError(`unexpected reply "${reply.type}" to a function listing`);
    return reply.names;
  }

  /** Kills the process; pending requests settle with their failure. */
  dispose(): void {
    // Keep the host alive until the exit is seen, so `await exited` settles.
    if (!this.#exited) this.#setRef(true);
    this.#kill("dispose");
  }

  async #execute(request: HostRequest & { type: "run" | "call" }, limits: RunLimits, extras: PythonRunExtras): Promise<ExecutionResult> {
    const startedAt = performance.now();
    const broker = new HostCallBroker(extras.hostFunctions, extras, (callId, reply) => this.#sendHostReply(request.id, callId, reply));
    this.#brokers.set(request.id, broker);
    const deadline = setTimeout(() => this.#kill("timeout"), limits.timeoutMs + HOST_KILL_GRACE_MS);
    const baselineRss = this.#rssBytes();
    const watchdog = setInterval(() => {
      const rss = this.#rssBytes();
      if (rss !== undefined && baselineRss !== undefined && rss - baselineRss > limits.memoryLimitBytes + RSS_SLACK_BYTES) {
        this.#kill("memory_limit");
      }
    }, RSS_POLL_MS);
    watchdog.unref();
    try {
      const reply = await this.#request(request);
      if (reply.type !== "result") throw new EngineSetupError(`unexpected reply "${reply.type}" to a run`);
      broker.end();
      return finishResult(toExecutionResult(reply.outcome, reply.stdout, reply.stderr, reply.outputTruncated, reply.durationMs, reply.interpreterReset), reply, extras, request.type === "run", broker.started);
    } catch (error) {
      broker.end();
      if (this.#killReason === "timeout" || this.#killReason === "memory_limit") {
        return finishResult(killedResult(this.#killReason, limits, performance.now() - startedAt), undefined, extras, request.type === "run", broker.started);
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
        }, undefined, extras, request.type === "run", broker.started);
      }
      throw error;
    } finally {
      broker.end();
      this.#brokers.delete(request.id);
      clearTimeout(deadline);
      clearInterval(watchdog);
    }
  }

  #request(request: HostRequest): Promise<RunnerMessage> {
    if (this.#exited) return Promise.reject(new ProcessDiedError(this.#deathDetail()));
    if (!this.#ready) return Promise.reject(new EngineSetupError("a request was sent before the interpreter was ready (engine bug)"));
    this.#busy = true;
    this.#ready = false;
    this.#setRef(true);
    return new Promise<RunnerMessage>((resolve, reject) => {
      this.#pending.set(request.id, { resolve, reject });
      this.#child.stdin.write(JSON.stringify(request) + "\n");
    }).finally(() => {
      this.#busy = false;
      this.#updateRef();
    });
  }

  #onStdout(chunk: string): void {
    // Scan only the new chunk: a snapshot arrives as one ~42 MB line in many chunks.
    let start = 0;
    let newline = chunk.indexOf("\n");
    while (newline >= 0) {
      const line = this.#stdoutParts.join("") + chunk.slice(start, newline);
      this.#stdoutParts = [];
      start = newline + 1;
      newline = chunk.indexOf("\n", start);
      // Lines without the token come from guest code writing to the process's stdout: ignored.
      const at = line.indexOf(this.#token);
      if (at < 0) continue;
      let message: RunnerMessage;
      try {
        message = JSON.parse(line.slice(at + this.#token.length)) as RunnerMessage;
      } catch {
        continue;
      }
      this.#onMessage(message);
    }
    if (start < chunk.length) this.#stdoutParts.push(chunk.slice(start));
  }

  #onMessage(message: RunnerMessage): void {
    switch (message.type) {
      case "ready":
        this.#clearStartup();
        this.#ready = true;
        for (const waiter of this.#readyWaiters.splice(0)) waiter.resolve();
        this.#updateRef();
        this.onChange?.();
        return;
      case "snapshot":
        saveSnapshot(this.#paths.snapshotFile, message.base64);
        return;
      case "fatal":
        this.#stderrTail = (this.#stderrTail + `\n${message.message}`).slice(-4000);
        return;
      case "host-call":
        this.#brokers.get(message.id)?.handle(message.callId, message.name, message.argsJson);
        return;
      default: {
        // Runner errors reply to requests with the request's id.
        const pending = this.#pending.get(message.id);
        if (!pending) return;
        this.#pending.delete(message.id);
        pending.resolve(message);
      }
    }
  }

  #brokers = new Map<number, HostCallBroker>();

  #sendHostReply(id: number, callId: number, reply: HostReply): void {
    if (this.#exited || !this.#brokers.has(id)) return;
    const request: HostRequest = { type: "host-reply", id, callId, ...reply };
    this.#child.stdin.write(JSON.stringify(request) + "\n");
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

  /** The process and its pipes keep the host alive only while someone waits on them. */
  #updateRef(): void {
    this.#setRef(this.#busy || this.#readyWaiters.length > 0);
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
): ExecutionResult {
  const result: ExecutionResult = { status: outcome.status, stdout, stderr, outputTruncated, durationMs, language: "python" };
  if (outcome.resultJson !== undefined) result.result = JSON.parse(outcome.resultJson) as JsonValue;
  if (outcome.error) {
    result.error = { ...outcome.error };
    if (interpreterReset) {
      result.error.message += " (the session's interpreter was restarted: everything defined earlier is gone)";
    }
  }
  return result;
}

function killedResult(reason: "timeout" | "memory_limit", limits: RunLimits, durationMs: number): ExecutionResult {
  const status: ExecutionStatus = reason;
  return {
    status,
    stdout: "",
    stderr: "",
    outputTruncated: false,
    error:
      reason === "timeout"
        ? { name: "TimeoutError", message: `execution passed the ${limits.timeoutMs} ms time limit; the interpreter process was killed and its output lost` }
        : { name: "MemoryError", message: `the interpreter process grew past the ${limits.memoryLimitBytes}-byte memory limit and was killed; output was lost` },
    durationMs,
    language: "python",
  };
}
