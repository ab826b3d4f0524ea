import { describe, expect, it } from "vitest";
import { describeError, explainCheck, explainResult, MAX_EXPLANATION_CHARS, quoteLine } from "../../src/graph/explain.js";
import { ExecutionHistory, formatSummary, summarizeAttempts } from "../../src/graph/history.js";
import type { Attempt } from "../../src/graph/state.js";
import type { ExecutionResult } from "../../src/sandbox/types.js";

const code = "def f(x):\n    return x / 0\n\nprint(f(1))";

function result(overrides: Partial<ExecutionResult>): ExecutionResult {
  return { status: "success", stdout: "", stderr: "", outputTruncated: false, durationMs: 3, language: "python", ...overrides };
}

describe("explanations", () => {
  it("quotes the failing line", () => {
    expect(quoteLine(code, 2)).toBe("return x / 0");
    expect(quoteLine(code, 3)).toBeUndefined();
    expect(quoteLine(code, 99)).toBeUndefined();
    expect(describeError({ name: "ZeroDivisionError", message: "division by zero", line: 2 }, code)).toBe(
      "ZeroDivisionError: division by zero (line 2: `return x / 0`)",
    );
  });

  it("explains each status with what to do", () => {
    const error = { name: "ZeroDivisionError", message: "division by zero", line: 2 };
    expect(explainResult(result({ status: "runtime_error", error }), code)).toMatch(/threw an error while running\. ZeroDivisionError: division by zero \(line 2: `return x \/ 0`\)/);
    expect(explainResult(result({ status: "timeout" }), code, { timeoutMs: 5000 })).toMatch(/time limit of 5000 ms.*loop that never ends/);
    expect(explainResult(result({ status: "memory_limit" }), code, { memoryLimitBytes: 64 * 1048576 })).toMatch(/more memory than allowed \(64 MiB\)/);
    expect(explainResult(result({ status: "output_limit" }), code, { maxOutputBytes: 1024 })).toMatch(/output limit of 1024 bytes; print less/);
    expect(explainCheck({ ok: false, language: "python", status: "forbidden", error: { name: "ImportError", message: "no module named requests", line: 1 } }, "import requests")).toMatch(
      /built-ins.*ImportError: no module named requests \(line 1: `import requests`\)/,
    );
  });

  it("stays within its bound for huge messages", () => {
    const text = explainResult(result({ status: "runtime_error", error: { name: "Error", message: "x".repeat(10_000) } }), code);
    expect(text.length).toBeLessThanOrEqual(MAX_EXPLANATION_CHARS);
  });
});

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
