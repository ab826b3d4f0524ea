/**
 * A fixed number of Deno runner processes, each keeping one Python interpreter ready.
 * A run leases a ready process; the process replaces its interpreter after the run (fresh
 * state every time) and becomes ready again on its own.
 */
import { existsSync } from "node:fs";
import { SandboxDisposedError } from "../../../errors.js";
import type { PythonPaths } from "./deno-paths.js";
import { DenoProcess } from "./deno-process.js";
import { EngineSetupError } from "./errors.js";

/** Processes that die before becoming ready this many times in a row make `acquire` throw. */
const MAX_START_FAILURES = 2;

/**
 * Pool of runner processes.
 *
 * @example
 * const pool = new PythonPool(resolvePythonPaths(), 1);
 * const proc = (await pool.acquire())!;
 * try { await proc.run("print(1)", {}, limits); } finally { pool.release(proc); }
 */
export class PythonPool {
  readonly #paths: PythonPaths;
  readonly #slots: Array<DenoProcess | undefined>;
  readonly #leased = new Set<DenoProcess>();
  #changeWaiters: Array<() => void> = [];
  #startFailures = 0;
  #lastStartError: Error | undefined;
  #disposed = false;

  constructor(paths: PythonPaths, size: number) {
    this.#paths = paths;
    this.#slots = new Array<DenoProcess | undefined>(size).fill(undefined);
  }

  /** Starts every process and waits until each has an interpreter ready. */
  async warm(): Promise<void> {
    this.#assertAlive();
    // The first process may have to make the memory snapshot; the others then start from it.
    this.#fill(1);
    await this.#slots[0]!.whenReady();
    this.#fill(this.#slots.length);
    await Promise.all(this.#slots.map((p) => p?.whenReady()));
  }

  /**
   * Waits for a ready, unleased process and leases it; `undefined` when `signal` aborts first
   * (nothing is leased then).
   */
  async acquire(signal?: AbortSignal): Promise<DenoProcess | undefined> {
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<void>((resolve) => {
      onAbort = () => resolve();
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await this.#acquire(signal, aborted);
    } finally {
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    }
  }

  async #acquire(signal: AbortSignal | undefined, aborted: Promise<void>): Promise<DenoProcess | undefined> {
    for (;;) {
      this.#assertAlive();
      if (signal?.aborted) return undefined;
      if (this.#startFailures >= MAX_START_FAILURES) {
        this.#startFailures = 0;
        throw this.#lastStartError ?? new EngineSetupError("the interpreter process failed to start");
      }
      this.#fill(existsSync(this.#paths.snapshotFile) ? this.#slots.length : 1);
      const free = this.#slots.find((p) => p !== undefined && p.ready && !this.#leased.has(p));
      if (free) {
        this.#leased.add(free);
        return free;
      }
      // Wait for any change; waiting through whenReady keeps the host alive meanwhile.
      const changed = new Promise<void>((resolve) => this.#changeWaiters.push(resolve));
      const starting = this.#slots.filter((p): p is DenoProcess => p !== undefined && p.alive && !p.ready && !this.#leased.has(p));
      await Promise.race([changed, aborted, ...starting.map((p) => p.whenReady().catch(() => undefined))]);
    }
  }

  /** Returns a leased process to the pool. */
  release(process: DenoProcess): void {
    this.#leased.delete(process);
    this.#notify();
  }

  /** Kills every process. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    const exits = this.#slots.filter((p): p is DenoProcess => p !== undefined).map((p) => {
      p.dispose();
      return p.exited;
    });
    this.#notify();
    await Promise.all(exits);
  }

  /** Resident processes (for tests and benchmarks). */
  get processes(): DenoProcess[] {
    return this.#slots.filter((p): p is DenoProcess => p !== undefined && p.alive);
  }

  #fill(count: number): void {
    for (let i = 0; i < Math.min(count, this.#slots.length); i++) {
      const existing = this.#slots[i];
      if (existing?.alive) continue;
      const process = new DenoProcess(this.#paths, false);
      let becameReady = false;
      process.onChange = () => {
        if (process.ready && !becameReady) {
          becameReady = true;
          this.#startFailures = 0;
        }
        if (!process.alive && !becameReady && !this.#disposed) {
          this.#startFailures += 1;
          this.#lastStartError = new EngineSetupError("the Deno interpreter process stopped before it was ready");
          process.whenReady().catch((error: Error) => {
            this.#lastStartError = error;
          });
        }
        this.#notify();
      };
      this.#slots[i] = process;
    }
  }

  #notify(): void {
    for (const resolve of this.#changeWaiters.splice(0)) resolve();
  }

  #assertAlive(): void {
    if (this.#disposed) throw new SandboxDisposedError("The Python engine");
  }
}
