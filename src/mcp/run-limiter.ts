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

/** Extra room in one request for everything but its files (the program, JSON framing). */
export const REQUEST_OVERHEAD_BYTES = 8 * 1024 * 1024;

/** The largest request one transport reads: `maxTotalFileBytes` of files as base64, plus 8 MiB. */
export function maxRequestBytesFor(maxTotalFileBytes: number): number {
  return Math.ceil((maxTotalFileBytes * 4) / 3) + REQUEST_OVERHEAD_BYTES;
}

/**
 * Bytes of requests the server holds at once, across every transport (stdio and HTTP): a
 * request reserves its size (an HTTP body's `Content-Length`, or the largest body when it is
 * streamed; a stdio message's text) from when it arrives to when it is answered, and one that
 * does not fit is refused at once, before its body is read. Without it, 16 concurrent 48 MB
 * bodies held the server at 1,610 MiB, and 20 stdio calls of 40 MB of code at 1,376 MiB.
 */
export class ByteBudget {
  #heldBytes = 0;

  /** @param maxBytes Bytes all requests in progress may hold together. */
  constructor(readonly maxBytes: number) {}

  /** Bytes reserved now. */
  get heldBytes(): number {
    return this.#heldBytes;
  }

  /** Reserves `bytes`; a release function, or undefined when they do not fit. Releasing twice is a no-op. */
  reserve(bytes: number): (() => void) | undefined {
    if (this.#heldBytes + bytes > this.maxBytes) return undefined;
    this.#heldBytes += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#heldBytes -= bytes;
    };
  }
}

/** Requests of this many of the largest size may be held at once by default (stdio and HTTP together). */
export const DEFAULT_LARGEST_REQUESTS_HELD = 2;

const budgets = new WeakMap<object, ByteBudget>();

/**
 * The byte budget of `server`'s requests, shared by every transport connected to it: room for
 * two requests of the largest size (~105 MB at the default 32 MiB of files).
 */
export function requestBudgetOf(server: { readonly options: { readonly maxTotalFileBytes: number } }): ByteBudget {
  let budget = budgets.get(server);
  if (budget === undefined) {
    budget = new ByteBudget(DEFAULT_LARGEST_REQUESTS_HELD * maxRequestBytesFor(server.options.maxTotalFileBytes));
    budgets.set(server, budget);
  }
  return budget;
}
