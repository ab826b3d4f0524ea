/**
 * The host's side of the shell: owns the one worker thread that interprets command lines,
 * keeps its replica of the file store in step, answers its program requests with the
 * package's engines, and bounds every command. A command that passes its time limit is
 * stopped (exit 124), and its thread terminated if it does not stop; a thread that runs out
 * of heap is replaced (exit 137). A command stopped either way changes no file (its changes
 * are discarded and the next command starts from the store). Everything the worker sends is
 * checked here before it is used.
 */
import { Worker } from "node:worker_threads";
import type { ExecuteResponse } from "deepagents";
import { SandboxDisposedError } from "../errors.js";
import type { FileStore } from "./file-store.js";
import { normalizePath } from "./file-store.js";
import type { ResolvedCodeGenSandboxOptions } from "./options.js";
import { runProgram } from "./programs.js";
import { MAX_PROGRAMS_IN_FLIGHT, MAX_PROGRAM_ARGS_CHARS, type HostToShell, type ProgramOutcome, type ProgramRequest, type ShellToHost, type ShellWorkerData } from "./protocol.js";
import { PROGRAM_COMMANDS, availableCommandsLine } from "./shell-commands.js";
import { TypeCheckThread } from "./type-check-thread.js";

/** How long a command may take to stop after its deadline before its thread is terminated. */
export const STOP_GRACE_MS = 1000;
/** Prefix of the lines the sandbox adds to a command's output. */
const NOTE = "[codegen-sandbox]";
/** just-bash's message when a command line's output passes `maxOutputSize`. */
const OUTPUT_BOUND_HIT = /output size limit exceeded \(\d+ bytes\)/;

/** The worker script, next to this module's built copy (tests of the sources: test/support/built-workers.ts). */
function shellWorkerUrl(): URL {
  return new URL("./worker/shell-worker.js", import.meta.url);
}

interface ActiveCommand {
  id: number;
  /** Aborted at the deadline or on close: stops the command's program runs. */
  abort: AbortController;
  /** Why the host stopped the command, once it has. */
  stopped?: "timeout" | "closed";
  programsInFlight: number;
  /** True when output was cut: a program's past its cap, or the command line's past the interpreter's bound. */
  outputCut: boolean;
  startedMs: number;
  deadline: NodeJS.Timeout;
  killTimer?: NodeJS.Timeout;
  finish(response: ExecuteResponse): void;
}

/** The shell's worker thread and the command it runs (see the module comment). */
export class ShellHost {
  private worker: Worker | undefined;
  private ready: Promise<void> | undefined;
  /** False when the replica may differ from the store (new thread, discarded command). */
  private replicaInStep = false;
  private active: ActiveCommand | undefined;
  /** Commands run one at a time, in the order they were asked for. */
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private closed = false;
  /** Bytes of output the interpreter may hold (also the most a program may be piped). */
  private readonly shellOutputBound: number;
  /** `tsc`'s checker, in a thread of its own (started by the first `tsc`). */
  private readonly typeChecker: TypeCheckThread;

  constructor(
    private readonly store: FileStore,
    private readonly options: ResolvedCodeGenSandboxOptions,
  ) {
    this.shellOutputBound = Math.max(16 * options.maxOutputBytes, 4 * 1024 * 1024);
    this.typeChecker = new TypeCheckThread(options.shellMemoryLimitBytes);
  }

  /** Starts the worker ahead of the first command (the thread loads the interpreter, ~0.1-0.3 s). */
  async warm(): Promise<void> {
    if (this.closed) throw new SandboxDisposedError("This CodeGenSandbox");
    try {
      await this.ensureWorker();
    } catch (error) {
      // close() during the start ended the thread: that is a disposal, not a failure.
      if (this.closed) throw new SandboxDisposedError("This CodeGenSandbox");
      throw error;
    }
  }

  /** Runs one command line; resolves with its output and exit code (never rejects for what the command does). */
  execute(command: string): Promise<ExecuteResponse> {
    if (this.closed) return Promise.reject(new SandboxDisposedError("This CodeGenSandbox"));
    const run = this.queue.then(() => this.runCommand(command));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Terminates the worker; a running command ends with exit code 130. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const active = this.active;
    if (active) {
      active.stopped = "closed";
      active.abort.abort();
      this.endActive({ output: `${NOTE} the sandbox was closed while this command ran.`, exitCode: 130, truncated: false });
    }
    const worker = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    await Promise.all([worker?.terminate(), this.typeChecker.close()]);
  }

