/**
 * The outcome check both sides of the Python boundary apply (shared/outcome-check.ts) and the
 * host's check of a result line (host/reply-check.ts): every forged shape is refused with a
 * reason, nothing throws, and what passes can be serialised again.
 */
import { describe, expect, it } from "vitest";
import { checkOutcome, jsonValueProblem } from "../../../src/sandbox/python/shared/outcome-check.js";
import { checkResultReply } from "../../../src/sandbox/python/host/reply-check.js";

const limits = { timeoutMs: 1000, memoryLimitBytes: 1 << 20, maxOutputBytes: 1 << 20, maxResultBytes: 1 << 20 };
const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("checkOutcome", () => {
  it("keeps a well-formed outcome and drops unknown fields", () => {
    expect(checkOutcome({ status: "runtime_error", error: { name: "ValueError", message: "x", line: 3, column: 1, stack: "s", extra: 1 }, junk: 2 }, 100, true)).toEqual({
      status: "runtime_error",
      error: { name: "ValueError", message: "x", line: 3, column: 1, stack: "s" },
    });
    expect(checkOutcome({ status: "success", resultJson: "1e308" }, 100, true)).toEqual({ status: "success", resultJson: "1e308" });
  });

  const refused: Array<[string, unknown]> = [
    ["not an object", "success"],
    ["null", null],
    ["an array", []],
    ["cancelled from the guest", { status: "cancelled" }],
    ["timeout from the guest", { status: "timeout" }],
    ["an unknown status", { status: "great" }],
    ["a numeric status", { status: 1 }],
    ["a result that is not JSON", { status: "success", resultJson: "{nope" }],
    ["a result that is not text", { status: "success", resultJson: 5 }],
    ["a 300,000-deep result", { status: "success", resultJson: deep(300_000) }],
    ["a 257-deep result", { status: "success", resultJson: deep(257) }],
    ["an infinite result", { status: "success", resultJson: "1e999" }],
    ["an infinite number inside", { status: "success", resultJson: '{"a": [1, -1e999]}' }],
    ["a result over the cap", { status: "success", resultJson: JSON.stringify("x".repeat(200)) }],
    ["a line that is not a line", { status: "runtime_error", error: { name: "E", message: "m", line: "not-a-line" } }],
    ["a fractional line", { status: "runtime_error", error: { name: "E", message: "m", line: 1.5 } }],
    ["a line of 1e308", { status: "runtime_error", error: { name: "E", message: "m", line: 1e308 } }],
    ["a negative column", { status: "runtime_error", error: { name: "E", message: "m", column: -1 } }],
    ["an error without a name", { status: "runtime_error", error: { message: "m" } }],
    ["an error that is a string", { status: "runtime_error", error: "boom" }],
    ["a huge message", { status: "runtime_error", error: { name: "E", message: "x".repeat(100_000) } }],
    ["a stack that is not text", { status: "runtime_error", error: { name: "E", message: "m", stack: {} } }],
    ["a tests status that is unknown", { status: "success", tests: { status: "great" } }],
    ["a tests reason that is not text", { status: "success", tests: { status: "not_run", reason: 1 } }],
  ];
  for (const [label, value] of refused) {
    it(`refuses ${label}`, () => {
      let out: unknown;
      expect(() => (out = checkOutcome(value, 100, true))).not.toThrow();
      expect(typeof out).toBe("string");
    });
  }

  it("lets the supervisor (not the guest) report timeout and cancelled", () => {
    expect(checkOutcome({ status: "timeout", error: { name: "TimeoutError", message: "t" } }, 100, false)).toMatchObject({ status: "timeout" });
    expect(checkOutcome({ status: "cancelled" }, 100, false)).toMatchObject({ status: "cancelled" });
  });

  it("measures depth without recursion", () => {
    expect(jsonValueProblem(JSON.parse(deep(300_000)))).toMatch(/nested deeper/);
    expect(jsonValueProblem({ a: [1, { b: 2 }] })).toBe("");
  });
});

describe("checkResultReply", () => {
  const good = { type: "result", id: 1, outcome: { status: "success", resultJson: "[1]" }, stdout: "a", stderr: "", outputTruncated: false, durationMs: 2, interpreterReset: false };

  it("keeps a well-formed reply", () => {
    expect(checkResultReply(good, limits)).toMatchObject({ type: "result", id: 1, outcome: { status: "success", resultJson: "[1]" }, stdout: "a" });
  });

  it("never throws, whatever the process sends, and what it keeps serialises", () => {
    const values: unknown[] = [null, undefined, 0, "", [], {}, Symbol("s"), () => 1, deep(10)];
    const shapes: unknown[] = [];
    for (const key of Object.keys(good)) for (const value of values) shapes.push({ ...good, [key]: value });
    shapes.push({ ...good, outcome: { status: "success", resultJson: deep(300_000) } }, { ...good, durationMs: Number.NaN }, { ...good, durationMs: 1e308 }, Object.create(null));
    for (const shape of shapes) {
      let out: unknown;
      expect(() => (out = checkResultReply(shape, limits))).not.toThrow();
      if (typeof out !== "string") expect(() => JSON.stringify(out)).not.toThrow();
    }
  });
});
