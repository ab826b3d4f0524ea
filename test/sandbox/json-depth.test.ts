import { describe, expect, it } from "vitest";
import { jsonNestingExceeds, MAX_JSON_DEPTH } from "../../src/sandbox/json-depth.js";
import { instrumentTests, unshiftTestsColumns, wrapTests, TESTS_HEAD } from "../../src/sandbox/js/prepare/tests-scope.js";

describe("jsonNestingExceeds", () => {
  it("counts arrays and objects, not brackets inside strings (escaped quotes included)", () => {
    expect(jsonNestingExceeds("[[[1]]]", 2)).toBe(true);
    expect(jsonNestingExceeds('[{"a":[1]}]', 3)).toBe(false);
    expect(jsonNestingExceeds('["[[[[[[", "\\"[[[[[["]', 2)).toBe(false);
    const deep = "[".repeat(MAX_JSON_DEPTH + 1) + "]".repeat(MAX_JSON_DEPTH + 1);
    expect(jsonNestingExceeds(deep)).toBe(true);
    expect(jsonNestingExceeds(deep.slice(1, -1))).toBe(false);
  });
});

describe("the tests' rewrite", () => {
  it("wraps the tests in one async function on the same lines, hands over the last expression, marks throws", () => {
    const code = instrumentTests(wrapTests("const x = 1;\nif (x) throw 'bad';\ncheck(x), done()"));
    expect(code.split("\n")).toEqual([
      `${TESTS_HEAD}const x = 1;`,
      "if (x) throw __sandboxTestThrowAt(2, 'bad');",
      "__sandboxTestValue((check(x), done()))",
      "})",
    ]);
  });

  it("puts line 1's columns back where they are in the caller's text", () => {
    const at = TESTS_HEAD.length + 5;
    expect(unshiftTestsColumns({ line: 1, column: at, stack: `    at f (tests.js:1:${at})\n    at <anonymous> (tests.js:2:3)` })).toEqual({
      line: 1,
      column: 5,
      stack: "    at f (tests.js:1:5)\n    at <anonymous> (tests.js:2:3)",
    });
  });
});