  /** True while a worker thread (the shell's or the type checker's) exists (for tests of disposal). */
  get hasWorker(): boolean {
    return this.worker !== undefined || this.typeChecker.hasWorker;
  }

  private async runCommand(command: string): Promise<ExecuteResponse> {
    if (this.closed) throw new SandboxDisposedError("This CodeGenSandbox");
    try {
      await this.ensureWorker();
    } catch (error) {
      if (this.closed) throw new SandboxDisposedError("This CodeGenSandbox");
      return { output: `${NOTE} the shell could not start: ${(error as Error).message}`, exitCode: 126, truncated: false };
    }
    if (this.closed) throw new SandboxDisposedError("This CodeGenSandbox");
    const worker = this.worker!;
    const id = this.nextId++;
    const sync = this.replicaInStep ? { reset: false, changes: this.store.takeChanges() } : { reset: true, changes: { upserts: this.store.snapshot(), deletes: [] } };
    if (sync.reset) this.store.clearChanges();
    this.replicaInStep = true;
    return new Promise<ExecuteResponse>((resolve) => {
      const active: ActiveCommand = {
        id,
        abort: new AbortController(),
        programsInFlight: 0,
        outputCut: false,
        startedMs: performance.now(),
        deadline: setTimeout(() => this.onDeadline(active), this.options.timeoutMs),
        finish: resolve,
      };
      this.active = active;
      worker.ref();
      const message: HostToShell = { type: "exec", id, command, timeoutMs: this.options.timeoutMs + 50, sync };
      worker.postMessage(message);
    });
  }

