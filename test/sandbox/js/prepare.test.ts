import { parse } from "acorn";
import { describe, expect, it } from "vitest";
import { prepareJavaScript } from "../../../src/sandbox/js/prepare/prepare.js";

function lineCount(text: string): number {
  return text.split("\n").length;
}

function expectOk(source: string, language: "javascript" | "typescript" = "javascript") {
  const prepared = prepareJavaScript(source, language);
  if (!prepared.ok) throw new Error(`expected ok, got ${prepared.status}: ${prepared.error.message}`);
  expect(lineCount(prepared.code)).toBe(lineCount(source));
  // The prepared code must parse as what it claims to be.
  parse(prepared.code, { ecmaVersion: "latest", sourceType: prepared.kind, allowAwaitOutsideFunction: true });
  return prepared;
}

/** Evaluates a prepared module in Node through a data: URL and returns its default export. */
async function defaultExportOf(code: string): Promise<unknown> {
  const mod = (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as { default?: unknown };
  return mod.default;
}

describe("prepareJavaScript: scripts and modules", () => {
  it("keeps a plain script unchanged", () => {
    const prepared = expectOk("const a = 1;\na + 1");
    expect(prepared).toEqual({ ok: true, kind: "script", code: "const a = 1;\na + 1" });
  });

  it("treats top-level await as a module and makes the last expression the default export", async () => {
    const source = "const x = await Promise.resolve(2);\nx * 21";
    const prepared = expectOk(source);
    expect(prepared.kind).toBe("module");
    expect(prepared.code).toContain("export default (");
    await expect(defaultExportOf(prepared.code)).resolves.toBe(42);
  });

  it("treats `await (expr)` as top-level await, not as a call of a function named await", async () => {
    const prepared = expectOk("const r = await (async () => 5)();\nawait (Promise.resolve(r + 1))");
    expect(prepared.kind).toBe("module");
    await expect(defaultExportOf(prepared.code)).resolves.toBe(6);
  });

  it("keeps a script that really uses `await` as a name", () => {
    expect(expectOk("function await(x) { return x; }\nawait(3)").kind).toBe("script");
  });

  it("leaves a module with its own default export alone", async () => {
    const source = "await null;\nexport default 5;\n6";
    const prepared = expectOk(source);
    expect(prepared.code).toBe(source);
    await expect(defaultExportOf(prepared.code)).resolves.toBe(5);
  });

  it("counts `export { x as default }` as a default export", async () => {
    const source = "const x = 3;\nexport { x as default };\n7";
    const prepared = expectOk(source);
    expect(prepared.code).toBe(source);
    await expect(defaultExportOf(prepared.code)).resolves.toBe(3);
  });

  it("leaves a module ending in a declaration alone", () => {
    const source = "export const a = 1;\nfunction f() {}";
    expect(expectOk(source).code).toBe(source);
  });

  it("leaves a module ending in a block (`{ a: 1 }` is a block, not an object) alone", () => {
    const source = "await null;\n{ a: 1 }";
    expect(expectOk(source).code).toBe(source);
  });

  const rewriteCases: Array<[string, string, unknown]> = [
    ["no semicolon", "await null\n41 + 1", 42],
    ["a sequence expression keeps its value", "await null;\n(1, 2)", 2],
    ["a sequence without parentheses", "await null;\n1, 2, 3", 3],
    ["an object literal in parentheses", "await null;\n({ a: 1 })", { a: 1 }],
    ["an immediately called function", "await null;\n(function () { return 9; })()", 9],
    ["a trailing line comment", "await null;\n40 + 2 // the answer", 42],
    ["comments on lines before", "const a = await 1 // one\n// two\na + 1", 2],
    ["a block comment spanning the line break", "await null\n/* a\n b */ 5", 5],
    ["a multi-line expression", "const o = await Promise.resolve({ a: 1 });\n[\n  o.a,\n  2,\n]", [1, 2]],
    ["a semicolon on its own line", "await null;\n7\n;", 7],
    ["several statements on the last line", "await null; const b = 3; b * 2", 6],
    ["windows line endings", "const a = await 2;\r\na * 3", 6],
    ["a template literal spanning lines before", "const t = `x\ny`; await null;\nt.length", 3],
    ["the only statement", "await Promise.resolve(8)", 8],
    ["a string directive-like last statement", "await null;\n'done'", "done"],
  ];
  for (const [name, source, expected] of rewriteCases) {
    it(`rewrites the last expression of a module: ${name}`, async () => {
      const prepared = expectOk(source);
      expect(prepared.kind).toBe("module");
      await expect(defaultExportOf(prepared.code)).resolves.toEqual(expected);
    });
  }

  it("keeps the columns of the last statement's line when the prefix fits on the line before", () => {
    const source = "const a = await 1;\n  a + 1";
    const prepared = expectOk(source);
    expect(prepared.code.split("\n")[1]).toBe("  a + 1);");
  });

  it("turns a #! line into a comment of the same length", () => {
    const prepared = expectOk("#!/usr/bin/env node\n1 + 1");
    expect(prepared.code).toBe("///usr/bin/env node\n1 + 1");
  });
});

describe("prepareJavaScript: syntax errors", () => {
  it("reports line and 1-based column of a JavaScript syntax error", () => {
    const prepared = prepareJavaScript("let a = 1;\nlet b = ;", "javascript");
    expect(prepared).toEqual({
      ok: false,
      status: "syntax_error",
      error: { name: "SyntaxError", message: "Unexpected token", line: 2, column: 9 },
    });
  });

  it("reports the module's error for code that is meant as a module", () => {
    const prepared = prepareJavaScript("const a = await 1;\n\nlet b = ;", "javascript");
    expect(prepared.ok).toBe(false);
    if (prepared.ok) return;
    expect(prepared.error.line).toBe(3);
    expect(prepared.error.message).not.toMatch(/\(\d+:\d+\)/);
  });

  it("reports an unterminated string with its position", () => {
    const prepared = prepareJavaScript('const a = 1;\nconst s = "abc', "javascript");
    expect(prepared.ok).toBe(false);
    if (prepared.ok) return;
    expect(prepared.status).toBe("syntax_error");
    expect(prepared.error.message).toBe("Unterminated string constant");
    expect(prepared.error.line).toBe(2);
    expect(prepared.error.column).toBe(11);
  });

  it("reports a TypeScript syntax error at its line in the TypeScript source", () => {
    const prepared = prepareJavaScript("interface A {\n  x: number;\n}\nlet a: number = 1;\nlet b: = 2;", "typescript");
    expect(prepared.ok).toBe(false);
    if (prepared.ok) return;
    expect(prepared.status).toBe("syntax_error");
    expect(prepared.error.name).toBe("SyntaxError");
    expect(prepared.error.line).toBe(5);
    expect(prepared.error.column).toBe(8);
    expect(prepared.error.message).not.toMatch(/\(\d+:\d+\)/);
  });

  it("reports a JavaScript-level error in TypeScript at the TypeScript line", () => {
    const prepared = prepareJavaScript("type T = { a: string };\nconst t: T = { a: 'x' };\n\nconst c = t.a +;", "typescript");
    expect(prepared.ok).toBe(false);
    if (prepared.ok) return;
    expect(prepared.error.line).toBe(4);
  });

  it("returns a syntax error, not a host crash, for absurdly nested code", () => {
    for (const language of ["javascript", "typescript"] as const) {
      const prepared = prepareJavaScript("(".repeat(200_000) + "1" + ")".repeat(200_000), language);
      expect(prepared.ok).toBe(false);
      if (prepared.ok) return;
      expect(prepared.status).toBe("syntax_error");
    }
  });
});

describe("prepareJavaScript: TypeScript", () => {
  it("strips interfaces, type aliases, generics, `as`, `satisfies` and parameter types, keeping lines", () => {
    const source = [
      "interface Point {",
      "  x: number;",
      "  y: number;",
      "}",
      "type Pair<T> = [T, T];",
      "function mid<T extends Point>(a: T, b: T): Point {",
      "  return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };",
      "}",
      "const p = mid({ x: 0, y: 0 } as Point, { x: 2, y: 4 }) satisfies Point;",
      "const pair: Pair<number> = [p.x, p.y];",
      "pair",
    ].join("\n");
    const prepared = expectOk(source, "typescript");
    expect(prepared.kind).toBe("script");
    expect(prepared.code).not.toMatch(/interface|satisfies| as Point|: number/);
    // Node evaluates the stripped output to show it still computes the same thing.
    expect(new Function(`${prepared.code.replace(/\npair$/, "\nreturn pair")}`)()).toEqual([1, 2]);
    expect(prepared.code.split("\n")[10]).toBe("pair");
  });

  it("compiles enums on their own lines", () => {
    const source = "enum Color {\n  Red,\n  Green,\n}\nColor.Green";
    const prepared = expectOk(source, "typescript");
    expect(new Function(prepared.code.replace(/\nColor\.Green$/, "\nreturn Color.Green"))()).toBe(1);
  });

  it("keeps ES modules and top-level await as written", async () => {
    const prepared = expectOk("const n: number = await Promise.resolve(6);\nexport default n * 7;", "typescript");
    expect(prepared.kind).toBe("module");
    await expect(defaultExportOf(prepared.code)).resolves.toBe(42);
  });

  it("drops type-only imports instead of forbidding them", () => {
    const prepared = prepareJavaScript('import type { Foo } from "./foo";\nconst f: Foo | null = null;\nf', "typescript");
    expect(prepared.ok).toBe(true);
  });

  it("still sees an unused value import in TypeScript and forbids it", () => {
    const prepared = prepareJavaScript('import fs from "fs";\nconst a: number = 1;\na', "typescript");
    expect(prepared.ok).toBe(false);
    if (prepared.ok) return;
    expect(prepared.status).toBe("forbidden");
    expect(prepared.error.line).toBe(1);
  });

  it("forbids `import x = require(...)`", () => {
    const prepared = prepareJavaScript('import cp = require("child_process");\ncp', "typescript");
    expect(prepared.ok).toBe(false);
    if (prepared.ok) return;
    expect(prepared.status).toBe("forbidden");
    expect(prepared.error.message).toContain('"child_process"');
  });
});

describe("prepareJavaScript: imports are forbidden", () => {
  const forms: Array<[string, string, string | undefined, number]> = [
    ["default import", 'const a = 1;\nimport fs from "fs";', "fs", 2],
    ["named import", 'import { readFileSync } from "node:fs";', "node:fs", 1],
    ["namespace import", 'import * as http from "http";', "http", 1],
    ["side-effect import", 'import "lodash";', "lodash", 1],
    ["re-export", 'export { x } from "./x.js";', "./x.js", 1],
    ["export all", 'export * from "node:child_process";', "node:child_process", 1],
    ["dynamic import with a literal", 'const m = await import("os");', "os", 1],
    ["dynamic import in a script", '1;\nimport("fs").then(() => 1)', "fs", 2],
    ["dynamic import with a template", "import(`net`)", "net", 1],
    ["dynamic import with a computed name", 'const n = "f" + "s";\nimport(n)', undefined, 2],
    ["require", 'const cp = require("child_process");', "child_process", 1],
    ["require inside a function", 'function f() {\n  return require("node:path");\n}', "node:path", 2],
    ["computed require", "require(String.fromCharCode(102, 115))", undefined, 1],
  ];
  for (const [name, source, specifier, line] of forms) {
    it(`forbids a ${name}`, () => {
      const prepared = prepareJavaScript(source, "javascript", { grantedNames: ["data", "add"] });
      expect(prepared.ok).toBe(false);
      if (prepared.ok) return;
      expect(prepared.status).toBe("forbidden");
      expect(prepared.error.line).toBe(line);
      if (specifier === undefined) expect(prepared.error.message).toMatch(/^A computed (import|require)/);
      else expect(prepared.error.message).toContain(`Module "${specifier}" is not available in the sandbox`);
      expect(prepared.error.message).toContain("ECMAScript built-ins");
      expect(prepared.error.message).toContain("console");
      expect(prepared.error.message).toContain("the granted globals and functions: data, add.");
    });
  }

  it("names every forbidden module and says nothing else was granted", () => {
    const prepared = prepareJavaScript('import fs from "fs";\nimport http from "http";', "javascript");
    expect(prepared.ok).toBe(false);
    if (prepared.ok) return;
    expect(prepared.error.message).toContain('Modules "fs", "http" are not available');
    expect(prepared.error.message).toContain("granted no other globals or functions");
    expect(prepared.error).toMatchObject({ name: "ImportError", line: 1, column: 1 });
  });

  it("lets a call to `require` through when the caller granted a global of that name", () => {
    expect(prepareJavaScript('require("x")', "javascript", { grantedNames: ["require"] }).ok).toBe(true);
  });

  it("does not mistake a method called require or an import.meta for an import", () => {
    expect(prepareJavaScript('const o = { require: (n) => n };\no.require("fs")', "javascript").ok).toBe(true);
    expect(prepareJavaScript("await null;\ntypeof import.meta", "javascript").ok).toBe(true);
  });
});

describe("prepareJavaScript: what the TypeScript stripper cannot keep is a syntax error that says so", () => {
  // [name, source, language, what the message must say, line of the construct]
  const cases: [string, string, "javascript" | "typescript", RegExp, number][] = [
    ["a namespace with values", "const a = 1;\nnamespace NS { export const a = 1; export function f() { return a + 1; } }\nNS.f()", "typescript", /namespaces that hold values.*namespace NS\b.*const NS = \{/s, 2],
    ["a dotted namespace", "namespace A.B { export const c = 5; }\nA.B.c", "typescript", /namespace A\.B\b/, 1],
    ["a `module` block", "module M { export const a = 2; }\nM.a", "typescript", /namespace M\b/, 1],
    ["an exported namespace", "export namespace EN { export const a = 1; }\nEN.a", "typescript", /namespace EN\b/, 1],
    ["an enum inside a namespace", "namespace NE { export enum K { A = 3 } }\nNE.K.A", "typescript", /namespace NE\b/, 1],
    ["a namespace merged with a function", "function f() { return 1; }\nnamespace f { export const extra = 2; }\nf.extra", "typescript", /namespace f\b/, 2],
    ["a types-only namespace holding a namespace with values", "namespace T { export type X = 1; export namespace V { export const v = 1; } }\nT.V.v", "typescript", /namespace T\b/, 1],
    ["`export =`", "const q = 1;\nexport = q;", "typescript", /`export = value` is not supported.*last expression/s, 2],
    ["an enum member named like its enum", "enum C { A = 1 << 2, C = 3 }\nC.C", "typescript", /enum member named like its enum \(C\.C\).*Rename/s, 1],
    ["an enum member named like its enum, quoted", 'enum D { "D" = 1 }\nD.D', "typescript", /\(D\.D\)/, 1],
    ["a class decorator", "function dec(t: any) { return t; }\n@dec class K {}\nK", "typescript", /Decorators \(`@name`\) are not supported.*decorate\(class/s, 2],
    ["a method decorator", "function log(...a: any[]) {}\nclass K2 {\n  @log m() { return 21; }\n}", "typescript", /Decorators/, 3],
    ["a parameter decorator", "function p(...a: any[]) {}\nclass K3 { m(@p x: number) { return x; } }", "typescript", /Decorators/, 2],
    ["a decorator in JavaScript", "function dec(t) { return t; }\n@dec class K {}", "javascript", /Decorators/, 2],
    ["an `accessor` field", "class Acc {\n  accessor v: number = 5;\n}", "typescript", /`accessor` fields are not supported.*get x\(\)/s, 2],
    ["an `accessor` field in JavaScript", "class Acc { accessor #v = 5; }", "javascript", /`accessor` fields/, 1],
    ["`export as namespace`", "export as namespace Lib;\n1", "typescript", /declaration files/, 1],
    ["a `using` declaration", "{\n  using r = { [Symbol.dispose]() {} };\n}", "javascript", /`using` declarations are not supported.*finally/s, 2],
    ["an `await using` declaration in TypeScript", "const r: any = { async [Symbol.asyncDispose]() {} };\n{ await using s = r; }", "typescript", /`using` declarations/, 2],
  ];
  for (const [name, source, language, message, line] of cases) {
    it(`reports ${name}`, () => {
      const prepared = prepareJavaScript(source, language);
      expect(prepared.ok).toBe(false);
      if (prepared.ok) return;
      expect(prepared.status).toBe("syntax_error");
      expect(prepared.error.name).toBe("SyntaxError");
      expect(prepared.error.message).toMatch(message);
      expect(prepared.error.line).toBe(line);
      expect(prepared.error.message.length).toBeLessThan(400);
    });
  }

  it("keeps what it can keep: types-only and ambient namespaces, `declare global`, `declare module`", () => {
    for (const source of [
      "namespace T { export type X = number; export interface Y { a: number } }\nconst v: T.X = 3;\nv",
      "namespace E {}\n1",
      "export namespace IO { export interface A { a: 1 } namespace Inner { type B = 2 } }\n1",
      "namespace TD { export declare const q: number; export type R = 1; }\n1",
      "declare namespace D { const x: number; namespace I { const y = 1; } }\n1",
      "export declare namespace ED { function f(): void; }\n1",
      'declare module "foo" { export const x: number; }\n2',
      "declare module Foo { export const x: number; }\n1",
      "declare global { namespace G { const z = 1; } interface Window { q: number } }\nexport {};\n3",
      "const namespace = 1, module = { exports: 2 };\nnamespace + module.exports",
      "enum E { A, B = 5 }\nconst e = { E: 1 };\ne.E + E.B",
      'const at = "a@b";\nat',
    ]) {
      expectOk(source, "typescript");
    }
  });

  it("leaves ordinary syntax errors as they were", () => {
    const prepared = prepareJavaScript("const x = ;", "javascript");
    expect(prepared.ok).toBe(false);
    if (!prepared.ok) expect(prepared.error.message).toBe("Unexpected token");
  });
});

describe("prepareJavaScript: checking namespaces stays cheap", () => {
  it("checks deeply nested types-only namespaces in linear time", () => {
    const depth = 90;
    const source = "namespace A { ".repeat(depth) + "export type X = 1;" + " }".repeat(depth) + "\n1";
    const started = performance.now();
    expectOk(source, "typescript");
    // Loose: the quadratic version took seconds for a few hundred levels.
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("reports a program with more namespace blocks than it checks, instead of holding the host", () => {
    const source = Array.from({ length: 3000 }, (_, i) => `namespace N${i} { export type X = 1; }`).join("\n") + "\n1";
    const prepared = prepareJavaScript(source, "typescript");
    expect(prepared.ok).toBe(false);
    if (!prepared.ok) {
      expect(prepared.status).toBe("syntax_error");
      expect(prepared.error.message).toMatch(/3000 namespace blocks; the sandbox checks at most 100/);
      expect(prepared.error.line).toBe(101);
    }
  });

  it("finds values in a namespace nested inside types-only ones and names the outermost", () => {
    const prepared = prepareJavaScript("namespace O { export namespace M { export type T = 1; namespace I { export const v = 1; } } }\nO", "typescript");
    expect(prepared.ok).toBe(false);
    if (!prepared.ok) expect(prepared.error.message).toMatch(/namespace O\b/);
  });
});
