import { describe, expect, it } from "vitest";
import {
  describeTypeErrors,
  explainCheck,
  explainNoProgram,
  explainResult,
  explainTests,
  explainWrongOutput,
} from "../../src/feedback/explain.js";
import { NEXT_STEP } from "../../src/feedback/next-step.js";
import { describeError, numberLines, quoteLine } from "../../src/feedback/quote.js";
import { formatExecutionForModel } from "../../src/feedback/tool-text.js";
import { MAX_EXPLANATION_CHARS, truncate } from "../../src/feedback/truncate.js";
import { EXECUTION_STATUSES, type ExecutionResult } from "../../src/sandbox/types.js";

const code = "def f(x):\n    return x / 0\n\nprint(f(1))";

function result(overrides: Partial<ExecutionResult>): ExecutionResult {
  return { status: "success", stdout: "", stderr: "", outputTruncated: false, durationMs: 3, language: "python", ...overrides };
}

describe("one truncation rule", () => {
  it("keeps short text and cuts long text to the bound with one marker", () => {
    expect(truncate("short", 10)).toBe("short");
    const cut = truncate("x".repeat(1000), 100);
    expect(cut.length).toBeLessThanOrEqual(100);
    expect(cut).toMatch(/^x+ \[\.\.\. \d+ more characters cut\]$/);
    const kept = cut.indexOf(" [");
    expect(Number(/(\d+) more/.exec(cut)![1]) + kept).toBe(1000);
  });
});

describe("quoting", () => {
  it("quotes the failing line, bounded", () => {
    expect(quoteLine(code, 2)).toBe("return x / 0");
    expect(quoteLine(code, 3)).toBeUndefined();
    expect(quoteLine(code, 99)).toBeUndefined();
    expect(quoteLine("y".repeat(500), 1)!.length).toBeLessThanOrEqual(160);
    expect(describeError({ name: "ZeroDivisionError", message: "division by zero", line: 2 }, code)).toBe(
      "ZeroDivisionError: division by zero (line 2: `return x / 0`)",
    );
    expect(describeError({ name: "SyntaxError", message: "unexpected token", line: 2, column: 5 }, code)).toBe(
      "SyntaxError: unexpected token (line 2:5: `return x / 0`)",
    );
    expect(numberLines("a\nb")).toBe("1 | a\n2 | b");
  });
});

