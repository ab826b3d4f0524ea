import { describe, expect, it } from "vitest";
import { prepareJavaScript } from "../../../src/sandbox/js/prepare/prepare.js";
import { prepareOnce } from "../../../src/sandbox/js/worker/prepared-sources.js";

describe("prepareOnce (a worker's prepared sources)", () => {
  it("answers a repeated source with what preparing it again gives", () => {
    const code = "const v = await Promise.resolve(41);\nv + 1";
    const first = prepareOnce(code, "javascript", []);
    expect(first).toEqual(prepareJavaScript(code, "javascript"));
    expect(prepareOnce(code, "javascript", [])).toBe(first);
  });

  it("keys on the language and the granted names, not only the text", () => {
    const code = 'const fs = require("fs");\n1';
    const denied = prepareOnce(code, "javascript", []);
    const granted = prepareOnce(code, "javascript", ["require"]);
    expect(denied.ok).toBe(false);
    expect(granted).toEqual({ ok: true, code, kind: "script" });
    const typed = "const n: number = 1;\nn";
    expect(prepareOnce(typed, "javascript", []).ok).toBe(false);
    expect(prepareOnce(typed, "typescript", [])).toEqual(prepareJavaScript(typed, "typescript"));
    // A name list that joins to the same text is still another key.
    expect(prepareOnce(code, "javascript", ["require,x"])).toEqual(prepareJavaScript(code, "javascript", { grantedNames: ["require,x"] }));
  });

  it("keeps results frozen, so no run can change what the next one is given", () => {
    const failed = prepareOnce("let = ;", "javascript", []);
    expect(Object.isFrozen(failed)).toBe(true);
    if (!failed.ok) expect(Object.isFrozen(failed.error)).toBe(true);
  });

  it("prepares a long source every time instead of keeping it", () => {
    const long = `${"// filler\n".repeat(2000)}1`;
    const first = prepareOnce(long, "javascript", []);
    expect(first).toEqual(prepareJavaScript(long, "javascript"));
    expect(prepareOnce(long, "javascript", [])).not.toBe(first);
  });
});
