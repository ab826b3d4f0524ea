/**
 * A Python session: one interpreter in its own Deno process whose globals survive between
 * calls, so generated functions can be defined once and called many times.
 */
import { InvalidOptionError, SandboxDisposedError, SandboxSessionEndedError } from "../../../errors.js";
import { assertJsonValue } from "../../options.js";
import type { EngineSessionOptions, EngineSnapshot, ExecutionResult, JsonValue, RunOptions, SandboxSession } from "../../types.js";
import type { PythonPaths } from "./deno-paths.js";
import { DenoProcess, type ProcessResult } from "./deno-process.js";
import { resolveSessionOptions, runLimits } from "./limits.js";
import { extrasOfRun } from "./run-extras.js";
import { freshJavascriptOf, keepFreshJavascript, pythonEngineBuild } from "./session-images.js";

/**
 * Starts a session process and waits until its interpreter is ready.
 *
 * - A call stopped by its soft interrupt (a timeout Python noticed) keeps the session's state.
 * - A call whose interpreter or process had to be killed (a hard timeout, the memory limit,
 *   an output flood, a fault, a cancellation) ends the session: later calls throw
 *   `SandboxSessionEndedError`, as in a JavaScript session.
 *
 * @example
 * const session = await createPythonSession(resolvePythonPaths(), { language: "python", defaults: {}, memoryLimitBytes: 64 * 1024 * 1024 });
 * await session.run("def add(a, b):\n    return a + b");
 * (await session.call("add", [1, 2])).result; // 3
 * await session.dispose();
 */
export async function createPythonSession(paths: PythonPaths, options: EngineSessionOptions, spare?: DenoProcess): Promise<SandboxSession> {
  // A session process started ahead (`prestartSession`) that never ran anything, if it started.
  if (spare?.alive && !spare.busy) {
    try {
      await spare.whenReady();
      if (options.snapshottable) spare.prepareImages(true);
      return new PythonSession(spare, options, paths);
    } catch {
      spare.dispose();
    }
  } else spare?.dispose();
  const process = new DenoProcess(paths, true);
  try {
    await process.whenReady();
  } catch (error) {
    process.dispose();
    throw error;
  }
  if (options.snapshottable) process.prepareImages(true);
  return new PythonSession(process, options, paths);
}

class PythonSession implements SandboxSession {
  readonly language = "python" as const;
  readonly #options: EngineSessionOptions;
  readonly #process: DenoProcess;
  #queue: Promise<unknown> = Promise.resolve();
  #disposed = false;
  #endedReason: string | undefined;

  readonly #paths: PythonPaths;
  /** False once anything ran: an image is written only into an interpreter that ran nothing. */
  #fresh = true;

  constructor(process: DenoProcess, options: EngineSessionOptions, paths: PythonPaths) {
    this.#process = process;
    this.#options = options;
    this.#paths = paths;
  }

  /** The interpreter's image between runs (session-image.ts), or why it cannot be taken now. */
  snapshot(): Promise<EngineSnapshot | string> {
    this.#assertUsable();
    return this.#serialRaw(async () => {
      this.#assertUsable();
      await this.#process.whenReady();
      const image = await this.#process.sessionImage();
      if (!this.#process.alive) this.#endedReason ??= "its interpreter stopped while an image was taken";
      return typeof image === "string" ? image : { engine: pythonEngineBuild(this.#paths), ...image };
    });
  }

  /** Writes an image of a session of this build into this one, which must not have run anything. */
  restoreSnapshot(snapshot: EngineSnapshot): Promise<string | undefined> {
    this.#assertUsable();
    if (typeof snapshot !== "object" || snapshot === null || !(snapshot.pageIndex instanceof Uint32Array) || !(snapshot.pages instanceof Uint8Array) || typeof snapshot.state !== "string") {
      throw new InvalidOptionError("snapshot", snapshot, "an EngineSnapshot from session.snapshot()");
    }
    return this.#serialRaw(async () => {
      this.#assertUsable();
      if (!this.#fresh) return "this session has already run code";
      const build = pythonEngineBuild(this.#paths);
      if (snapshot.engine !== build) return `it was taken by another engine build (${String(snapshot.engine).slice(0, 80)}, this is ${build})`;
      await this.#process.whenReady();
      let refused: string | undefined;
      try {
        const known = freshJavascriptOf(this.#paths, build);
        const answer = await this.#process.restoreSessionImage(snapshot, known);
        refused = answer.refused;
        if (answer.freshJavascript && answer.freshJavascript !== known) keepFreshJavascript(this.#paths, build, answer.freshJavascript);
      } catch (error) {
        this.#endedReason ??= "its interpreter stopped while an image was written";
        this.#process.dispose();
        throw new SandboxSessionEndedError(`${this.#endedReason} (${error instanceof Error ? error.message : String(error)})`);
      }
      if (!this.#process.alive || this.#process.lastReplaced !== "") {
        // The interpreter was touched, then failed: its state is neither the image's nor fresh.
        this.#endedReason ??= "its interpreter stopped while an image was written";
        this.#process.dispose();
        throw new SandboxSessionEndedError(this.#endedReason);
      }
      if (refused === undefined) this.#fresh = false;
      return refused;
    });
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  run(code: string, options: Omit<RunOptions, "language"> = {}): Promise<ExecutionResult> {
    this.#assertUsable();
    this.#fresh = false;
    if (typeof code !== "string") throw new InvalidOptionError("code", code, "a string of Python source");
    const resolved = resolveSessionOptions(options, this.#options);
    const extras = extrasOfRun(resolved);
    return this.#serial((process) => process.run(code, resolved.globals, runLimits(resolved), resolved.signal, extras));
  }

  call(name: string, args: JsonValue[] = [], options: Omit<RunOptions, "language" | "globals"> = {}): Promise<ExecutionResult> {
    this.#assertUsable();
    this.#fresh = false;
    if (typeof name !== "string" || name.length === 0) throw new InvalidOptionError("name", name, "the name of a function defined in the session");
    if (!Array.isArray(args)) throw new InvalidOptionError("args", args, "an array of JSON values");
    const resolved = resolveSessionOptions(options, this.#options);
    const extras = extrasOfRun(resolved);
    assertJsonValue(args, "args");
    return this.#serial((process) => process.call(name, args, runLimits(resolved), resolved.signal, extras));
  }

  functionNames(): Promise<string[]> {
    this.#assertUsable();
    return this.#serialRaw(async () => {
      this.#assertUsable();
      // The runner says "ready" just after a run's result: wait for it, like run and call do.
      await this.#process.whenReady();
      return this.#process.functionNames();
    });
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#endedReason ??= "it was disposed";
    await this.#queue.catch(() => undefined);
    this.#process.dispose();
    await this.#process.exited;
  }

  /** One call at a time; a call that cost the interpreter its state ends the session. */
  #serial(work: (process: DenoProcess) => Promise<ProcessResult>): Promise<ExecutionResult> {
    return this.#serialRaw(async () => {
      this.#assertUsable();
      await this.#process.whenReady();
      const result = await work(this.#process);
      if (result.interpreterLost || !this.#process.alive) {
        this.#endedReason ??= `a call ended with status ${result.status} and its interpreter had to be stopped`;
        this.#process.dispose();
        if (result.error) result.error.message += "; the session has ended (its state is gone): create a new session";
      }
      delete result.interpreterLost;
      return result;
    });
  }

  #serialRaw<T>(task: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(task, task);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  #assertUsable(): void {
    if (this.#disposed) throw new SandboxDisposedError("The Python session");
    if (this.#endedReason !== undefined) throw new SandboxSessionEndedError(this.#endedReason);
  }
}
