/**
 * Measures how much of an evaluation's time the sandbox takes: a `CodeRunner` wrapper that
 * counts the time during which at least one check or run was in flight (busy time, comparable
 * with wall time at any concurrency) and the time summed over calls.
 */
import type { CodeRunner } from "../graph/shared.js";

/** Time spent in the sandbox so far. */
export interface SandboxTime {
  /** Checks and runs made. */
  calls: number;
  /** Wall time during which at least one call was in flight (queueing in the pool included). */
  busyMs: number;
  /** Time summed over calls (exceeds `busyMs` when calls overlap). */
  callMs: number;
}

/** A runner that records its own time; `time()` reads the totals. */
export interface TimedRunner extends CodeRunner {
  time(): SandboxTime;
}

/**
 * Wraps `runner` so that every `check` and `run` is timed.
 *
 * @example
 * ```ts
 * const timed = timeSandbox(getSharedSandbox());
 * const graph = createCodeGenGraph({ sandbox: timed });
 * // ... after the evaluation:
 * timed.time().busyMs;
 * ```
 */
export function timeSandbox(runner: CodeRunner): TimedRunner {
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
    run: (code, options) => timed(() => runner.run(code, options)),
    check: (code, options) => timed(() => runner.check(code, options)),
    time() {
      const open = inFlight > 0 ? performance.now() - busySince : 0;
      return { calls, busyMs: busyMs + open, callMs };
    },
  };
}
