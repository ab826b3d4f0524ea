/**
 * The type checker of `tsc` in a worker thread of its own, owned by one sandbox's shell host:
 * a check runs off the host thread, within a heap limit, and ends when the command that asked
 * for it is stopped (the thread is terminated; the next `tsc` starts a new one). Idle, the
 * thread does not keep the process alive; `close()` ends it.
 */
import { Worker } from "node:worker_threads";
import type { TypeDiagnostic } from "../typecheck/types.js";
import type { CheckerReply, CheckerRequest } from "./checker/protocol.js";

/** How a check ended. */
export type TypeCheckOutcome =
  | { kind: "checked"; results: TypeDiagnostic[][] }
  | { kind: "stopped" }
  | { kind: "out_of_memory" }
  | { kind: "failed"; message: string };

/** Longest diagnostic message kept (TypeScript's own are far shorter). */
const MAX_MESSAGE_CHARS = 2000;

/** The worker script, next to this module's built copy (tests of the sources: test/support/built-workers.ts). */
function checkerWorkerUrl(): URL {
  return new URL("./checker/type-check-worker.js", import.meta.url);
}

interface Pending {
  request: CheckerRequest;
  finish(outcome: TypeCheckOutcome): void;
}

/** See the module comment. */
export class TypeCheckThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  /** @param heapBytes V8 heap of the checker's thread (TypeScript itself needs a large part of it). */
  constructor(private readonly heapBytes: number) {}

  /**
   * Type-checks each source with the same declarations; ends `stopped` when `signal` aborts
   * first (the thread is then terminated). Never rejects.
   */
  check(sources: string[], declarations: string, maxDiagnostics: number, signal: AbortSignal): Promise<TypeCheckOutcome> {
    if (this.closed || signal.aborted) return Promise.resolve({ kind: "stopped" });
    const worker = this.ensureWorker();
    const request: CheckerRequest = { id: this.nextId++, sources, declarations, maxDiagnostics };
    return new Promise<TypeCheckOutcome>((resolve) => {
      const onAbort = (): void => {
        this.fail(worker, { kind: "stopped" });
        this.startLoading();
      };
      this.pending.set(request.id, {
        request,
        finish: (outcome) => {
          signal.removeEventListener("abort", onAbort);
          resolve(outcome);
        },
      });
      signal.addEventListener("abort", onAbort, { once: true });
      worker.ref();
      worker.postMessage(request);
    });
  }

  /** Ends the thread; a check in progress ends `stopped`. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (worker) this.fail(worker, { kind: "stopped" });
    await worker?.terminate();
  }

  /** True while a checker thread exists (for tests of disposal). */
  get hasWorker(): boolean {
    return this.worker !== undefined;
  }

  /**
   * Starts a new thread loading TypeScript (seconds on a loaded machine) after a check was
   * stopped, so that the next `tsc` does not pay for it all inside its own time limit. Its
   * warm-up answer matches no pending check and is ignored.
   */
  private startLoading(): void {
    if (this.closed || this.worker) return;
    const request: CheckerRequest = { id: this.nextId++, sources: [""], declarations: "", maxDiagnostics: 1 };
    this.ensureWorker().postMessage(request);
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(checkerWorkerUrl(), {
      execArgv: [],
      env: {},
      resourceLimits: { maxOldGenerationSizeMb: Math.floor(this.heapBytes / (1024 * 1024)), maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    worker.on("message", (reply: CheckerReply) => this.onReply(worker, reply));
    worker.on("error", (error) => {
      const outOfMemory = (error as { code?: string }).code === "ERR_WORKER_OUT_OF_MEMORY";
      this.fail(worker, outOfMemory ? { kind: "out_of_memory" } : { kind: "failed", message: error.message });
    });
    worker.on("exit", () => this.fail(worker, { kind: "failed", message: "the type checker's thread stopped" }));
    // Idle, the thread does not keep the process alive (check() refs it while it works).
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private onReply(worker: Worker, reply: CheckerReply): void {
    if (worker !== this.worker) return;
    const pending = reply !== null && typeof reply === "object" ? this.pending.get(reply.id) : undefined;
    if (!pending) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) worker.unref();
    if ("error" in reply) {
      pending.finish({ kind: "failed", message: String(reply.error).slice(0, MAX_MESSAGE_CHARS) });
      return;
    }
    const results = checkedResults(reply.results, pending.request);
    pending.finish(results ? { kind: "checked", results } : { kind: "failed", message: "the type checker's answer was malformed" });
  }

  /** Ends every pending check with `outcome` and drops (terminates) the thread. */
  private fail(worker: Worker, outcome: TypeCheckOutcome): void {
    if (worker !== this.worker) return;
    this.worker = undefined;
    void worker.terminate();
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.finish(outcome);
  }
}

/** The results if they are what was asked for: one list per source, each bounded and well formed. */
function checkedResults(value: unknown, request: CheckerRequest): TypeDiagnostic[][] | undefined {
  if (!Array.isArray(value) || value.length !== request.sources.length) return undefined;
  const out: TypeDiagnostic[][] = [];
  for (const list of value) {
    if (!Array.isArray(list) || list.length > request.maxDiagnostics) return undefined;
    const checked: TypeDiagnostic[] = [];
    for (const d of list as Array<Partial<TypeDiagnostic> | null>) {
      if (d === null || typeof d !== "object") return undefined;
      const { line, column, code, message } = d;
      if (![line, column, code].every((n) => Number.isSafeInteger(n) && (n as number) >= 0) || typeof message !== "string") return undefined;
      checked.push({ line: line!, column: column!, code: code!, message: message.slice(0, MAX_MESSAGE_CHARS) });
    }
    out.push(checked);
  }
  return out;
}
