/**
 * Shown vs judged tests: the graph (and so the model) sees only the shown tests; the harness
 * judges the final program on all of them, and counts pass@1 as if run with fewer retries.
 */
import { describe, expect, it } from "vitest";
import { createCodeGenGraph } from "../../src/graph/index.js";
import { graphSolver, type EvalJudge } from "../../src/eval/graph-solver.js";
import { runEvaluation, type EvalSolver } from "../../src/eval/run-evaluation.js";
import type { EvalTask } from "../../src/eval/task-set.js";
import { judgeRun } from "../../src/graph/nodes/execute.js";
import { runCode } from "../../src/sandbox/run-code.js";
import { fence, promptRecorder, scriptedModel } from "../support/scripted-model.js";

const cases = [
  "if (triple(1) !== 3) throw new Error('shown: triple(1)');",
  "if (triple(2) !== 6) throw new Error('JUDGED-ONLY-A');",
  "if (triple(-4) !== -12) throw new Error('JUDGED-ONLY-B');",
];
const task: EvalTask = {
  id: "triple",
  language: "javascript",
  task: "Write triple(n) that returns 3 * n.",
  tests: cases.join("\n"),
  testCases: cases,
  hiddenTests: "if (triple(10) !== 30) throw new Error('HIDDEN-C');",
};

const judge: EvalJudge = async (code, tests, t) => {
  const result = await runCode(code, { language: t.language, tests });
  return judgeRun(result, { code, tests }).status === "success";
};

describe("shown vs judged tests", () => {
  it("never shows the model a judged-only test, and fails a program that passes only the shown one", async () => {
    const { prompts, callbacks } = promptRecorder();
    // Passes triple(1) only: the graph stops there (it sees one test), the judge does not.
    const model = scriptedModel(fence("js", "function triple(n) { return n + 2; }"));
    const solve = graphSolver(createCodeGenGraph({ model, maxRetries: 2 }), { callbacks }, { shownTests: 1, judge });
    const outcome = await solve(task);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain("shown: triple(1)");
    for (const prompt of prompts) expect(prompt).not.toMatch(/JUDGED-ONLY|HIDDEN-C/);
    expect(outcome.passed).toBe(false);
    expect(outcome.attempts.map((a) => [a.status, a.passed])).toEqual([["success", false]]);
    expect(outcome.explanation).toMatch(/passed the tests it was shown but failed the judged tests/);
  });

  it("hidden tests never reach the model even when every case is shown, and a right program passes", async () => {
    const { prompts, callbacks } = promptRecorder();
    const model = scriptedModel(fence("js", "function triple(n) { return n * 2; }"), fence("js", "function triple(n) { return 3 * n; }"));
    const solve = graphSolver(createCodeGenGraph({ model, maxRetries: 2 }), { callbacks }, { judge });
    const outcome = await solve(task);
    expect(outcome.passed).toBe(true);
    expect(prompts[0]).toContain("JUDGED-ONLY-A");
    for (const prompt of prompts) expect(prompt).not.toMatch(/HIDDEN-C/);
    expect(outcome.attempts.map((a) => a.passed)).toEqual([false, true]);
  });

  it("refuses to solve a task with unseen tests without a judge", async () => {
    const solve = graphSolver(createCodeGenGraph({ model: scriptedModel("x") }), {}, { shownTests: 1 });
    await expect(solve(task)).rejects.toThrow(/judge/);
  });
});

describe("pass@1 by retries from one run", () => {
  it("counts a task passed at attempt k as passed for every maxRetries of at least k - 1, with the tokens up to there", async () => {
    const attempt = (passed: boolean, tokens: number, extra: object = {}) => ({ passed, status: passed ? "success" : "test_failed", inputTokens: tokens, outputTokens: 0, ...extra });
    const solve: EvalSolver = async (t) =>
      t.id === "a"
        ? { passed: true, attempts: [attempt(true, 100)] }
        : t.id === "b"
          ? { passed: true, attempts: [attempt(false, 100), attempt(false, 50, { repeats: 1, modelCalls: 1 }), attempt(true, 60, { modelCalls: 2 })] }
          : { passed: false, attempts: [attempt(false, 100), attempt(false, 40)], repeatsExecuted: 1 };
    const tasks = ["a", "b", "c"].map((id) => ({ id, language: "javascript" as const, task: "t", tests: "" }));
    const report = await runEvaluation({ tasks, solve });
    expect(report.results.map((r) => r.passedAtAttempt)).toEqual([1, 3, undefined]);
    expect(report.summary.byRetries).toEqual([
      { retries: 0, passed: 1, passAt1: 1 / 3, tokens: 300 },
      { retries: 1, passed: 1, passAt1: 1 / 3, tokens: 390 },
      { retries: 2, passed: 2, passAt1: 2 / 3, tokens: 450 },
    ]);
    expect(report.summary).toMatchObject({ modelCalls: 1 + 4 + 2, repeatsSkipped: 1, repeatsExecuted: 1 });
  });
});
