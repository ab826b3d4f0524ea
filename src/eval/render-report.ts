/** Renders an evaluation report as a plain-text table for a terminal. */
import type { EvalReport, EvalSummary } from "./run-evaluation.js";

function percent(rate: number): string {
  return `${(rate * 100).toFixed(1)}%`;
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd();
  return [fmt(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(fmt)].join("\n");
}

function summaryRow(name: string, s: EvalSummary): string[] {
  return [
    name,
    String(s.tasks),
    `${s.passedFirstAttempt} (${percent(s.passAt1FirstAttempt)})`,
    `${s.passedAfterRepair} (${percent(s.passAt1AfterRepair)})`,
    s.meanAttempts.toFixed(2),
    String(s.inputTokens + s.outputTokens),
    seconds(s.meanDurationMs),
  ];
}

/** Wall time, and the sandbox's share of it when measured. */
export function renderTime(report: Pick<EvalReport, "wallMs" | "sandbox" | "concurrency">): string {
  const wall = `wall time: ${seconds(report.wallMs)} (concurrency ${report.concurrency})`;
  const s = report.sandbox;
  if (s === undefined) return wall;
  return `${wall}; sandbox busy ${seconds(s.busyMs)} = ${percent(s.shareOfWall)} of wall time (${s.calls} checks and runs, ${seconds(s.callMs)} summed over calls)`;
}

/**
 * Per-task rows, then totals overall, per language and per difficulty.
 *
 * @example
 * ```ts
 * process.stdout.write(renderEvalReport(report) + "\n");
 * ```
 */
export function renderEvalReport(report: EvalReport): string {
  const taskRows = report.results.map((r) => [
    r.id,
    r.language,
    r.difficulty ?? "",
    r.passedFirstAttempt ? "yes" : "no",
    r.passedAfterRepair ? "yes" : "no",
    String(r.attempts),
    r.attemptStatuses.join(">") || (r.solverError ? "error" : ""),
    String(r.inputTokens + r.outputTokens),
    seconds(r.durationMs),
  ]);
  const perTask = table(
    ["task", "language", "difficulty", "pass@1 first", "pass after repair", "attempts", "statuses", "tokens", "time"],
    taskRows,
  );
  const summaryHeader = ["group", "tasks", "pass@1 first attempt", "pass@1 after repair", "mean attempts", "tokens", "mean time"];
  const summaryRows = [
    summaryRow("all", report.summary),
    ...Object.entries(report.byLanguage).map(([name, s]) => summaryRow(name, s)),
    ...Object.entries(report.byDifficulty).map(([name, s]) => summaryRow(name, s)),
  ];
  const header = `model: ${report.model ?? "(default)"}  max retries: ${report.maxRetries ?? "(default)"}  concurrency: ${report.concurrency}  started: ${report.startedAt}`;
  const failures = report.results
    .filter((r) => !r.passedAfterRepair && r.explanation)
    .map((r) => `- ${r.id}: ${r.explanation!.replace(/\s+/g, " ").slice(0, 240)}`);
  const s = report.summary;
  const byRetries = table(
    ["max retries", "pass@1", "tokens"],
    s.byRetries.map((r) => [String(r.retries), `${r.passed}/${s.tasks} (${percent(r.passAt1)})`, String(r.tokens)]),
  );
  const seed = report.seed === undefined ? "" : `  seed: ${report.seed}`;
  const shown = report.shownTests === undefined ? "" : `  shown tests: ${report.shownTests}`;
  return [
    header + seed + shown,
    ...(report.repair === undefined ? [] : [`repair: ${JSON.stringify(report.repair)}`]),
    "",
    perTask,
    "",
    table(summaryHeader, summaryRows),
    "",
    "as if run with fewer retries (the loop stops at the first pass):",
    byRetries,
    "",
    `model calls: ${s.modelCalls}; programs written again and not run: ${s.repeatsSkipped}; repeated programs executed: ${s.repeatsExecuted}`,
    renderTime(report),
    ...(failures.length > 0 ? ["", "failures:", ...failures] : []),
  ].join("\n");
}
