/**
 * One row of the benchmark table: our number beside a baseline measured in the same run.
 * Sections (`js`, `python`, `graph`) each return rows; `index.ts` prints them as one table.
 */
export interface BenchRow {
  section: string;
  metric: string;
  /** Our measurement, formatted with its unit (e.g. "0.41 ms p50 / 0.9 ms p95"). */
  ours: string;
  /** The baseline's measurement in the same run, formatted the same way. */
  baseline?: string;
  /** Which baseline, e.g. "bare quickjs-emscripten", "node:vm (not a sandbox)". */
  baselineName?: string;
  /** The goal from the issue, in words, e.g. "<= 1 ms p50". */
  goal?: string;
  /** Whether the goal was met in this run; undefined when the row has no goal. */
  met?: boolean;
}

/** A benchmark section: runs its measurements and returns rows. */
export type BenchSection = () => Promise<BenchRow[]>;

/** Median and 95th percentile of samples (milliseconds or any unit). */
export function percentiles(samples: number[]): { p50: number; p95: number; mean: number } {
  if (samples.length === 0) return { p50: NaN, p95: NaN, mean: NaN };
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { p50: at(0.5), p95: at(0.95), mean };
}

/** Formats milliseconds with a precision that suits their size. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return "n/a";
  if (value < 1) return `${value.toFixed(3)} ms`;
  if (value < 100) return `${value.toFixed(2)} ms`;
  return `${value.toFixed(0)} ms`;
}

/** Formats a byte count in MiB. */
export function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** Renders rows as a Markdown table (readable in a terminal and pasteable into the README). */
export function renderTable(rows: BenchRow[]): string {
  const header = ["section", "metric", "codegen-sandbox", "baseline (same run)", "goal", "met"];
  const lines = rows.map((r) => [
    r.section,
    r.metric,
    r.ours,
    r.baseline === undefined ? "" : `${r.baseline}${r.baselineName ? ` (${r.baselineName})` : ""}`,
    r.goal ?? "",
    r.met === undefined ? "" : r.met ? "yes" : "NO",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [fmt(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...lines.map(fmt)].join("\n");
}
