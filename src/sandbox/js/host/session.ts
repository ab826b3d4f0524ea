/**
 * A JavaScript/TypeScript session: one worker thread keeps ONE QuickJS runtime and context
 * alive between calls, so functions and globals that earlier code defined can be called later.
 */
import { InvalidOptionError, SandboxDisposedError, SandboxSessionEndedError } from "../../../errors.js";
import { assertJsonValue, isIdentifier, resolveRunOptions } from "../../options.js";
import type { EngineSessionOptions, EngineSnapshot, ExecutionResult, JsonValue, RunOptions, SandboxSession, SequencedRun } from "../../types.js";
import { EngineWorker } from "./worker-client.js";
import { runRequest, workerLimits } from "./run-request.js";

/** Statuses after which a session's context is not trusted any more and the session ends. */
const ENDING_STATUSES = new Set(["timeout", "memory_limit"]);

/**
 * A live session on its own worker thread. Create it with `sandbox.createSession()`.
 *
 * - Script code: top-level `function f`, `var`, and assignments to `globalThis` persist;
 *   top-level `let`/`const`/`class` persist too (callable by name), but are not listed by
 *   `functionNames()`.
 * - Module code (has `export`): named exports become globals of the session; the awaited
 *   `export default` is the call's result.
 * - A call that times out, runs out of memory or crashes the engine ends the session: later
 *   calls throw `SandboxSessionEndedError`.
 * - A call cancelled through `signal` while it runs ends the session the same way: its thread
 *   is stopped mid-way through the code, so the context cannot be trusted. A call cancelled
 *   before it started (still queued behind another call) returns `cancelled` and the session
 *   goes on.
 * - Each session has its own worker thread (`npm run bench -- js`, row "memory per live session"): a session killed by the watchdog
 *   never takes another session down with it.
 *
 * @example
 * const session = await createSandbox().createSession({ language: "typescript" });
 * await session.run("export function area(w: number, h: number) { return w * h; }");
 * (await session.call("area", [3, 4])).result; // 12
 */
