/**
 * The host's check of a run's `result` line from the Deno process. The runner checks the same
 * things first, but the process ran guest code: nothing it sends may make the host throw or
 * hold a value it cannot serialise. Every field is checked for type and size; the outcome goes
 * through the shared outcome check (status, result JSON that parses, depth, finite numbers,
 * error fields). Files, the tests' output and clock readings are checked by run-result.ts.
 */
import type { RunLimits, RunnerMessage } from "../shared/protocol.js";
import { checkOutcome } from "../shared/outcome-check.js";

type ResultMessage = Extract<RunnerMessage, { type: "result" }>;

/**
 * The reply rebuilt from checked fields, or why it is refused.
 *
 * @example
 * checkResultReply({ type: "result", id: 1, outcome: { status: "success" }, stdout: "", stderr: "", outputTruncated: false, durationMs: 3, interpreterReset: false }, limits);
 */
export function checkResultReply(message: unknown, limits: RunLimits): ResultMessage | string {
  if (message === null || typeof message !== "object") return "a reply that is not an object";
  const m = message as Record<string, unknown>;
  if (m.type !== "result" || typeof m.id !== "number") return "a reply that is not a result";
  const outcome = checkOutcome(m.outcome, limits.maxResultBytes, false);
  if (typeof outcome === "string") return outcome;
  const texts = ["stdout", "stderr"] as const;
  for (const key of texts) if (typeof m[key] !== "string") return `a reply whose ${key} is not text`;
  for (const key of ["testsStdout", "testsStderr"] as const) if (m[key] !== undefined && typeof m[key] !== "string") return `a reply whose ${key} is not text`;
  if (typeof m.outputTruncated !== "boolean" || typeof m.interpreterReset !== "boolean") return "a reply with flags that are not booleans";
  const durationMs = typeof m.durationMs === "number" && Number.isFinite(m.durationMs) && m.durationMs >= 0 ? m.durationMs : 0;
  const reply: ResultMessage = {
    type: "result",
    id: m.id,
    outcome,
    stdout: m.stdout as string,
    stderr: m.stderr as string,
    outputTruncated: m.outputTruncated,
    durationMs,
    interpreterReset: m.interpreterReset,
  };
  if (typeof m.testsStdout === "string") reply.testsStdout = m.testsStdout;
  if (typeof m.testsStderr === "string") reply.testsStderr = m.testsStderr;
  if (m.files !== undefined) reply.files = m.files as Record<string, string>;
  if (m.filesError !== undefined) reply.filesError = String(m.filesError).slice(0, 500);
  // Checked (count, finite, ordered) by run-result.ts's clockReadings before anything reads them.
  if (m.clockReads !== undefined) reply.clockReads = m.clockReads as number[];
  return reply;
}
