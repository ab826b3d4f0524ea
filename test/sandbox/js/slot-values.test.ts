/**
 * Test values of built-ins whose data lives in internal slots (a Map's entries, a Date's time):
 * their own properties say nothing, so they are not read as data — before, two different Maps
 * both read as `{}` and a wrong program passed `deepStrictEqual`. Such a comparison now fails
 * with a note saying what to compare instead; identity and truth are still decided, and class
 * instances keep being compared by their own data.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../../src/sandbox/index.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

describe("JavaScript test values held in internal slots", () => {
  it("a Map, a Set or a Date is never equal by its (empty) own properties", async () => {
    const program = "class Point { constructor(x, y) { this.x = x; this.y = y } }\nfunction mk(x, y) { return new Point(x, y) }\nfunction tally() { return new Map([['a', 2]]) }";
    const tests = [
      "assert.deepStrictEqual(mk(1, 2), new Point(1, 2))",
      "assert.deepStrictEqual(mk(1, 2), new Point(1, 3))",
      "assert.deepStrictEqual(tally(), new Map([['a', 3]]))",
      "expect({ when: new Date(0) }).toEqual({ when: new Date(1) })",
      "assert.deepStrictEqual(new Set([1]), new Set([2]))",
      "const m = tally(); assert.strictEqual(m, m)",
      "assert.ok(new Set())",
      "assert.deepStrictEqual([...tally()], [['a', 2]])",
    ].join("\n");
    const r = await sandbox.run(program, { tests });
    expect(r.status).toBe("success");
    const cases = r.tests!.cases!;
    expect(cases.map((c) => c.status)).toEqual(["passed", "failed", "failed", "failed", "failed", "passed", "passed", "passed"]);
    expect(cases[2]).toMatchObject({ actual: "[Map]", expected: "[Map]", note: expect.stringMatching(/a Map keeps its contents in internal slots.*\[\.\.\.map\]/) });
    expect(cases[3]!.note).toMatch(/a Date keeps its contents/);
    expect(cases[4]!.note).toMatch(/a Set keeps its contents/);
    // A class that extends a slot-holding built-in is one too; a plain class instance is data.
    const sub = await sandbox.run("class Bag extends Map {}", { tests: "assert.deepStrictEqual(new Bag([[1, 1]]), new Bag([[1, 2]]))" });
    expect(sub.tests?.cases?.[0]).toMatchObject({ status: "failed", note: expect.stringMatching(/a Map keeps/) });
  });

  it("a value cut at the bounds is still truthy (an array too long to read is an array)", async () => {
    const r = await sandbox.run("function big(n) { return Array.from({ length: n }, (_, i) => i) }", { tests: "assert.ok(big(30000))\nexpect(big(30000)).toBeFalsy()" });
    expect(r.tests?.cases?.map((c) => c.status)).toEqual(["passed", "failed"]);
  });
});
