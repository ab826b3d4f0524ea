/**
 * The host's check of what an engine reports about a run's inputs (the clock readings of a run
 * given `inputs`): both engines' reports cross from a realm the host does not trust.
 */
import { MAX_RECORDED_CLOCK_READS } from "./types.js";

/**
 * The readings when `value` is a list of at most `MAX_RECORDED_CLOCK_READS` finite,
 * non-decreasing numbers; otherwise `undefined` (the run is then not repeatable exactly, and
 * code mode says so).
 *
 * @example
 * clockReadings([1, 2, 2]); // [1, 2, 2]
 * clockReadings("forged"); // undefined
 */
export function clockReadings(value: unknown): number[] | undefined {
  if (!Array.isArray(value) || value.length > MAX_RECORDED_CLOCK_READS) return undefined;
  let last = -Infinity;
  for (const t of value) {
    if (typeof t !== "number" || !Number.isFinite(t) || t < last) return undefined;
    last = t;
  }
  return value.slice() as number[];
}