  private ensureWorker(): Promise<void> {
    if (this.ready) return this.ready;
    const settings: ShellWorkerData = {
      maxShellOutputBytes: this.shellOutputBound,
      maxFileBytes: this.options.limits.maxFileBytes,
      maxTotalFileBytes: this.options.limits.maxTotalFileBytes,
      env: this.options.env,
    };
    // execArgv: [] keeps the host's loaders and flags out; env: {} gives the thread an empty
    // process.env (nothing of the host's); the heap limit bounds what a command line can make
    // the interpreter hold. Its console goes to streams read by nobody but a bounded sink.
    const worker = new Worker(shellWorkerUrl(), {
      execArgv: [],
      env: {},
      resourceLimits: {
        maxOldGenerationSizeMb: Math.floor(this.options.shellMemoryLimitBytes / (1024 * 1024)),
        maxYoungGenerationSizeMb: 16,
        stackSizeMb: 4,
      },
      stdout: true,
      stderr: true,
      workerData: settings,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    this.worker = worker;
    this.replicaInStep = false;
    this.ready = new Promise<void>((resolve, reject) => {
      const onMessage = (message: ShellToHost): void => {
        if (message?.type !== "ready") return;
        worker.off("message", onMessage);
        if (!this.active) worker.unref();
        resolve();
      };
      worker.on("message", onMessage);
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`the shell's thread exited with code ${code} while starting`)));
    });
    this.ready.catch(() => undefined);
    worker.on("message", (message: ShellToHost) => this.onMessage(worker, message));
    worker.on("error", (error) => this.onWorkerLost(worker, error));
    worker.on("exit", () => this.onWorkerLost(worker, undefined));
    return this.ready;
  }

  private onMessage(worker: Worker, message: ShellToHost): void {
    const active = this.active;
    if (worker !== this.worker || message === null || typeof message !== "object") return;
    if (message.type === "ready") return;
    if (!active || message.id !== active.id) return;
    if (message.type === "program") {
      void this.serveProgram(worker, active, message.callId, message.request);
      return;
    }
    if (message.type === "exec-done") {
      this.onExecDone(active, message);
      return;
    }
    this.violation(worker, "the shell sent a message of an unknown kind");
  }

  private onExecDone(active: ActiveCommand, message: Extract<ShellToHost, { type: "exec-done" }>): void {
    const cap = 4 * this.shellOutputBound;
    const { stdout, exitCode } = message;
    let { stderr } = message;
    if (typeof stdout !== "string" || typeof stderr !== "string" || stdout.length + stderr.length > cap || !Number.isInteger(exitCode) || exitCode < 0 || exitCode > 255) {
      this.violation(this.worker!, "the shell's answer was malformed");
      return;
    }
    // just-bash names its own options in some messages; here they are the sandbox's limits.
    stderr = stderr.replace(/, increase executionLimits\.\w+/g, " (a limit of this sandbox's shell)");
    if (active.stopped === "timeout") {
      this.replicaInStep = false;
      const kept = stderr.replace(/^bash: execution aborted\n?/m, "");
      this.endActive(this.response(stdout, kept, 124, active, `the command was stopped at its ${this.options.timeoutMs} ms time limit (timeoutMs); its file changes were discarded.`));
      return;
    }
    const refused = this.store.applyReplicaChanges(message.changes);
    if (refused !== undefined) {
      this.replicaInStep = false;
      this.endActive(this.response(stdout, stderr, exitCode === 0 ? 1 : exitCode, active, `the command's file changes were discarded: ${refused}.`));
      return;
    }
    let note: string | undefined;
    if (exitCode === 127 && /command not found/.test(stderr)) note = availableCommandsLine();
    else if (exitCode === 126 && OUTPUT_BOUND_HIT.test(stderr)) {
      // The interpreter stopped the command line and dropped what it held: the output is cut
      // (a command line could print the same text; it would only mark its own output cut).
      active.outputCut = true;
      note = `the command line was stopped: a command's output passed ${this.shellOutputBound} bytes, the most the shell holds, and was dropped. Print less (| head, | tail, > file).`;
    }
    this.endActive(this.response(stdout, stderr, exitCode, active, note, exitCode === 127));
  }

  private async serveProgram(worker: Worker, active: ActiveCommand, callId: number, request: ProgramRequest): Promise<void> {
    // The worker waits for a free slot before it asks (each request holds a copy of every
    // file): one past the bound is a broken protocol, not a busy sandbox.
    const problem = active.programsInFlight >= MAX_PROGRAMS_IN_FLIGHT ? `more than ${MAX_PROGRAMS_IN_FLIGHT} at once` : invalidProgramRequest(request, this.options, this.shellOutputBound);
    if (problem !== undefined) {
      this.violation(worker, `the shell asked for a malformed program run (${problem})`);
      return;
    }
    let outcome: ProgramOutcome;
    active.programsInFlight++;
    try {
      outcome = await runProgram(request, {
        timeoutMs: this.options.timeoutMs - (performance.now() - active.startedMs),
        memoryLimitBytes: this.options.memoryLimitBytes,
        maxOutputBytes: this.options.maxOutputBytes,
        maxFileBytes: this.options.limits.maxFileBytes,
        maxTotalFileBytes: this.options.limits.maxTotalFileBytes,
        ...(this.options.sandbox ? { sandbox: this.options.sandbox } : {}),
        typeChecker: this.typeChecker,
        typeCheckerHeapBytes: this.options.shellMemoryLimitBytes,
        signal: active.abort.signal,
      });
    } catch (error) {
      outcome = { stdout: "", stderr: `${request.command}: the engine failed: ${(error as Error).message}\n`, exitCode: 126, truncated: false, written: [], removed: [] };
    } finally {
      active.programsInFlight--;
    }
    if (outcome.truncated) active.outputCut = true;
    if (this.active !== active || this.worker !== worker) return;
    const message: HostToShell = { type: "program-done", id: active.id, callId, outcome };
    worker.postMessage(message);
  }

  private onDeadline(active: ActiveCommand): void {
    if (this.active !== active) return;
    active.stopped = "timeout";
    active.abort.abort();
    this.worker?.postMessage({ type: "abort", id: active.id } satisfies HostToShell);
    active.killTimer = setTimeout(() => {
      if (this.active !== active) return;
      const worker = this.worker;
      this.dropWorker();
      void worker?.terminate();
      this.endActive({
        output: `${NOTE} the command was stopped at its ${this.options.timeoutMs} ms time limit (timeoutMs): it did not stop by itself, so the shell was restarted; its output and file changes were discarded.`,
        exitCode: 124,
        truncated: false,
      });
    }, STOP_GRACE_MS);
  }

  private onWorkerLost(worker: Worker, error: Error | undefined): void {
    if (worker !== this.worker) return;
    this.dropWorker();
    const active = this.active;
    if (!active) return;
    const outOfMemory = (error as { code?: string } | undefined)?.code === "ERR_WORKER_OUT_OF_MEMORY";
    this.endActive(
      outOfMemory
        ? { output: `${NOTE} the shell ran out of memory (shellMemoryLimitBytes is ${this.options.shellMemoryLimitBytes}); it was restarted and the command's output and file changes were discarded.`, exitCode: 137, truncated: false }
        : { output: `${NOTE} the shell stopped unexpectedly${error ? ` (${error.message.slice(0, 200)})` : ""}; it was restarted and the command's output and file changes were discarded.`, exitCode: 126, truncated: false },
    );
  }

  /** The worker broke the protocol: it is not trusted again. */
  private violation(worker: Worker, reason: string): void {
    if (worker !== this.worker) return;
    this.dropWorker();
    void worker.terminate();
    this.endActive({ output: `${NOTE} ${reason}; the shell was stopped and restarted, and the command's file changes were discarded.`, exitCode: 126, truncated: false });
  }

  private dropWorker(): void {
    this.worker = undefined;
    this.ready = undefined;
    this.replicaInStep = false;
  }

  private endActive(response: ExecuteResponse): void {
    const active = this.active;
    if (!active) return;
    this.active = undefined;
    clearTimeout(active.deadline);
    if (active.killTimer) clearTimeout(active.killTimer);
    active.abort.abort();
    this.worker?.unref();
    active.finish(response);
  }

  /** stdout then stderr, cut at `maxOutputBytes`, with the sandbox's note last. */
  private response(stdout: string, stderr: string, exitCode: number, active: ActiveCommand, note?: string, noteIsPlain = false): ExecuteResponse {
    let output = stdout;
    if (stderr !== "") output += `${output === "" || output.endsWith("\n") ? "" : "\n"}${stderr}`;
    let truncated = active.outputCut;
    const bytes = Buffer.byteLength(output);
    if (bytes > this.options.maxOutputBytes) {
      output = cutToBytes(output, this.options.maxOutputBytes);
      truncated = true;
      output += `\n${NOTE} output truncated: ${bytes} bytes, the first ${this.options.maxOutputBytes} kept (maxOutputBytes).`;
    }
    if (note !== undefined) output += `${output === "" || output.endsWith("\n") ? "" : "\n"}${noteIsPlain ? note : `${NOTE} ${note}`}`;
    return { output, exitCode, truncated };
  }
}

