import { describe, expect, it } from "vitest";
import { ExecutionHistory, formatSummary, summarizeAttempts } from "../../src/graph/history.js";
import type { Attempt } from "../../src/graph/state.js";

function attempt(status: Attempt["status"], tokens = 10): Attempt {
  return { number: 1, code: "", phase: "execute", status, stdout: "", durationMs: 1, inputTokens: tokens, outputTokens: tokens / 2 };
}

describe("history and statistics", () => {
  it("summarizes attempts: execution attempts exclude model failures", () => {
    const summary = summarizeAttempts([attempt("runtime_error"), attempt("success"), attempt("model_error", 0)]);
    expect(summary).toMatchObject({ executionAttempts: 2, successfulExecutions: 1, successRate: 0.5, inputTokens: 20, outputTokens: 10 });
    expect(summary.byStatus).toEqual({ runtime_error: 1, success: 1, model_error: 1 });
  });

  it("records runs and formats the summary", () => {
    const history = new ExecutionHistory();
    history.record("a", { status: "success", attempts: [attempt("syntax_error"), attempt("success")] });
    history.record("b", { status: "failed", attempts: [attempt("timeout"), attempt("timeout"), attempt("timeout")] });
    expect(history.entries.map((e) => e.task)).toEqual(["a", "b"]);
    const summary = history.summary();
    expect(summary).toMatchObject({ tasks: 2, tasksSolved: 1, executionAttempts: 5, successfulExecutions: 1 });
    expect(formatSummary(summary)).toBe(
      [
        "Tasks: 2 (1 solved)",
        "Execution attempts: 5",
        "Successful executions: 1",
        "Success rate: 20.0%",
        "By status:",
        "  syntax_error: 1",
        "  success: 1",
        "  timeout: 3",
        "Tokens: 50 in, 25 out",
      ].join("\n"),
    );
  });

  it("reports a zero success rate for no attempts", () => {
    expect(summarizeAttempts([]).successRate).toBe(0);
  });
});
