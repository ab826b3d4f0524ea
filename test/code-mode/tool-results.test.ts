/**
 * The bounded encoding of tool results: exact under the cap, stopped early over it, and a clear
 * reason for values that are not JSON (cycles, BigInt, nesting too deep).
 */
import { describe, expect, it } from "vitest";
import { capsForRun, defaultToolResultCaps, encodeBounded, MAX_TOOL_RESULT_DEPTH } from "../../src/code-mode/tools/tool-results.js";

describe("encodeBounded", () => {
  it("encodes values under the cap exactly, and never refuses one that fits", () => {
    expect(encodeBounded({ a: [1, "x", null, true] }, 100)).toEqual({ json: '{"a":[1,"x",null,true]}', bytes: 23 });
    expect(encodeBounded("x", 3)).toEqual({ json: '"x"', bytes: 3 });
    const numbers = Array.from({ length: 50_000 }, () => 1);
    const json = JSON.stringify(numbers);
    expect(encodeBounded(numbers, json.length)).toEqual({ json, bytes: json.length });
    expect(encodeBounded(undefined, 1)).toEqual({ json: undefined, bytes: 0 });
    expect(encodeBounded("é", 4)).toEqual({ json: '"é"', bytes: 4 });
    expect(encodeBounded("é", 3)).toEqual({ failure: { kind: "too_large", atLeastBytes: 4 } });
  });

  it("refuses a long string without copying it, and stops a large object early", () => {
    expect(encodeBounded("x".repeat(5_000_000), 1024)).toEqual({ failure: { kind: "too_large", atLeastBytes: 5_000_000 } });
    const big = Array.from({ length: 200_000 }, (_, i) => ({ id: i, name: "item" }));
    const encoded = encodeBounded(big, 1024);
    const failure = "failure" in encoded ? encoded.failure : undefined;
    expect(failure?.kind).toBe("too_large");
    // Stopped a little past the cap, not after the whole value.
    expect(failure?.kind === "too_large" && failure.atLeastBytes).toBeLessThan(2048);
  });

  it("gives a reason for cycles, BigInt and deep nesting", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(encodeBounded(cyclic, 1e6)).toMatchObject({ failure: { kind: "not_json", reason: expect.stringMatching(/circular/i) } });
    expect(encodeBounded({ n: 10n }, 1e6)).toMatchObject({ failure: { kind: "not_json", reason: expect.stringMatching(/BigInt/i) } });
    let deep: unknown = 1;
    for (let i = 0; i < MAX_TOOL_RESULT_DEPTH + 1; i++) deep = [deep];
    expect(encodeBounded(deep, 1e6)).toEqual({ failure: { kind: "not_json", reason: `it is nested deeper than ${MAX_TOOL_RESULT_DEPTH} levels` } });
    let ok: unknown = 1;
    for (let i = 0; i < MAX_TOOL_RESULT_DEPTH - 1; i++) ok = { a: ok };
    expect("json" in encodeBounded(ok, 1e6)).toBe(true);
    let veryDeep: unknown = 1;
    for (let i = 0; i < 1_000_000; i++) veryDeep = [veryDeep];
    expect(encodeBounded(veryDeep, 1e9)).toMatchObject({ failure: { kind: "not_json" } });
  });

  it("Python's run cap binds when it is the smaller one, and is named", () => {
    const caps = defaultToolResultCaps();
    expect(capsForRun(caps, "javascript", 10)).toBe(caps);
    expect(capsForRun(caps, "python", 10)).toMatchObject({ maxResultBytes: 10, resultOption: "maxResultBytes" });
    expect(capsForRun(caps, "python", 10 * 1024 * 1024)).toBe(caps);
  });
});