describe("explanations", () => {
  it("explains each status with what to do", () => {
    const error = { name: "ZeroDivisionError", message: "division by zero", line: 2 };
    expect(explainResult(result({ status: "runtime_error", error }), code)).toMatch(
      /threw an error while running\. ZeroDivisionError: division by zero \(line 2: `return x \/ 0`\)\. Fix the cause on that line/,
    );
    expect(explainResult(result({ status: "timeout" }), code, { timeoutMs: 5000 })).toMatch(/time limit of 5000 ms.*loop that never ends/);
    expect(explainResult(result({ status: "memory_limit" }), code, { memoryLimitBytes: 64 * 1048576 })).toMatch(/more memory than allowed \(64 MiB\)/);
    expect(explainResult(result({ status: "output_limit" }), code, { maxOutputBytes: 1024 })).toMatch(/output limit of 1024 bytes\. Print less/);
    expect(explainResult(result({ status: "cancelled" }), code)).toMatch(/cancelled by the caller/);
    expect(
      explainCheck({ ok: false, language: "python", status: "forbidden", error: { name: "ImportError", message: "no module named requests", line: 1 } }, "import requests"),
    ).toMatch(/ImportError: no module named requests \(line 1: `import requests`\).*built-ins/);
  });

  it("has a next step for every status of the sandbox", () => {
    for (const status of EXECUTION_STATUSES) expect(typeof NEXT_STEP[status]).toBe("string");
    for (const status of EXECUTION_STATUSES.filter((s) => s !== "success")) expect(NEXT_STEP[status]).not.toBe("");
  });

  it("stays within its bound for huge messages", () => {
    const text = explainResult(result({ status: "runtime_error", error: { name: "Error", message: "x".repeat(10_000) } }), code);
    expect(text.length).toBeLessThanOrEqual(MAX_EXPLANATION_CHARS);
    const types = explainCheck(
      { ok: false, language: "typescript", status: "type_error", diagnostics: Array.from({ length: 50 }, (_, i) => ({ line: i + 1, column: 1, code: 2322, message: "m".repeat(500) })) },
      "let a = 1;\n".repeat(50),
    );
    expect(types.length).toBeLessThanOrEqual(MAX_EXPLANATION_CHARS);
  });

  it("explains tests apart from the code: a failing test quotes the test's line", () => {
    const tests = "assert add(2, 3) == 5";
    expect(explainTests({ status: "failed", stdout: "", stderr: "", error: { name: "AssertionError", message: "add(2, 3) returned -1", line: 1 } }, tests)).toBe(
      "A test failed: AssertionError: add(2, 3) returned -1 (line 1: `assert add(2, 3) == 5`). " + NEXT_STEP.test_failed,
    );
    expect(explainTests({ status: "not_run", stdout: "", stderr: "", reason: "the program called sys.exit(0) before the tests ran" }, tests)).toMatch(
      /^The tests did not run\. The program ended before the tests could run \(the program called sys\.exit\(0\) before the tests ran\)\. Let the program finish normally/,
    );
    const run = result({ tests: { status: "failed", stdout: "", stderr: "", error: { name: "Error", message: "boom", line: 1 } } });
    expect(explainResult(run, "print(1)", {}, tests)).toMatch(/^A test failed: Error: boom \(line 1: `assert add/);
  });

  it("explains type errors with line, column and the quoted line", () => {
    const source = 'const n: number = "one";\nconsole.log(n);';
    expect(describeTypeErrors([{ line: 1, column: 7, code: 2322, message: "Type 'string' is not assignable to type 'number'." }], source)).toBe(
      "line 1:7 TS2322: Type 'string' is not assignable to type 'number'. (`const n: number = \"one\";`)",
    );
  });

  it("explains wrong output and a reply without a program", () => {
    expect(explainWrongOutput("42", "41")).toBe(`The output differs from the expected output. Expected:\n42\nGot:\n41\n${NEXT_STEP.wrong_output}`);
    expect(explainWrongOutput("42", "")).toContain("(nothing printed)");
    expect(explainNoProgram("the reply is prose only")).toBe(`No program was found in the reply. Why: the reply is prose only. ${NEXT_STEP.no_program}`);
  });
});

describe("tool text", () => {
  it("formats a run: status, output, result, error with its line and what to try", () => {
    expect(formatExecutionForModel(result({ stdout: "3628800\n", result: 3628800 }), "")).toBe("status: success\nstdout:\n3628800\nresult: 3628800");
    const failed = formatExecutionForModel(result({ status: "runtime_error", error: { name: "ZeroDivisionError", message: "division by zero", line: 2 } }), code);
    expect(failed).toBe(`status: runtime_error\nerror: ZeroDivisionError: division by zero (line 2)\n  2 | return x / 0\nhint: ${NEXT_STEP.runtime_error}`);
  });

  it("reports tests and bounds a flood of output", () => {
    const text = formatExecutionForModel(
      result({ stdout: "y".repeat(20_000), tests: { status: "failed", stdout: "", stderr: "", error: { name: "AssertionError", message: "", line: 1 } } }),
      "",
      { maxChars: 1000, tests: "assert f() == 2" },
    );
    expect(text.length).toBeLessThanOrEqual(1000);
    expect(text).toContain("more characters cut");
    expect(text).toContain("tests: failed");
    expect(text).toContain("  1 | assert f() == 2");
    expect(text).toContain(`hint: ${NEXT_STEP.test_failed}`);
  });
});

describe("the truncation rule cuts at a boundary", () => {
  it("after a sentence or line near the end, else before a word; never half a word", () => {
    expect(truncate("First sentence here. Second part that goes on and on.", 50)).toBe("First sentence here. [... 33 more characters cut]");
    const words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon";
    const cut = truncate(words, 60);
    expect(cut.length).toBeLessThanOrEqual(60);
    const kept = cut.slice(0, cut.indexOf(" [..."));
    expect(words.startsWith(`${kept} `)).toBe(true);
    expect(Number(/(\d+) more/.exec(cut)![1]) + kept.length).toBe(words.length);
    // A sentence far back is not worth losing most of the room for: the cut is at a word.
    const late = `Short. ${"word ".repeat(40)}`;
    expect(truncate(late, 100).startsWith("Short. word word")).toBe(true);
    for (let max = 1; max < 140; max += 7) expect(truncate(words + " " + words, max).length).toBeLessThanOrEqual(max);
  });
});