export class JavaScriptSession implements SandboxSession {
  private readonly worker: EngineWorker;
  private endedReason: string | undefined;
  private isDisposed = false;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly language: "javascript" | "typescript",
    private readonly memoryLimitBytes: number,
    private readonly defaults: EngineSessionOptions["defaults"],
    private readonly onDispose: (session: JavaScriptSession) => void,
    spare: EngineWorker | undefined,
  ) {
    const onDeath = () => {
      this.endedReason ??= this.worker.deathReason ?? "its engine stopped";
    };
    // A worker started ahead is used only if it never ran anything: it has served no request
    // (the engine hands it to one session only) and has not died.
    if (spare && !spare.dead && !spare.busy) {
      spare.adopt(onDeath);
      this.worker = spare;
    } else {
      if (spare) void spare.terminate();
      this.worker = new EngineWorker(onDeath, "context", language);
    }
    this.worker.post({ type: "session-open", memoryLimitBytes });
  }

  /**
   * Starts a session's worker (or takes `spare`, one the engine started ahead for this language)
   * and waits until its engine is loaded. A spare that failed to start is replaced by a new one.
   */
  static async open(
    language: "javascript" | "typescript",
    memoryLimitBytes: number,
    defaults: EngineSessionOptions["defaults"],
    onDispose: (session: JavaScriptSession) => void,
    spare?: EngineWorker,
  ): Promise<JavaScriptSession> {
    const session = new JavaScriptSession(language, memoryLimitBytes, defaults, onDispose, spare);
    try {
      await session.worker.ready;
    } catch (error) {
      if (!spare || session.worker !== spare) throw error;
      // The spare's start failed: start this session's own worker, and report its failure if it fails too.
      return JavaScriptSession.open(language, memoryLimitBytes, defaults, onDispose);
    }
    return session;
  }

  get disposed(): boolean {
    return this.isDisposed;
  }

  /** True while the session's worker thread is running (false once ended or disposed). */
  get alive(): boolean {
    return !this.worker.dead;
  }

  async run(code: string, options?: Omit<RunOptions, "language">): Promise<ExecutionResult> {
    this.assertUsable();
    if (typeof code !== "string") throw new InvalidOptionError("code", code, "a string of source code");
    const o = resolveRunOptions({ ...options, language: this.language, memoryLimitBytes: this.memoryLimitBytes }, this.defaults);
    return this.serial(() =>
      this.worker.request(
        runRequest(code, this.language, o),
        this.language,
        o,
      ),
    );
  }

  async runSequence(runs: SequencedRun[]): Promise<ExecutionResult[]> {
    this.assertUsable();
    const requests = runs.map((r, i) => {
      if (typeof r.code !== "string") throw new InvalidOptionError(`runs[${i}].code`, r.code, "a string of source code");
      if (r.carryFiles && (i === 0 || r.options?.files !== undefined)) {
        throw new InvalidOptionError(`runs[${i}].carryFiles`, true, i === 0 ? "false on the first run (there is no run before it)" : "false when the run has its own files");
      }
      const o = resolveRunOptions({ ...r.options, language: this.language, memoryLimitBytes: this.memoryLimitBytes }, this.defaults);
      return { request: { ...runRequest(r.code, this.language, o), ...(r.carryFiles ? { carryFiles: true } : {}) }, controls: o };
    });
    if (requests.length === 0) return [];
    return this.serialRaw(async () => {
      if (this.endedReason !== undefined) throw new SandboxSessionEndedError(this.endedReason);
      const ends = await this.worker.requestSequence(
        requests.map((r) => r.request),
        this.language,
        requests.map((r) => r.controls),
      );
      const last = ends.at(-1)!;
      if (last.workerLost || ENDING_STATUSES.has(last.result.status)) {
        this.endedReason ??= `a call ended with status ${last.result.status}`;
        await this.worker.terminate();
      }
      return ends.map((e) => e.result);
    });
  }

  async call(
    name: string,
    args: JsonValue[] = [],
    options?: Omit<RunOptions, "language" | "globals">,
  ): Promise<ExecutionResult> {
    this.assertUsable();
    if (typeof name !== "string" || !isIdentifier(name)) {
      throw new InvalidOptionError("name", name, "the name of a function the session's code defined (an identifier)");
    }
    if (!Array.isArray(args)) throw new InvalidOptionError("args", args, "an array of JSON values");
    assertJsonValue(args, "args");
    const o = resolveRunOptions({ ...options, language: this.language, memoryLimitBytes: this.memoryLimitBytes }, this.defaults);
    return this.serial(() =>
      this.worker.request(
        {
          type: "session-call",
          runId: 0,
          name,
          argsJson: JSON.stringify(args),
          hostFunctionNames: Object.keys(o.hostFunctions),
          ...workerLimits(o),
          ...(o.files !== undefined ? { files: o.files } : {}),
        },
        this.language,
        o,
      ),
    );
  }

  async snapshot(): Promise<EngineSnapshot | string> {
    this.assertUsable();
    return this.serialRaw(async () => {
      if (this.endedReason !== undefined) throw new SandboxSessionEndedError(this.endedReason);
      const answer = await this.worker.control({ type: "session-snapshot", runId: 0 });
      if (!answer) throw new SandboxSessionEndedError(this.endedReason ?? "its engine stopped");
      return answer.type === "snapshot" && answer.snapshot ? answer.snapshot : (answer.refused ?? "the engine gave no snapshot");
    });
  }

  async restoreSnapshot(snapshot: EngineSnapshot): Promise<string | undefined> {
    this.assertUsable();
    if (typeof snapshot !== "object" || snapshot === null || !(snapshot.pageIndex instanceof Uint32Array) || !(snapshot.pages instanceof Uint8Array)) {
      throw new InvalidOptionError("snapshot", snapshot, "an EngineSnapshot from session.snapshot()");
    }
    return this.serialRaw(async () => {
      if (this.endedReason !== undefined) throw new SandboxSessionEndedError(this.endedReason);
      // The pages are transferred to the worker: the caller's copy is not touched.
      const pages = snapshot.pages.slice();
      const answer = await this.worker.control({ type: "session-restore", runId: 0, snapshot: { ...snapshot, pages } });
      if (!answer) throw new SandboxSessionEndedError(this.endedReason ?? "its engine stopped while restoring a snapshot");
      return answer.type === "restored" ? answer.refused : "the engine gave no answer to the restore";
    });
  }

  async functionNames(): Promise<string[]> {
    this.assertUsable();
    return this.serialRaw(() => {
      // Like a call queued behind one that ended the session: say so, rather than list nothing.
      if (this.endedReason !== undefined) throw new SandboxSessionEndedError(this.endedReason);
      return this.worker.functionNames();
    });
  }

  async dispose(): Promise<void> {
    if (this.isDisposed) return;
    this.isDisposed = true;
    this.endedReason ??= "it was disposed";
    this.onDispose(this);
    await this.worker.terminate("the session was disposed while this code ran");
  }

  private assertUsable(): void {
    if (this.isDisposed) throw new SandboxDisposedError("This sandbox session");
    if (this.endedReason !== undefined) throw new SandboxSessionEndedError(this.endedReason);
  }

  /** Calls run one after another: the session's single context serves one call at a time. */
  private serial(
    send: () => Promise<{ result: ExecutionResult; workerLost: boolean }>,
  ): Promise<ExecutionResult> {
    return this.serialRaw(async () => {
      if (this.endedReason !== undefined) throw new SandboxSessionEndedError(this.endedReason);
      const { result, workerLost } = await send();
      if (workerLost || ENDING_STATUSES.has(result.status)) {
        this.endedReason ??= `a call ended with status ${result.status}`;
        await this.worker.terminate();
      }
      return result;
    });
  }

  private serialRaw<T>(task: () => Promise<T>): Promise<T> {
    const next = this.queue.then(task, task);
    this.queue = next.catch(() => undefined);
    return next;
  }
}
