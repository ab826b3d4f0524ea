/**
 * The known name a mistyped one most likely meant, for "did you mean ...?" in option errors.
 * Hand-written (a few lines) rather than a dependency: the package root loads this module, and
 * its import time is budgeted.
 */

/**
 * The name in `known` closest to `name`: the same name in another case, a name that contains
 * it or is contained in it (`timeout` → `timeoutMs`, `retries` → `maxRetries`), else the one at
 * the smallest edit distance (transpositions count once) when that distance is small for the
 * names' length. `undefined` when nothing is close.
 *
 * @example
 * nearestName("timout", ["language", "timeoutMs"]); // "timeoutMs"
 * nearestName("colour", ["language", "timeoutMs"]); // undefined
 */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  const wanted = name.toLowerCase();
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const lower = candidate.toLowerCase();
    let score: number;
    if (lower === wanted) score = 0;
    else if (wanted.length >= 3 && (lower.includes(wanted) || wanted.includes(lower))) score = 1 + Math.abs(lower.length - wanted.length) / 100;
    else {
      const distance = editDistance(wanted, lower);
      if (distance > Math.max(2, Math.ceil(0.4 * Math.max(wanted.length, lower.length)))) continue;
      score = 1 + distance;
    }
    if (score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

/** Optimal-string-alignment distance: insertions, deletions, substitutions, adjacent swaps. */
function editDistance(a: string, b: string): number {
  // Names of options are short; a guessed key may not be (it comes from the caller): bound the work.
  if (a.length > 64 || b.length > 64) return Number.POSITIVE_INFINITY;
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
