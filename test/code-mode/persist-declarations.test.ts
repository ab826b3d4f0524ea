/** The in-place rewrite that keeps a cell's top-level bindings on the global object. */
import { describe, expect, it } from "vitest";
import { persistTopLevel } from "../../src/code-mode/replay/persist-declarations.js";

describe("persistTopLevel", () => {
  it("turns declarations into global assignments on the same lines", () => {
    const code = "const a = 1, { b, c: [d], ...e } = o;\nlet x;\nvar y;\nclass C { m() {} }\nfunction g() {}\nawait g()";
    const out = persistTopLevel(code, "javascript");
    expect(out.split("\n")).toEqual([
      "globalThis.g = g; void ( globalThis.a = 1, { b: globalThis.b, c: [globalThis.d], ...globalThis.e } = o);",
      "void ( globalThis.x = undefined);",
      "void ( globalThis.y = globalThis.y);",
      "globalThis.C = class C { m() {} };",
      "function g() {}",
      "await g()",
    ]);
  });

  it("leaves nested declarations, exports and unparsable code alone; strips TypeScript types first", () => {
    expect(persistTopLevel("for (let i = 0; i < 2; i++) {}\nexport const q = 1", "javascript")).toBe("for (let i = 0; i < 2; i++) {}\nexport const q = 1");
    expect(persistTopLevel("const = ;", "javascript")).toBe("const = ;");
    expect(persistTopLevel("interface P { x: number }\nconst n: number = 2\nn", "typescript").split("\n")).toEqual(["", "void ( globalThis.n = 2)", "n"]);
  });

  it("a TypeScript enum becomes a global; a namespace that holds values is left for the engine's own message", () => {
    expect(persistTopLevel("enum Color { Red, Green }", "typescript")).toContain("void ( globalThis.Color = globalThis.Color)");
    const ns = "namespace N { export const a = 1; }\nN.a";
    expect(persistTopLevel(ns, "typescript")).toBe(ns);
  });
});
