/**
 * TypeScript through the real sandbox: every construct the stripper keeps runs as `tsc` would
 * run it (expected values taken from tsc 5.9's output run in the same sandbox), and what it
 * cannot keep fails the check and the run alike, as `syntax_error`, before anything runs.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../../src/index.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const supported: [string, string, unknown][] = [
  ["types-only namespace", "namespace T { export type X = number; export interface Y { a: number } }\nconst v: T.X = 3;\nv", 3],
  ["declare forms", "declare const dc: number;\ndeclare function df(a: number): number;\ndeclare class DC { m(): void }\ndeclare enum DE { A }\ndeclare namespace DN { const x: number; }\ndeclare global { interface Q { q: 1 } }\nexport {};\n4", 4],
  ["declare const of a granted global", "declare const data: number[];\ndata.length", 3],
  ["enum", "enum E { A, B = 5, C }\n[E.A, E.B, E.C, E[5]]", [0, 5, 6, "B"]],
  ["string enum", 'enum S { X = "x", Y = "y" }\n[S.X, S.Y]', ["x", "y"]],
  ["computed and self-referencing enum", "const K0 = 2;\nenum R { A = K0 * 2, B = A | 1, C = R.A + 10 }\n[R.A, R.B, R.C]", [4, 5, 14]],
  ["merged enum", "enum M { A = 1 }\nenum M { B = 2 }\n[M.A, M.B]", [1, 2]],
  ["enum with keyword and quoted member names", 'enum KW { default = 1, class = 2, "a-b" = 3 }\n[KW.default, KW.class, KW["a-b"]]', [1, 2, 3]],
  ["const enum", "const enum CE { A = 1, B = 2 }\nCE.A + CE.B", 3],
  ["import alias of an object path", "const N = { z: 9 };\nimport Z = N.z;\nimport MM = Math.max;\nMM(Z, 1)", 9],
  ["parameter properties", "class P { constructor(public a: number, private b = 2, readonly c = 3) {} sum() { return this.a + this.b + this.c; } }\nnew P(1).sum()", 6],
  ["parameter properties with super and override", "class B0 { constructor(public z: number) {} }\nclass P3 extends B0 { constructor(override readonly z: number, public y = 1) { super(z + 1); } }\nconst p = new P3(1); [p.y, p.z]", [1, 1]],
  ["abstract members", "abstract class A1 { abstract m(): number; abstract x: number; protected abstract readonly r: number; n() { return 1; } }\nclass A2 extends A1 { x = 3; r = 0; m() { return this.x; } }\nnew A2().m() + new A2().n()", 4],
  ["satisfies and as const", "const cfg = { a: 1, b: [1, 2] as const } satisfies Record<string, unknown>;\ncfg.a + cfg.b.length", 3],
  ["function and method overloads", "function ov(x: string): string;\nfunction ov(x: number): number;\nfunction ov(x: any) { return x; }\nclass O { m(x: string): string; m(x: number): number; m(x: any) { return x; } }\nov(3) + new O().m(2)", 5],
  ["declare and definite class fields", "class F0 { x = 1 }\nclass F extends F0 { declare x: number; e!: number; f?: string; g = 1; }\n[new F().x, Object.keys(new F())]", [1, ["x", "e", "f", "g"]]],
  ["this parameter, generics, instantiation expressions", "function tp(this: { v: number }, k: number) { return this.v + k; }\nfunction g<const T>(x: T) { return x; }\nconst gn = g<number>;\ntp.call({ v: 1 }, 2) + gn(3)", 6],
  ["non-null, angle-bracket assertions, definite assignment", "let da!: number;\nda = 2;\nconst aa = <number>(<unknown>3);\nconst nn: number | undefined = 4;\nda + aa + nn!", 9],
  ["variance annotations and abstract constructor types", "interface V<in out T> { v: T }\ntype Ctor = abstract new () => object;\nclass VC<in T> { }\n1", 1],
  ["getters and setters with different types", "class GS { #v = 0; get v(): number { return this.#v; } set v(x: number | string) { this.#v = Number(x); } }\nconst gs = new GS(); gs.v = \"4\"; gs.v", 4],
];

const unsupported: [string, string, RegExp][] = [
  ["namespace with values", "namespace NS { export const a = 1; export function f() { return a + 1; } }\nNS.f()", /namespaces that hold values/],
  ["export =", "const q = 1;\nexport = q;", /`export = value`/],
  ["enum member named like its enum", "enum C { C = 1 }\nC.C", /enum member named like its enum/],
  ["decorator", "function dec(t: any) { return t; }\n@dec class K {}\nK", /Decorators/],
  ["accessor field", "class Acc { accessor v = 5; }\nnew Acc().v", /`accessor` fields/],
  ["using declaration", "{ using r = { [Symbol.dispose]() {} }; }\n1", /`using` declarations/],
];

describe("TypeScript in the sandbox", () => {
  for (const [name, code, expected] of supported) {
    it(`runs ${name} as tsc would`, async () => {
      const result = await sandbox.run(code, { language: "typescript", globals: { data: [1, 2, 3] } });
      expect(result.error).toBeUndefined();
      expect(result).toMatchObject({ status: "success", result: expected });
    });
  }

  for (const [name, code, message] of unsupported) {
    it(`reports ${name} as syntax_error in check and run alike`, async () => {
      const check = await sandbox.check(code, { language: "typescript" });
      expect(check).toMatchObject({ ok: false, status: "syntax_error" });
      expect(check.ok ? "" : check.error.message).toMatch(message);
      const run = await sandbox.run(code, { language: "typescript" });
      expect(run.status).toBe("syntax_error");
      expect(run.error?.message).toMatch(message);
      expect(run.stdout).toBe("");
    });
  }

  it("forbids `import x = require(...)` like any import", async () => {
    const run = await sandbox.run('import fs = require("fs");\nfs', { language: "typescript" });
    expect(run.status).toBe("forbidden");
    expect(run.error?.message).toMatch(/Module "fs" is not available/);
  });
});
