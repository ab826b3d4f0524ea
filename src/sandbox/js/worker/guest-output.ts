/**
 * Output of a run on its way to the host: capped at `maxOutputBytes`, buffered, mirrored into
 * shared memory (so a killed worker's output survives), and flushed by size or by time.
 */
import type { GuestHost } from "./guest-host.js";
import type { RunState } from "./run-state.js";

/** Buffered output is sent to the host when it grows past this, so a killed run keeps it. */
const OUTPUT_FLUSH_BYTES = 4096;
/** ...or when this much time has passed since the last flush (checked from the interrupt handler). */
export const OUTPUT_FLUSH_INTERVAL_MS = 20;

/** Appends `text` to the run's output; past the cap, keeps what fits and stops the run. */
export function writeOutput(host: GuestHost, run: RunState, stream: "stdout" | "stderr", text: string): void {
  if (run.abort) return;
  const cap = run.limits.maxOutputBytes;
  let bytes = Buffer.byteLength(text);
  if (run.outputBytes + bytes > cap) {
    text = cutToBytes(text, cap - run.outputBytes);
    bytes = Buffer.byteLength(text);
    run.abort = "output";
  }
  run.outputBytes += bytes;
  run.pendingBytes += bytes;
  if (stream === "stdout") run.stdoutPending += text;
  else run.stderrPending += text;
  // Output must survive a watchdog kill (a built-in that never polls the interrupt handler):
  // it goes to the shared mirror, or, without one (or when it is full), to the host at once.
  const mirror = host.mirror;
  const mustSend = mirror ? !mirror.append(stream, text) : run.outputBytes === run.pendingBytes;
  const now = performance.now();
  if (run.pendingBytes >= OUTPUT_FLUSH_BYTES || mustSend || now - run.lastFlushMs >= OUTPUT_FLUSH_INTERVAL_MS) {
    flushOutput(host, run, now);
  }
}

/** Sends the run's pending output to the host. */
export function flushOutput(host: GuestHost, run: RunState, now: number): void {
  // Cleared before sending: in a race the host may miss a chunk, never see one twice.
  host.mirror?.clear();
  host.output(run.runId, run.stdoutPending, run.stderrPending);
  run.stdoutPending = "";
  run.stderrPending = "";
  run.pendingBytes = 0;
  run.lastFlushMs = now;
}

/** Longest prefix of `text` that fits in `maxBytes` of UTF-8. */
export function cutToBytes(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return "";
  if (text.length <= maxBytes && Buffer.byteLength(text) <= maxBytes) return text;
  const buf = Buffer.from(text).subarray(0, maxBytes);
  // Drop a trailing partial character rather than emit a replacement character.
  return buf.toString("utf8").replace(/\uFFFD$/, "");
}
