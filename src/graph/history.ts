/**
 * Execution history and success statistics over many runs of the graph (the summary the
 * demo prints): tasks, execution attempts, successes, success rate, breakdown by status.
 */
import type { Attempt, AttemptStatus, CodeGenStatus } from "./state.js";

/** Statistics of a set of attempts. */
export interface AttemptSummary {
  /** Runs of the graph (tasks) recorded. */
  tasks: number;
  /** Tasks whose run ended in success. */
  tasksSolved: number;
  /** Attempts that reached the sandbox (checked or run), not counting model failures and repeats. */
  executionAttempts: number;
  /** Attempts whose run succeeded. */
  successfulExecutions: number;
  /** `successfulExecutions / executionAttempts`, 0 when there were none. */
  successRate: number;
  /** Attempts per status (only statuses that occurred). */
  byStatus: Partial<Record<AttemptStatus, number>>;
  inputTokens: number;
  outputTokens: number;
}

/** One finished run as the history keeps it. */
export interface HistoryEntry {
  task: string;
  status: CodeGenStatus | undefined;
  attempts: Attempt[];
}

/**
 * Summarizes attempts of one or several runs.
 *
 * @example
 * ```ts
 * const summary = summarizeAttempts(state.attempts);
 * console.log(`${summary.successfulExecutions}/${summary.executionAttempts}`);
 * ```
 */
export function summarizeAttempts(attempts: readonly Attempt[], runs: readonly { status: CodeGenStatus | undefined }[] = []): AttemptSummary {
  const byStatus: Partial<Record<AttemptStatus, number>> = {};
  let executionAttempts = 0;
  let successfulExecutions = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  for (const attempt of attempts) {
    byStatus[attempt.status] = (byStatus[attempt.status] ?? 0) + 1;
    inputTokens += attempt.inputTokens;
    outputTokens += attempt.outputTokens;
    // A model failure and a repeat (a program seen before) never reached the sandbox.
    if (attempt.status === "model_error" || attempt.status === "repeat") continue;
    executionAttempts++;
    if (attempt.status === "success") successfulExecutions++;
  }
  return {
    tasks: runs.length,
    tasksSolved: runs.filter((r) => r.status === "success").length,
    executionAttempts,
    successfulExecutions,
    successRate: executionAttempts === 0 ? 0 : successfulExecutions / executionAttempts,
    byStatus,
    inputTokens,
    outputTokens,
  };
}

/**
 * Keeps the final state of each run and summarizes them.
 *
 * @example
 * ```ts
 * const history = new ExecutionHistory();
 * history.record(task, await graph.invoke({ task }));
 * console.log(formatSummary(history.summary()));
 * ```
 */
export class ExecutionHistory {
  readonly #entries: HistoryEntry[] = [];

  /** Adds a run's final state. */
  record(task: string, state: { status?: CodeGenStatus | undefined; attempts?: Attempt[] }): void {
    this.#entries.push({ task, status: state.status, attempts: [...(state.attempts ?? [])] });
  }

  /** Runs recorded so far, in order. */
  get entries(): readonly HistoryEntry[] {
    return this.#entries;
  }

  summary(): AttemptSummary {
    return summarizeAttempts(this.#entries.flatMap((e) => e.attempts), this.#entries);
  }
}

/**
 * The summary as lines of text.
 *
 * @example
 * ```ts
 * process.stdout.write(formatSummary(history.summary()) + "\n");
 * ```
 */
export function formatSummary(summary: AttemptSummary): string {
  const lines = [
    `Tasks: ${summary.tasks} (${summary.tasksSolved} solved)`,
    `Execution attempts: ${summary.executionAttempts}`,
    `Successful executions: ${summary.successfulExecutions}`,
    `Success rate: ${(summary.successRate * 100).toFixed(1)}%`,
    "By status:",
    ...Object.entries(summary.byStatus).map(([status, count]) => `  ${status}: ${count}`),
  ];
  if (summary.inputTokens + summary.outputTokens > 0) lines.push(`Tokens: ${summary.inputTokens} in, ${summary.outputTokens} out`);
  return lines.join("\n");
}
