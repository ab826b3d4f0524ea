/**
 * Measures how much of an evaluation's time the sandbox takes: a `Sandbox` wrapper that
 * counts the time during which at least one check or run was in flight (busy time, comparable
 * with wall time at any concurrency) and the time summed over calls.
 */
import type { Language, Sandbox } from "../sandbox/types.js";

/** Time spent in the sandbox so far. */
export interface SandboxTime {
  /** Checks and runs made. */
  calls: number;
  /** Wall time during which at least one call was in flight (queueing in the pool included). */
  busyMs: number;
  /** Time summed over calls (exceeds `busyMs` when calls overlap). */
  callMs: number;
}

/** A sandbox that records the time of its checks and runs; `time()` reads the totals. */
export interface TimedSandbox extends Sandbox {
  time(): SandboxTime;
}

/**
 * Wraps `sandbox` so that every `check` and `run` is timed (its other methods are its own).
 *
 * @example
 * ```ts
 * const timed = timeSandbox(getSharedSandbox());
 * const graph = createCodeGenGraph({ sandbox: timed });
 * // ... after the evaluation:
 * timed.time().busyMs;
 * ```
 */
export function timeSandbox(sandbox: Sandbox): TimedSandbox {
  let calls = 0;
  let inFlight = 0;
  let busySince = 0;
  let busyMs = 0;
  let callMs = 0;
  const timed = async <T>(call: () => Promise<T>): Promise<T> => {
    const startedAt = performance.now();
    calls++;
    if (inFlight++ === 0) busySince = startedAt;
    try {
      return await call();
    } finally {
      const endedAt = performance.now();
      callMs += endedAt - startedAt;
      if (--inFlight === 0) busyMs += endedAt - busySince;
    }
  };
  return {
    run: (code, options) => timed(() => sandbox.run(code, options)),
    check: (code, options) => timed(() => sandbox.check(code, options)),
    createSession: (options) => sandbox.createSession(options),
    warm: (languages) => sandbox.warm(languages),
    ...(sandbox.prestartSession ? { prestartSession: (language: Language) => sandbox.prestartSession!(language) } : {}),
    dispose: () => sandbox.dispose(),
    get disposed() {
      return sandbox.disposed;
    },
    time() {
      const open = inFlight > 0 ? performance.now() - busySince : 0;
      return { calls, busyMs: busyMs + open, callMs };
    },
  };
}
