/**
 * How many tool calls run code at once. Calls past the limit wait in a bounded line (first in,
 * first out); a call cancelled while it waits leaves the line; past the line's bound a call is
 * refused at once, so a flood of calls cannot pile up memory in the server. The line is bounded
 * in bytes too: each waiting call holds its arguments (up to ~45 MB of JSON for 32 MiB of files),
 * and 32 such calls in line peaked the server at 1.44 GB.
 */
import type { Lookup } from "./sessions.js";

/** Calls that may wait per running slot before new ones are refused. */
const WAITING_PER_SLOT = 8;

interface Waiter {
  start(): void;
  readonly bytes: number;
}

/**
 * A counting semaphore for tool calls.
 *
 * @example
 * ```ts
 * const limiter = new RunLimiter(4);
 * const outcome = await limiter.run(signal, () => sandbox.run(code)); // { ok: true, value } or { ok: false, message }
 * ```
 */
export class RunLimiter {
  #active = 0;
  readonly #waiting: Waiter[] = [];
  readonly #idle: Array<() => void> = [];
  #waitingBytes = 0;

  /**
   * @param maxActive Calls that run at once.
   * @param maxWaitingBytes Bytes (a call's `bytes`, e.g. its files) the waiting calls may hold together.
   */
  constructor(
    readonly maxActive: number,
    readonly maxWaitingBytes = Number.POSITIVE_INFINITY,
  ) {}

  /** Calls running now. */
  get active(): number {
    return this.#active;
  }

  /** Resolves when no call runs or waits (at once when none does). */
  whenIdle(): Promise<void> {
    if (this.#active === 0 && this.#waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /**
   * Runs `work` once a slot is free. Rejects with the signal's reason when `signal` aborts
   * while the call waits; resolves `{ ok: false }` when the line is full (in calls, or in bytes
   * with this call's `bytes` added).
   */
  async run<T>(signal: AbortSignal, work: () => Promise<T>, bytes = 0): Promise<Lookup<T>> {
    signal.throwIfAborted();
    if (this.#active >= this.maxActive) {
      const full = this.#waiting.length >= this.maxActive * WAITING_PER_SLOT;
      if (full || (bytes > 0 && this.#waitingBytes + bytes > this.maxWaitingBytes)) {
        const held = this.#waitingBytes > 0 ? `, holding ${this.#waitingBytes} bytes of files` : "";
        return {
          ok: false,
          message: `The server is busy: ${this.#active} runs at once and ${this.#waiting.length} waiting${held} (its limit). Try again in a moment.`,
        };
      }
      await this.#wait(signal, bytes);
    } else {
      this.#active++;
    }
    try {
      return { ok: true, value: await work() };
    } finally {
      this.#release();
    }
  }

  #wait(signal: AbortSignal, bytes: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        bytes,
        start: () => {
          signal.removeEventListener("abort", onAbort);
          this.#waitingBytes -= bytes;
          resolve();
        },
      };
      const onAbort = () => {
        const i = this.#waiting.indexOf(waiter);
        if (i !== -1) {
          this.#waiting.splice(i, 1);
          this.#waitingBytes -= bytes;
        }
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(waiter);
      this.#waitingBytes += bytes;
    });
  }

  #release(): void {
    const next = this.#waiting.shift();
    // The slot passes straight to the next waiter, so the count never dips and lets a newcomer jump the line.
    if (next !== undefined) next.start();
    else this.#active--;
    if (this.#active === 0) for (const resolve of this.#idle.splice(0)) resolve();
  }
}
