/**
 * The host's side of Python verdicts: the split of the tests into statements and shapes, the
 * check of what the worker sends, and Python's comparison semantics made outside the interpreter.
 */
import { describe, expect, it } from "vitest";
import { splitPythonTests } from "../../../src/sandbox/python/shared/tests-split.js";
import { checkTestsOutcome } from "../../../src/sandbox/python/shared/outcome-check.js";
import { decodePyValue, judgePythonTests, pyEquals, pyRepr, type PyValue } from "../../../src/sandbox/python/host/tests-judge.js";

const int = (v: number): string => `["i","${v < 0 ? "-" : ""}${Math.abs(v).toString(16)}"]`;
const str = (s: string): string => `["s","${[...s].map((c) => { const u = c.charCodeAt(0); return (u & 0xff).toString(16).padStart(2, "0") + (u >> 8).toString(16).padStart(2, "0"); }).join("")}"]`;
const value = (text: string): PyValue => decodePyValue(text) as PyValue;

describe("splitPythonTests", () => {
  it("splits statements and finds the shapes it can decide", () => {
    const steps = splitPythonTests(
      "import math\nassert f(1) == 2; assert not g()\nassert (h(1)\n  != 3), 'msg, with comma'\nassert math.isclose(a(), 1.5, rel_tol=1e-3)\nassert x if y else z == 1\nassert a < b < c\nfor i in r:\n    assert i\nif f(2) != 4:\n    raise ValueError('no')\n@d\ndef k():\n    return 1",
    );
    expect(steps.map((s) => [s.line, s.role, s.shape?.kind])).toEqual([
      [1, "setup", undefined],
      [2, "test", "compare"],
      [2, "test", "truthy"],
      [3, "test", "compare"],
      [5, "test", "isclose"],
      [6, "test", undefined],
      [7, "test", undefined],
      [8, "test", undefined],
      [10, "test", undefined],
      [12, "setup", undefined],
    ]);
    expect(steps[1]!.shape).toEqual({ kind: "compare", op: "==", negate: false, left: "f(1)", right: "2" });
    expect(steps[2]!.shape).toEqual({ kind: "truthy", negate: true, operand: "g()" });
    expect(steps[3]!.shape).toMatchObject({ op: "!=", left: "h(1)", right: "3" });
    expect(steps[3]!.partLines).toEqual([3, 4]);
    expect(steps[4]!.shape).toEqual({ kind: "isclose", negate: false, a: "a()", b: "1.5", relTol: "1e-3" });
  });

  it("is not fooled by operators inside strings, f-strings, brackets and comments", () => {
    const [a, b, c] = splitPythonTests("assert f('a == b') in ['x == y']  # == here\nassert f\"{d['k']} == {e!r}\" == 'z'\nassert g([i for i in s if i]) is not None");
    expect(a!.shape).toMatchObject({ op: "in", left: "f('a == b')", right: "['x == y']" });
    expect(b!.shape).toMatchObject({ op: "==", right: "'z'" });
    expect(c!.shape).toMatchObject({ op: "is not", left: "g([i for i in s if i])", right: "None" });
  });
});

describe("Python values compared outside", () => {
  it("follows Python's ==: numbers across types, list vs tuple, dicts and sets without order, nan", () => {
    expect(pyEquals(value(int(1)), value('["f","1.0"]'))).toBe(true);
    expect(pyEquals(value('["T"]'), value(int(1)))).toBe(true);
    expect(pyEquals(value(`["l",${int(1)}]`), value(`["t",${int(1)}]`))).toBe(false);
    expect(pyEquals(value(`["d",${str("a")},${int(1)},${str("b")},${int(2)}]`), value(`["d",${str("b")},${int(2)},${str("a")},["f","1.0"]]`))).toBe(true);
    expect(pyEquals(value(`["S",${int(1)},${int(2)}]`), value(`["Z",${int(2)},["f","1.0"]]`))).toBe(true);
    expect(pyEquals(value('["f","nan"]'), value('["f","nan"]'))).toBe(false);
    expect(pyEquals(value(`["o","4100",1]`), value(`["o","4100",1]`))).toBe(false);
    expect(pyEquals(value(`["l",${int(1)},["c"]]`), value(`["l",${int(1)}]`))).toBeUndefined();
  });

  it("shows values as repr, from the data", () => {
    expect(pyRepr(value(`["t",${int(1)}]`))).toBe("(1,)");
    expect(pyRepr(value(`["l",["f","1e+16"],["f","0.5"],["N"],${str("it's")},["b","00ff"]]`))).toBe(`[1e+16, 0.5, None, "it's", b'\\x00\\xff']`);
    expect(pyRepr(value(`["S"]`))).toBe("set()");
    expect(pyRepr(value(str("x".repeat(1000))), 50).length).toBeLessThanOrEqual(50);
  });

  it("refuses what is not a value of the encoding", () => {
    expect(decodePyValue("not json")).toBe("a value that is not JSON");
    expect(decodePyValue('["i","zz"]')).toBe("an int that is not hex");
    expect(decodePyValue('["q"]')).toBe("a value of no known tag");
    expect(decodePyValue("[".repeat(50) + '"N"' + "]".repeat(50))).toMatch(/not tagged|too deep/);
  });
});

describe("judgePythonTests", () => {
  const tests = "assert f(8) == 7\nassert f(1) == 1\nassert g()";
  it("counts the tests from the text and judges each from its values", () => {
    const judged = judgePythonTests(tests, [
      { kind: "values", values: [int(15), int(7)] },
      { kind: "values", values: [int(1), int(1)] },
      { kind: "raised", error: { name: "NameError", message: "name 'g' is not defined", line: 3 } },
    ]);
    expect(judged).toMatchObject({ status: "failed", total: 3, passed: 1, error: { name: "AssertionError", message: "failed: assert f(8) == 7", line: 1 } });
    expect(judged.cases?.map((c) => c.status)).toEqual(["failed", "passed", "error"]);
  });

  it("does not believe a worker that says a shaped test only ran, sends too few steps, or values of the wrong kind", () => {
    const forged = judgePythonTests(tests, [{ kind: "ran" }, { kind: "values", values: ["garbage"] }]);
    expect(forged.status).toBe("failed");
    expect(forged.passed).toBe(0);
    expect(forged.cases?.map((c) => c.status)).toEqual(["error", "error", "error"]);
  });

  it("the runner's check bounds and types the steps", () => {
    expect(checkTestsOutcome({ status: "passed", steps: [{ kind: "values", values: ["x".repeat(300 * 1024)] }] })).toBe("a test value that is not bounded text");
    expect(checkTestsOutcome({ status: "passed", steps: [{ kind: "lies" }] })).toBe("a tests step of no known kind");
    expect(checkTestsOutcome({ status: "passed", steps: new Array(501).fill({ kind: "ran" }) })).toBe("tests steps that are not a bounded list");
  });
});
