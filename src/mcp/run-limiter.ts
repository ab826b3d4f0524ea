/**
 * How many tool calls run code at once. Calls past the limit wait in a bounded line (first in,
 * first out); a call cancelled while it waits leaves the line; past the line's bound a call is
 * refused at once, so a flood of calls cannot pile up memory in the server.
 */
import type { Lookup } from "./sessions.js";

/** Calls that may wait per running slot before new ones are refused. */
const WAITING_PER_SLOT = 8;

interface Waiter {
  start(): void;
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

  constructor(readonly maxActive: number) {}

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
   * while the call waits; resolves `{ ok: false }` when the line is full.
   */
  async run<T>(signal: AbortSignal, work: () => Promise<T>): Promise<Lookup<T>> {
    signal.throwIfAborted();
    if (this.#active >= this.maxActive) {
      if (this.#waiting.length >= this.maxActive * WAITING_PER_SLOT) {
        return {
          ok: false,
          message: `The server is busy: ${this.#active} runs at once and ${this.#waiting.length} waiting (its limit). Try again in a moment.`,
        };
      }
      await this.#wait(signal);
    } else {
      this.#active++;
    }
    try {
      return { ok: true, value: await work() };
    } finally {
      this.#release();
    }
  }

  #wait(signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const i = this.#waiting.indexOf(waiter);
        if (i !== -1) this.#waiting.splice(i, 1);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(waiter);
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
