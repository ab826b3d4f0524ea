/** The per-test report a model reads: the count, each failing test's values, bounded. */
import { describe, expect, it } from "vitest";
import { renderTestReport, testCountLine } from "../../src/feedback/test-report.js";
import type { TestCase, TestsOutcome } from "../../src/sandbox/types.js";

const failing = (line: number, actual: string, expected: string): TestCase => ({
  line,
  source: `assert f(${line}) == ${expected}`,
  status: "failed",
  role: "test",
  decidedBy: "outside",
  expression: `f(${line})`,
  operator: "==",
  actual,
  expected,
});

const outcome = (cases: TestCase[], total: number, passed: number): TestsOutcome => ({ status: passed === total ? "passed" : "failed", stdout: "", stderr: "", total, passed, cases });

describe("renderTestReport", () => {
  it("says how many passed and what each failing test saw", () => {
    const text = renderTestReport(outcome([failing(1, "15", "7"), failing(2, "28", "16")], 3, 1))!;
    expect(text).toBe(
      "1 of 3 tests passed. Failing:\n- line 1: `assert f(1) == 7`: `f(1)` returned `15`; the test expects `7`.\n- line 2: `assert f(2) == 16`: `f(2)` returned `28`; the test expects `16`.",
    );
  });

  it("bounds the failures listed, each value and the whole", () => {
    const many = Array.from({ length: 9 }, (_, i) => failing(i + 1, "'" + "x".repeat(500) + "'", "1"));
    const text = renderTestReport(outcome(many, 9, 0))!;
    expect(text).toContain("- ... and 4 more failing tests.");
    expect(text).toMatch(/more characters cut\]`/);
    expect(text.length).toBeLessThanOrEqual(1800);
  });

  it("has nothing to say without cases, and says when all passed", () => {
    expect(renderTestReport({ status: "failed", stdout: "", stderr: "" })).toBeUndefined();
    expect(testCountLine(outcome([], 2, 2))).toBe("All 2 tests passed.");
  });
});
