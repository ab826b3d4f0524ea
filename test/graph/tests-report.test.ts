/**
 * Tests run one by one, their values compared outside the program's interpreter, and the repair
 * prompt shows what happened: the count, every failing test's values, an exception's line. A
 * hostile program cannot make a failing test look passed through the values it gives.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createCodeGenGraph } from "../../src/graph/index.js";
import { createSandbox, disposeDefaultSandbox } from "../../src/sandbox/index.js";
import { fence, scriptedModel, promptRecorder } from "../support/scripted-model.js";

const sandbox = createSandbox();
afterAll(async () => {
  await sandbox.dispose();
  await disposeDefaultSandbox();
});

const limits = { timeoutMs: 60_000 };
const SUM_DIV_TESTS = "assert sum_div(8)==7\nassert sum_div(12)==16\nassert sum_div(7)==1";
// "All divisors" where the tests want proper divisors, except above 8: 15 and 8 where 7 and 1 are expected.
const ALL_DIVISORS = "def sum_div(n):\n    total = sum(i for i in range(1, n + 1) if n % i == 0)\n    return total - n if n > 8 else total";
const PROPER = "def sum_div(n):\n    return sum(i for i in range(1, n) if n % i == 0)";

describe("the per-test report in the repair prompt", { timeout: 180_000 }, () => {
  it("Python: a wrong sum_div shows the returned and expected values and '1 of 3 tests passed'", async () => {
    const { prompts, callbacks } = promptRecorder();
    const state = await createCodeGenGraph({ model: scriptedModel(fence("python", ALL_DIVISORS), fence("python", PROPER)), ...limits, repair: { prompt: "repair" } }).invoke(
      { task: "Write sum_div(n), the sum of all divisors of n", language: "python", tests: SUM_DIV_TESTS },
      { callbacks },
    );
    expect(state.status).toBe("success");
    const repair = prompts[1]!;
    expect(repair).toContain("1 of 3 tests passed.");
    expect(repair).toContain("line 1: `assert sum_div(8)==7`: `sum_div(8)` returned `15`; the test expects `7`.");
    // Each test ran although the first failed.
    expect(repair).toContain("line 3: `assert sum_div(7)==1`: `sum_div(7)` returned `8`; the test expects `1`.");
    expect(repair).not.toContain("line 2:");
  });

  it("JavaScript: the evals' eq helper shows the values and the count", async () => {
    const wrong = "function sumDiv(n) { let s = 0; for (let i = 1; i <= n; i++) if (n % i === 0) s += i; return s; }";
    const right = "function sumDiv(n) { let s = 0; for (let i = 1; i < n; i++) if (n % i === 0) s += i; return s; }";
    const tests = [
      "{",
      "  const eq = (actual, expected, label) => {",
      "    if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(label);",
      "  };",
      "  eq(sumDiv(8), 7, 'eight');",
      "  eq(sumDiv(12), 16, 'twelve');",
      "  eq([sumDiv(6)], [6], 'six');",
      "}",
    ].join("\n");
    const { prompts, callbacks } = promptRecorder();
    const state = await createCodeGenGraph({ model: scriptedModel(fence("js", wrong), fence("js", right)), repair: { prompt: "repair" } }).invoke({ task: "Write sumDiv", tests }, { callbacks });
    expect(state.status).toBe("success");
    const repair = prompts[1]!;
    expect(repair).toContain("0 of 3 tests passed.");
    expect(repair).toContain("line 5: `eq(sumDiv(8), 7, 'eight');`: `sumDiv(8)` returned `15`; the test expects `7`.");
    expect(repair).toContain("`sumDiv(12)` returned `28`; the test expects `16`.");
    expect(repair).toContain("`[sumDiv(6)]` is `[12]`; the test expects `[6]`.");
  });

  it("an exception shows its type, message and line in the program", async () => {
    const code = "def inverse(x):\n    y = x - 2\n    return 1 / y\n";
    const r = await sandbox.run(code, { language: "python", tests: "assert inverse(3) == 1\nassert inverse(2) == 0\nassert inverse(4) == 0.5" });
    expect(r.tests).toMatchObject({ status: "failed", total: 3, passed: 2 });
    const { explainTestReport } = await import("../../src/feedback/test-report.js");
    const text = explainTestReport(r.tests!, { code })!;
    expect(text).toContain("2 of 3 tests passed.");
    expect(text).toContain("line 2: `assert inverse(2) == 0` raised ZeroDivisionError: division by zero at line 3 of the program (`return 1 / y`).");
  });

  it("values are truncated in the report", async () => {
    const r = await sandbox.run("def big():\n    return 'x' * 5000", { language: "python", tests: "assert big() == 'y'" });
    const { renderTestReport } = await import("../../src/feedback/test-report.js");
    const text = renderTestReport(r.tests!)!;
    expect(r.tests?.cases?.[0]?.actual?.length).toBeLessThanOrEqual(300);
    expect(text).toMatch(/`big\(\)` returned `'x{20,}[^`]*more characters cut\]`; the test expects `'y'`/);
    expect(text.length).toBeLessThan(600);
  });
});

describe("a hostile program cannot make its failing test look passed", { timeout: 180_000 }, () => {
  const py = (code: string, tests: string) => sandbox.run(code, { language: "python", tests });

  it("Python: a class whose __eq__ says yes and whose __repr__ lies", async () => {
    const r = await py("class Liar:\n    def __eq__(self, o): return True\n    def __repr__(self): return '7'\ndef f():\n    return Liar()", "assert f() == 7");
    expect(r.tests).toMatchObject({ status: "failed", total: 1, passed: 0 });
    expect(r.tests?.cases?.[0]).toMatchObject({ status: "failed", decidedBy: "outside", actual: "<Liar object>", expected: "7" });
  });

  it("Python: subclasses of the expected types with a lying __eq__ are compared by their data", async () => {
    const code = "class I(int):\n    def __eq__(s, o): return True\n    __hash__ = int.__hash__\nclass D(dict):\n    def __eq__(s, o): return True\ndef n():\n    return I(5)\ndef d():\n    return D(a=2)";
    const r = await py(code, "assert n() == 7\nassert d() == {'a': 1}\nassert n() == 5");
    expect(r.tests).toMatchObject({ status: "failed", total: 3, passed: 1 });
    expect(r.tests?.cases?.map((c) => c.status)).toEqual(["failed", "failed", "passed"]);
    expect(r.tests?.cases?.[1]).toMatchObject({ actual: "{'a': 2}", expected: "{'a': 1}" });
  });

  it("Python: a program that replaces AssertionError, builtins or the tests' helpers changes nothing", async () => {
    const code = [
      "import builtins, math",
      "class Never(Exception):",
      "    pass",
      "builtins.AssertionError = Never",
      "math.isclose = lambda *a, **k: True",
      "builtins.len = lambda x: 3",
      "def f():",
      "    return [1, 2]",
    ].join("\n");
    const r = await py(code, "import math\nassert f() == [1, 2, 3]\nassert math.isclose(f()[0], 2.0)\nassert len(f()) == 2");
    // The comparison and isclose are made outside; the program's len does not reach the tests.
    expect(r.tests?.cases?.map((c) => c.status)).toEqual(["failed", "failed", "passed"]);
    expect(r.tests).toMatchObject({ status: "failed", total: 3, passed: 1 });
  });

  it("Python: a value past the encoding's bounds counts as failed", async () => {
    const r = await py("def f():\n    return list(range(100000))", "assert f() == list(range(100000))");
    expect(r.tests?.status).toBe("failed");
    expect(r.tests?.cases?.[0]?.note).toMatch(/too large or too deep/);
  });

  it("JavaScript: toJSON, getters and a program-defined assert do not change the verdict", async () => {
    const code = [
      "globalThis.assert = Object.assign(() => {}, { strictEqual() {}, deepStrictEqual() {} });",
      "function f() { return { toJSON() { return 7; } }; }",
      "function g() { return { get v() { return 1; } }; }",
      "function h() { return 15; }",
    ].join("\n");
    const tests = "assert.strictEqual(h(), 7);\nassert.deepStrictEqual(g(), { v: 1 });\neq(f(), 7);\nassert(h() === 7);";
    const r = await sandbox.run(`${code}\nfunction eq() {}`, { tests });
    expect(r.tests).toMatchObject({ status: "failed", total: 4, passed: 0 });
    expect(r.tests?.cases?.map((c) => [c.status, c.actual])).toEqual([
      ["failed", "15"],
      ["failed", "{v: [Getter]}"],
      ["failed", "{toJSON: [Function]}"],
      ["failed", "false"],
    ]);
  });

  it("JavaScript: each test runs even when an earlier one throws", async () => {
    const r = await sandbox.run("function f(x) { if (x < 0) throw new RangeError('negative'); return x * 2; }", {
      tests: "assert.strictEqual(f(-1), 0);\nassert.strictEqual(f(2), 4);\nexpect(f(3)).toBe(7);",
    });
    expect(r.tests?.cases?.map((c) => c.status)).toEqual(["error", "passed", "failed"]);
    expect(r.tests?.cases?.[0]?.error).toMatchObject({ name: "RangeError", message: "negative" });
    expect(r.tests).toMatchObject({ total: 3, passed: 1 });
  });
});

describe("values past the bounds in JavaScript", { timeout: 60_000 }, () => {
  it("a huge array is cut at once and its test fails, with a note", async () => {
    const started = Date.now();
    const r = await sandbox.run("function f() { return new Array(400000).fill(1); }", { tests: "assert.deepStrictEqual(f(), f());" });
    expect(r.tests?.cases?.[0]).toMatchObject({ status: "failed", note: expect.stringMatching(/too large or too deep/) });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