/** The longest prefix of `text` that fits in `maxBytes` of UTF-8, never splitting a character. */
function cutToBytes(text: string, maxBytes: number): string {
  const buffer = Buffer.from(text);
  let end = maxBytes;
  while (end > 0 && (buffer[end]! & 0xc0) === 0x80) end--;
  return buffer.subarray(0, end).toString();
}

/** Why a program request from the worker is not well formed, or `undefined`. */
function invalidProgramRequest(request: ProgramRequest, options: ResolvedCodeGenSandboxOptions, maxStdinChars: number): string | undefined {
  const r = request as Partial<ProgramRequest> | null;
  if (r === null || typeof r !== "object") return "not an object";
  if (typeof r.command !== "string" || PROGRAM_COMMANDS[r.command] !== r.program) return "unknown program";
  if (!Array.isArray(r.args) || !r.args.every((a) => typeof a === "string")) return "bad arguments";
  const cwd = normalizePath(r.cwd);
  if (!("path" in cwd) || cwd.path !== r.cwd) return "bad working directory";
  if (r.env === null || typeof r.env !== "object" || Array.isArray(r.env) || !Object.values(r.env).every((v) => typeof v === "string")) return "bad environment";
  // Counted as the worker counts them before it asks (ARG_MAX).
  let argChars = 0;
  for (const a of r.args) argChars += a.length + 1;
  for (const [k, v] of Object.entries(r.env as Record<string, string>)) argChars += k.length + v.length + 2;
  if (argChars > MAX_PROGRAM_ARGS_CHARS) return "arguments and environment too long";
  if (typeof r.stdin !== "string" || r.stdin.length > maxStdinChars) return "bad stdin";
  if (!Array.isArray(r.files) || r.files.length > options.limits.maxFiles) return "bad file list";
  let total = 0;
  for (const item of r.files) {
    if (!Array.isArray(item) || item.length !== 2 || !(item[1] instanceof Uint8Array)) return "bad file";
    const p = normalizePath(item[0]);
    if (!("path" in p) || p.path !== item[0] || p.path === "/") return "bad file path";
    total += item[1].byteLength;
  }
  if (total > options.limits.maxTotalFileBytes) return "files over maxTotalFileBytes";
  return undefined;
}
