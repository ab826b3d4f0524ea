import { describe, expect, it } from "vitest";
import { renderEvalReport } from "../../src/eval/render-report.js";
import { runEvaluation, summarize, type EvalSolver } from "../../src/eval/run-evaluation.js";
import type { EvalTask } from "../../src/eval/task-set.js";
import { timeSandbox } from "../../src/eval/sandbox-timer.js";
import { partialSandbox } from "../support/partial-sandbox.js";

const tasks: EvalTask[] = [
  { id: "first-try", language: "javascript", task: "t", tests: "", difficulty: "easy" },
  { id: "repaired", language: "python", task: "t", tests: "", difficulty: "hard" },
  { id: "never", language: "python", task: "t", tests: "", difficulty: "hard" },
  { id: "throws", language: "typescript", task: "t", tests: "" },
];

const attempt = (passed: boolean, status: string) => ({ passed, status, inputTokens: 10, outputTokens: 5, sandboxMs: 4 });

const solve: EvalSolver = async (task) => {
  switch (task.id) {
    case "first-try":
      return { passed: true, attempts: [attempt(true, "success")] };
    case "repaired":
      return { passed: true, attempts: [attempt(false, "runtime_error"), attempt(true, "success")] };
    case "never":
      return {
        passed: false,
        attempts: [attempt(false, "syntax_error"), attempt(false, "test_failed"), attempt(false, "timeout")],
        explanation: "the loop never terminates",
      };
    default:
      throw new Error("model exploded");
  }
};

describe("runEvaluation", () => {
  it("counts pass@1 on the first attempt apart from pass after repair", async () => {
    const seen: string[] = [];
    const report = await runEvaluation({ tasks, solve, model: "m", maxRetries: 2, onResult: (r) => seen.push(r.id) });
    expect(seen.sort()).toEqual(tasks.map((t) => t.id).sort());
    expect(report.results.map((r) => [r.id, r.passedFirstAttempt, r.passedAfterRepair, r.attempts])).toEqual([
      ["first-try", true, true, 1],
      ["repaired", false, true, 2],
      ["never", false, false, 3],
      ["throws", false, false, 0],
    ]);
    expect(report.summary).toMatchObject({
      tasks: 4,
      passedFirstAttempt: 1,
      passedAfterRepair: 2,
      passAt1FirstAttempt: 0.25,
      passAt1AfterRepair: 0.5,
      meanAttempts: 1.5,
      inputTokens: 60,
      outputTokens: 30,
      solverErrors: 1,
    });
    expect(report.results[3]!.solverError).toBe("Error: model exploded");
    expect(report.results[2]!.explanation).toBe("the loop never terminates");
    expect(report.byLanguage.python).toMatchObject({ tasks: 2, passedFirstAttempt: 0, passedAfterRepair: 1 });
    expect(report.byDifficulty.unspecified).toMatchObject({ tasks: 1 });

    const text = renderEvalReport(report);
    expect(text).toContain("repaired");
    expect(text).toMatch(/all\s+4\s+1 \(25\.0%\)\s+2 \(50\.0%\)\s+1\.50/);
    expect(text).toContain("never: the loop never terminates");
    expect(JSON.parse(JSON.stringify(report)).summary.passedAfterRepair).toBe(2);
  });

  it("reports wall time, concurrency and the sandbox's share of the wall time", async () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const sandbox = partialSandbox({
      run: async () => {
        await sleep(30);
        return { status: "success", stdout: "", stderr: "", outputTruncated: false, durationMs: 30, language: "javascript" };
      },
      check: async () => ({ ok: true, language: "javascript" }),
    });
    const timed = timeSandbox(sandbox);
    const solveWithSandbox: EvalSolver = async () => {
      await timed.run("1", {});
      await sleep(30); // the model's share
      return { passed: true, attempts: [attempt(true, "success")] };
    };
    const report = await runEvaluation({ tasks, solve: solveWithSandbox, concurrency: 2, sandboxTime: () => timed.time() });
    expect(report.concurrency).toBe(2);
    expect(report.wallMs).toBeGreaterThan(0);
    expect(report.sandbox?.calls).toBe(4);
    // Overlapping runs count once in busy time, every time in the sum.
    expect(report.sandbox!.busyMs).toBeLessThanOrEqual(report.sandbox!.callMs + 1);
    expect(report.sandbox!.busyMs).toBeLessThanOrEqual(report.wallMs + 1);
    expect(report.sandbox!.shareOfWall).toBeGreaterThan(0);
    expect(report.sandbox!.shareOfWall).toBeLessThanOrEqual(1);
    expect(report.results[0]!.sandboxMs).toBe(4);
    expect(renderEvalReport(report)).toMatch(/wall time: .* \(concurrency 2\); sandbox busy .* = \d+\.\d% of wall time \(4 checks and runs/);
  });

  it("rethrows errors the caller marks fatal", async () => {
    await expect(
      runEvaluation({ tasks, solve, isFatal: (e) => (e as Error).message === "model exploded" }),
    ).rejects.toThrow("model exploded");
  });

  it("summarizes an empty set without dividing by zero", () => {
    expect(summarize([])).toMatchObject({ tasks: 0, passAt1FirstAttempt: 0, passAt1AfterRepair: 0, medianDurationMs: 0 });
  });
});
