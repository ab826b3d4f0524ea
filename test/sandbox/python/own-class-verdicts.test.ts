/**
 * Verdicts on objects of the program's own class: a comparison whose two sides both hold such
 * objects (`f() == Point(1, 2)`) is decided by the program's own `__eq__`, evaluated by the worker
 * on the values the test's parts made, and marked `decidedBy: "program"`; plain data is still
 * compared on the host, and an object against plain data equals nothing there.
 */
import { describe, expect, it } from "vitest";
import { judgePythonTests } from "../../../src/sandbox/python/host/tests-judge.js";
import { options, useWarmPythonEngine } from "./support.js";

const engine = useWarmPythonEngine();

const POINT = [
  "class Point:",
  "    def __init__(self, x, y):",
  "        self.x, self.y = x, y",
  "    def __eq__(self, other):",
  "        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)",
  "    def __lt__(self, other):",
  "        return (self.x, self.y) < (other.x, other.y)",
  "    __hash__ = None",
  "calls = []",
  "def mid(a, b):",
  "    calls.append(1)",
  "    return Point((a.x + b.x) // 2, (a.y + b.y) // 2)",
].join("\n");

describe("Python tests comparing objects of the program's class", { timeout: 120_000 }, () => {
  it("a correct program passes; a wrong one fails; the verdict is marked the program's", async () => {
    const tests = [
      "assert mid(Point(0, 0), Point(2, 4)) == Point(1, 2)",
      "assert mid(Point(0, 0), Point(2, 4)) != Point(9, 9)",
      "assert [mid(Point(0, 0), Point(2, 2))] == [Point(1, 1)]",
      "assert Point(0, 0) < mid(Point(0, 0), Point(2, 2))",
      "assert mid(Point(0, 0), Point(2, 4)) == Point(5, 5)",
      // Each part ran once: the comparison reused the values, it did not run the test again.
      "assert len(calls) == 5",
      "assert mid(Point(0, 0), Point(2, 4)).x == 1",
    ].join("\n");
    const r = await engine.run(POINT, options({ tests }));
    expect(r.status).toBe("success");
    expect(r.tests).toMatchObject({ status: "failed", total: 7, passed: 6 });
    const cases = r.tests!.cases!;
    expect(cases.map((c) => c.status)).toEqual(["passed", "passed", "passed", "passed", "failed", "passed", "passed"]);
    for (const i of [0, 1, 2, 3, 4]) {
      expect(cases[i]!.decidedBy).toBe("program");
      expect(cases[i]!.note).toMatch(/its own comparison decided this test/);
    }
    expect(cases[4]).toMatchObject({ actual: "<Point object>", expected: "<Point object>" });
    // Plain data on both sides: still decided outside the program.
    expect(cases[5]!.decidedBy).toBe("outside");
    expect(cases[6]!.decidedBy).toBe("outside");
  });

  it("an object against plain data is decided outside (a lying __eq__ gains nothing)", async () => {
    const r = await engine.run("class Liar:\n    def __eq__(self, o):\n        return True\ndef f():\n    return Liar()", options({ tests: "assert f() == 7\nassert f() == Liar()" }));
    expect(r.tests?.cases?.map((c) => [c.status, c.decidedBy])).toEqual([
      ["failed", "outside"],
      // Both sides the program's objects: its own __eq__ decides, and says so.
      ["passed", "program"],
    ]);
  });

  it("an __eq__ that raises is the test's error", async () => {
    const r = await engine.run("class Bad:\n    def __eq__(self, o):\n        raise ValueError('no eq')", options({ tests: "assert Bad() == Bad()" }));
    expect(r.tests?.status).toBe("failed");
    expect(r.tests?.cases?.[0]).toMatchObject({ status: "error", error: { name: "ValueError" } });
  });

  it("the host uses the program's verdict only for objects on both sides", () => {
    const obj = '["o","50006f0069006e007400",1]';
    expect(judgePythonTests("assert f() == g()", [{ kind: "values", values: [obj, obj], byProgram: true }]).cases![0]).toMatchObject({ status: "passed", decidedBy: "program" });
    expect(judgePythonTests("assert f() == g()", [{ kind: "values", values: [obj, obj], byProgram: false }]).cases![0]).toMatchObject({ status: "failed", decidedBy: "program" });
    // A forged "yes" for plain data, or for an object against data, is not used.
    expect(judgePythonTests("assert f() == 7", [{ kind: "values", values: ['["i","3"]', '["i","7"]'], byProgram: true }]).cases![0]).toMatchObject({ status: "failed", decidedBy: "outside" });
    expect(judgePythonTests("assert f() == 7", [{ kind: "values", values: [obj, '["i","7"]'], byProgram: true }]).cases![0]).toMatchObject({ status: "failed", decidedBy: "outside" });
    // No program verdict sent for objects: not decided, failed with a note.
    expect(judgePythonTests("assert f() == g()", [{ kind: "values", values: [obj, obj] }]).cases![0]).toMatchObject({ status: "failed", note: expect.stringMatching(/cannot be compared outside/) });
  });
});
