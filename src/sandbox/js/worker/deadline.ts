/**
 * Deadlines of a run: the interrupt handler QuickJS polls while guest code runs, and the wait
 * for a host reply, which never outlasts the deadline. Some built-ins never poll; the host's
 * watchdog (host/worker-client.ts) covers those by killing the thread.
 */
import type { RunState } from "./run-state.js";

/**
 * Decides, when QuickJS polls, whether the run must stop (past its deadline or already
 * stopped), and gives `onIdle` a chance to flush output on the way.
 */
export function shouldInterrupt(run: RunState | undefined, onPoll: (run: RunState, now: number) => void): boolean {
  if (!run) return false;
  if (run.abort) return true;
  const now = performance.now();
  if (now > run.deadlineMs) {
    run.abort = "timeout";
    return true;
  }
  onPoll(run, now);
  return false;
}

/** Resolves when the run is woken (a host reply arrived) or its deadline passes. */
export function waitForReply(run: RunState): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, Math.max(0, run.deadlineMs - performance.now()) + 1);
    function done(): void {
      clearTimeout(timer);
      run.wake = undefined;
      resolve();
    }
    run.wake = done;
  });
}

/** Marks the run timed out if its deadline passed without a result. */
export function checkDeadline(run: RunState): void {
  if (performance.now() > run.deadlineMs && !run.settled) run.abort = "timeout";
}
