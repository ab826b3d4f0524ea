/**
 * A fixed-size pool of QuickJS worker threads. Runs queue until a worker is free; a worker
 * that dies (watchdog kill, crash) is dropped and a new one is started when work needs it.
 * Workers start lazily (or on `warm()`), so a pool that is never used costs nothing.
 */
import type { ExecutionResult, Language } from "../../types.js";
import { SandboxDisposedError } from "../../../errors.js";
import { cancelledResult } from "../../cancelled.js";
import { EngineWorker, type RunControls, type WorkerRequest } from "./worker-client.js";

interface Queued {
  request: WorkerRequest;
  language: Language;
  controls: RunControls;
  /** Listener that takes the job out of the queue if its caller aborts while it waits. */
  onAbort?: () => void;
  resolve(result: ExecutionResult): void;
  reject(error: unknown): void;
}

/** Worker threads that run fresh-runtime requests, one at a time each. */
export class WorkerPool {
  private readonly workers = new Set<EngineWorker>();
  private readonly idle: EngineWorker[] = [];
  private readonly queue: Queued[] = [];
  /** Workers in `workers` that have not reported ready yet. */
  private starting = 0;
  private closed = false;

  constructor(
    readonly size: number,
    private readonly isolation: "context" | "module" = "context",
    /** See `JavaScriptEngineOptions.freshRuns`. */
    private readonly freshRuns?: "image" | "context",
  ) {}

  /** How each ready worker serves fresh runs (for tests and the bench). */
  freshRunModes(): ("image" | "context")[] {
    return [...this.workers].flatMap((w) => (w.freshRuns ? [w.freshRuns.mode] : []));
  }

  /** Number of live worker threads (for tests and diagnostics). */
  get liveWorkers(): number {
    return this.workers.size;
  }

  /** Runs one request on the next free worker. Rejects only for faults of the host. */
  run(request: WorkerRequest, language: Language, controls: RunControls): Promise<ExecutionResult> {
    return new Promise((resolve, reject) => {
      const signal = controls.signal;
      if (signal?.aborted) {
        resolve(cancelledResult(language, signal, false));
        return;
      }
      const job: Queued = { request, language, controls, resolve, reject };
      if (signal) {
        job.onAbort = () => {
          const i = this.queue.indexOf(job);
          if (i === -1) return;
          this.queue.splice(i, 1);
          resolve(cancelledResult(language, signal, false));
        };
        signal.addEventListener("abort", job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.pump();
    });
  }

  /** Starts every worker and waits until each has loaded the engine. */
  async warm(): Promise<void> {
    // `workers` already holds the ones still starting.
    while (this.workers.size < this.size) this.spawn();
    await Promise.all([...this.workers].map((w) => w.ready));
  }

  /** Terminates every worker; queued runs are rejected with `SandboxDisposedError`. */
  async dispose(): Promise<void> {
    this.closed = true;
    // As in the Python engine: a run still queued when its engine is disposed is a use after dispose.
    for (const q of this.queue.splice(0)) q.reject(new SandboxDisposedError("The JavaScript engine"));
    const all = [...this.workers];
    this.workers.clear();
    this.idle.length = 0;
    await Promise.all(all.map((w) => w.terminate()));
  }

  private pump(): void {
    while (this.queue.length > 0 && this.idle.length > 0) {
      // Oldest idle first: a worker that just answered is still making its next fresh
      // context, while one that has waited longer has it ready.
      const worker = this.idle.shift()!;
      const job = this.queue.shift()!;
      if (job.onAbort) job.controls.signal?.removeEventListener("abort", job.onAbort);
      void this.serve(worker, job);
    }
    if (this.queue.length > this.starting && this.workers.size < this.size) this.spawn();
  }

  private spawn(): void {
    const worker = new EngineWorker((dead) => this.forget(dead), this.isolation, undefined, this.freshRuns ?? "image");
    this.workers.add(worker);
    this.starting++;
    worker.ready.then(
      () => {
        this.starting--;
        if (this.closed || worker.dead) return;
        this.idle.push(worker);
        this.pump();
      },
      (error: unknown) => {
        this.starting--;
        this.workers.delete(worker);
        // A worker that cannot even start will not start next time either: fail the waiting
        // runs instead of retrying forever.
        if (this.workers.size === 0) {
          const message = error instanceof Error ? error.message : String(error);
          for (const q of this.queue.splice(0)) {
            q.reject(new Error(`the QuickJS worker failed to start: ${message}`, { cause: error }));
          }
        }
      },
    );
  }

  private async serve(worker: EngineWorker, job: Queued): Promise<void> {
    const end = await worker.request(job.request, job.language, job.controls);
    job.resolve(end.result);
    // A lost worker is dropped at once, not when its thread has exited: the replacement then
    // starts (and keeps the process alive) while runs wait, instead of runs waiting on a
    // thread that is on its way out.
    if (end.workerLost) this.forget(worker);
    else if (!worker.dead && !this.closed) this.idle.push(worker);
    // A worker that ended itself to give its memory back was healthy: its replacement starts now,
    // so the next run finds it ready (a start takes about a second on a loaded machine).
    if (end.workerRetired && !this.closed && this.workers.size < this.size) this.spawn();
    this.pump();
  }

  private forget(worker: EngineWorker): void {
    this.workers.delete(worker);
    const i = this.idle.indexOf(worker);
    if (i !== -1) this.idle.splice(i, 1);
    if (!this.closed) this.pump();
  }
}
