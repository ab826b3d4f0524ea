/**
 * The earlier attempts of a task, condensed for the repair prompt: each one's failure in one
 * line, and its program when short or, when long, what it changed from the attempt before it.
 * A model that sees what it already tried can avoid writing it again.
 */
import { truncate } from "./truncate.js";

/** What the history shows of one attempt. */
export interface HistoryAttempt {
  number: number;
  code: string;
  status: string;
  /** The attempt's error (its first line is shown). */
  error?: string | undefined;
  /** Set when the attempt was the same program as an earlier one (it did not run). */
  repeatOf?: number | undefined;
}

/** Programs up to this many lines are shown whole; longer ones as a diff. */
export const HISTORY_FULL_LINES = 12;
/** Most changed lines a diff shows. */
export const HISTORY_DIFF_LINES = 12;
/** Most attempts the history lists (the latest ones). */
export const HISTORY_MAX_ATTEMPTS = 4;
const FAILURE_CHARS = 200;

/**
 * The failure of an attempt in one line.
 *
 * @example
 * ```ts
 * failureLine({ number: 1, code: "", status: "test_failed", error: "A test failed.\nassert f(1) == 2" }); // "test_failed: A test failed. assert f(1) == 2"
 * ```
 */
export function failureLine(attempt: HistoryAttempt): string {
  if (attempt.repeatOf !== undefined) return `the same program as attempt ${attempt.repeatOf} (not run again)`;
  const text = (attempt.error ?? "").replace(/\s+/g, " ").trim();
  return truncate(text === "" ? attempt.status : `${attempt.status}: ${text}`, FAILURE_CHARS);
}

/**
 * The history section of a repair prompt for the attempts before the last one (`attempts` in
 * order; the last one is shown in full elsewhere). Empty when there were none.
 *
 * @example
 * ```ts
 * renderAttemptHistory([first, second]); // "Earlier attempts (do not repeat them):\nAttempt 1 (test_failed: ...):\n..."
 * ```
 */
export function renderAttemptHistory(attempts: readonly HistoryAttempt[]): string {
  const earlier = attempts.slice(0, -1).filter((a) => a.code.trim() !== "" && a.repeatOf === undefined);
  if (earlier.length === 0) return "";
  const shown = earlier.slice(-HISTORY_MAX_ATTEMPTS);
  const parts = shown.map((attempt) => {
    const lines = attempt.code.trimEnd().split("\n");
    const index = attempts.indexOf(attempt);
    const before = index > 0 ? attempts.slice(0, index).reverse().find((a) => a.code.trim() !== "" && a.repeatOf === undefined) : undefined;
    const body =
      lines.length <= HISTORY_FULL_LINES || before === undefined
        ? truncate(attempt.code.trimEnd(), 1200)
        : `changes from attempt ${before.number}:\n${lineDiff(before.code, attempt.code)}`;
    return `Attempt ${attempt.number} (${failureLine(attempt)}):\n${body}`;
  });
  const skipped = earlier.length - shown.length;
  const head = skipped > 0 ? `Earlier attempts (the last ${shown.length} of ${earlier.length}; do not repeat them):` : "Earlier attempts (do not repeat them):";
  return `${head}\n${parts.join("\n\n")}`;
}

/**
 * The lines removed (`-`) and added (`+`) from `before` to `after` (longest common
 * subsequence of lines), at most {@link HISTORY_DIFF_LINES} of them.
 *
 * @example
 * ```ts
 * lineDiff("a\nb", "a\nc"); // "- b\n+ c"
 * ```
 */
export function lineDiff(before: string, after: string): string {
  const a = before.trimEnd().split("\n").slice(0, 400);
  const b = after.trimEnd().split("\n").slice(0, 400);
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i++;
      j++;
    } else if (i < a.length && (j === b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) out.push(`- ${a[i++]}`);
    else out.push(`+ ${b[j++]}`);
  }
  if (out.length === 0) return "(no change in the lines)";
  return out.length <= HISTORY_DIFF_LINES ? out.join("\n") : `${out.slice(0, HISTORY_DIFF_LINES).join("\n")}\n(${out.length - HISTORY_DIFF_LINES} more changed lines)`;
}
