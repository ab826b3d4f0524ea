import { describe, expect, it } from "vitest";
import { findSameProgram, normalizeProgram } from "../../src/graph/same-program.js";
import { lineDiff, renderAttemptHistory } from "../../src/feedback/attempt-history.js";
import { repeatNote } from "../../src/graph/nodes/refine.js";
import { usesRepairPrompt, temperatureOf, resolveRepairStrategy } from "../../src/graph/repair-strategy.js";

describe("normalizeProgram", () => {
  it("treats comments and spacing as the same program (Python)", () => {
    const a = "def f(x):\n    # add one\n    return x+1\n";
    const b = "def f( x ):  \n\n    return x + 1   # done\n";
    expect(normalizeProgram(a, "python")).toBe(normalizeProgram(b, "python"));
  });

  it("keeps what changes meaning: indentation in Python, strings, names", () => {
    const loop = "for i in range(3):\n    a = i\n    print(a)";
    const after = "for i in range(3):\n    a = i\nprint(a)";
    expect(normalizeProgram(loop, "python")).not.toBe(normalizeProgram(after, "python"));
    expect(normalizeProgram("print('a # b')", "python")).not.toBe(normalizeProgram("print('a')", "python"));
    expect(normalizeProgram('s = """x\n# not a comment\n"""', "python")).toContain("# not a comment");
    expect(normalizeProgram("return a", "javascript")).not.toBe(normalizeProgram("return b", "javascript"));
  });

  it("removes line and block comments in JavaScript, not inside strings", () => {
    const a = "/* helper */\nfunction f(n) { // twice\n  return n*2;\n}";
    const b = "function f(n) {\n    return n * 2;\n}";
    expect(normalizeProgram(a, "javascript")).toBe(normalizeProgram(b, "javascript"));
    expect(normalizeProgram("const u = 'http://x';", "javascript")).toContain("http://x");
    expect(normalizeProgram("const t = `a // b`;", "javascript")).toContain("a // b");
  });

  it("finds the earlier attempt a program repeats, ignoring empty ones", () => {
    const earlier = [{ number: 1, code: "" }, { number: 2, code: "print(1)" }];
    expect(findSameProgram("print( 1 )  # again", earlier, "python")).toBe(2);
    expect(findSameProgram("print(2)", earlier, "python")).toBeUndefined();
    expect(findSameProgram("   ", earlier, "python")).toBeUndefined();
  });
});

describe("attempt history", () => {
  it("shows short programs whole, long ones as a diff, and only the latest attempts", () => {
    const long = Array.from({ length: 20 }, (_, i) => `x${i} = ${i}`).join("\n");
    const changed = long.replace("x7 = 7", "x7 = 70");
    const history = renderAttemptHistory([
      { number: 1, code: "print(1)", status: "test_failed", error: "A test failed:\nassert f(1) == 2" },
      { number: 2, code: long, status: "runtime_error", error: "NameError" },
      { number: 3, code: "print(1)", status: "repeat", repeatOf: 1 },
      { number: 4, code: changed, status: "test_failed", error: "A test failed" },
      { number: 5, code: "print(5)", status: "test_failed" },
    ]);
    expect(history).toMatch(/^Earlier attempts \(do not repeat them\):\nAttempt 1 \(test_failed: A test failed: assert f\(1\) == 2\):\nprint\(1\)/);
    expect(history).toContain("Attempt 4 (test_failed: A test failed):\nchanges from attempt 2:\n- x7 = 7\n+ x7 = 70");
    expect(history).not.toMatch(/Attempt 3|Attempt 5/);
    expect(renderAttemptHistory([{ number: 1, code: "x", status: "test_failed" }])).toBe("");
    expect(lineDiff("a\nb", "a\nb")).toBe("(no change in the lines)");
  });

  it("words a repeat with the original's failure", () => {
    const attempts = [
      { number: 1, code: "x", phase: "execute" as const, status: "test_failed" as const, error: "A test failed: sum_div(8) == 7", stdout: "", durationMs: 1, inputTokens: 1, outputTokens: 1 },
      { number: 2, code: "x", phase: "generate" as const, status: "repeat" as const, repeatOf: 1, stdout: "", durationMs: 0, inputTokens: 1, outputTokens: 1 },
    ];
    expect(repeatNote(attempts[1]!, attempts)).toBe(
      "Your last program is the same as attempt 1, which failed (test_failed: A test failed: sum_div(8) == 7). It was not run again. Write a different program.",
    );
  });
});

describe("repair strategy", () => {
  it("fills defaults, picks each attempt's temperature and prompt", () => {
    const strategy = resolveRepairStrategy({ temperatures: [0, 0.7, 1] });
    expect(strategy).toEqual({ temperatures: [0, 0.7, 1], samples: 3, prompt: "auto", explainFirst: false });
    // Where a person approves each program, one candidate per round unless asked otherwise.
    expect(resolveRepairStrategy({}, { approveBeforeExecute: true }).samples).toBe(1);
    expect(resolveRepairStrategy({ samples: 2 }, { approveBeforeExecute: false }).samples).toBe(2);
    expect([1, 2, 3, 4, 9].map((n) => temperatureOf(strategy, n))).toEqual([0, 0.7, 1, 1, 1]);
    expect(usesRepairPrompt("auto", 1, "test_failed")).toBe(false);
    expect(usesRepairPrompt("auto", 1, "runtime_error")).toBe(true);
    expect([1, 2, 3].map((round) => usesRepairPrompt("alternate", round, "test_failed"))).toEqual([true, false, true]);
    expect(usesRepairPrompt("fresh", 1, "syntax_error")).toBe(false);
    expect(() => resolveRepairStrategy({ temperatures: [] })).toThrow(/repair\.temperatures/);
    expect(() => resolveRepairStrategy({ prompt: "again" as never })).toThrow(/repair\.prompt/);
  });
});
