import { describe, expect, it } from "vitest";
import { checkTypes } from "../../src/typecheck/check-types.js";
import { sandboxDeclarations } from "../../src/typecheck/declarations.js";

describe("checkTypes: a real type check before running", () => {
  it("reports type errors with line, column and the compiler's code", async () => {
    const result = await checkTypes('const n: number = "one";\nconsole.log(n.toFixed(2));\nmissing();');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.diagnostics).toEqual([
      { line: 1, column: 7, code: 2322, message: "Type 'string' is not assignable to type 'number'." },
      { line: 3, column: 1, code: 2304, message: "Cannot find name 'missing'." },
    ]);
  }, 60_000);

  it("accepts correct code: console, top-level await, unannotated parameters, catch variables", async () => {
    const code = [
      "function add(a, b) { return a + b; }",
      "const total: number = [1, 2, 3].reduce((s, v) => s + v, 0);",
      "try { JSON.parse('{'); } catch (e) { console.error(e.message); }",
      "const later = await Promise.resolve(add(total, 1));",
      "console.log(later);",
    ].join("\n");
    expect(await checkTypes(code)).toMatchObject({ ok: true });
  }, 60_000);

  it("has no DOM or Node.js globals: the sandbox has neither", async () => {
    const result = await checkTypes("document.title = 'x';\nprocess.exit(0);\nsetTimeout(() => {}, 1);");
    // 2584/2591/2304: "Cannot find name ..." (with a hint to add the DOM or Node.js types).
    expect(result.ok ? [] : result.diagnostics.map((d) => [d.line, d.message.split(".")[0]])).toEqual([
      [1, "Cannot find name 'document'"],
      [2, "Cannot find name 'process'"],
      [3, "Cannot find name 'setTimeout'"],
    ]);
  }, 60_000);

  it("declares granted host functions, JSON globals, the files API and extra declarations", async () => {
    const code = [
      "const weather = await getWeather('Paris');",
      "console.log(weather, limits.max + 1, names[0].toUpperCase());",
      "files.write('out.txt', 'hi');",
      "const text: string = files.read('out.txt');",
      "const sum: number = await tools.add({ a: 1, b: 2 });",
    ].join("\n");
    const options = {
      hostFunctions: ["getWeather"],
      globals: { limits: { max: 3 }, names: ["a", "b"] },
      files: true,
      declarations: "declare const tools: { add(input: { a: number; b: number }): Promise<number> };",
    };
    expect(await checkTypes(code, options)).toMatchObject({ ok: true });
    const without = await checkTypes(code);
    expect(without.ok ? [] : without.diagnostics.map((d) => d.message)).toEqual([
      "Cannot find name 'getWeather'. Did you mean 'weather'?",
      "Cannot find name 'limits'.",
      "Cannot find name 'names'.",
      "Cannot find name 'files'.",
      "Cannot find name 'files'.",
      "Cannot find name 'tools'.",
    ]);
    const precise = await checkTypes("const t: string = await getWeather('x');", {
      hostFunctions: { getWeather: "(city: string) => Promise<{ temperature: number }>" },
    });
    expect(precise.ok ? [] : precise.diagnostics.map((d) => d.code)).toEqual([2322]);
  }, 60_000);

  it("stays warm: a second check of another program does not re-read the library", async () => {
    await checkTypes("const a = 1;");
    const second = await checkTypes("const b: string = 'x';\nconsole.log(b);");
    expect(second).toMatchObject({ ok: true });
  }, 60_000);

  it("builds declarations as plain text", () => {
    const text = sandboxDeclarations({ hostFunctions: ["lookup"], globals: { n: 1, xs: [1, "a"], o: { k: null } } });
    expect(text).toContain("declare function lookup(...args: any[]): Promise<any>;");
    expect(text).toContain("declare const n: number;");
    expect(text).toContain("declare const xs: (number | string)[];");
    expect(text).toContain('declare const o: { "k": null; };');
    expect(text).not.toContain("declare const files");
  });
});

describe("loading", () => {
  it("the package root and the feedback module do not load the TypeScript compiler", async () => {
    const { execFileSync } = await import("node:child_process");
    const script = [
      "import { createRequire } from 'node:module';",
      "await import('./dist/src/index.js');",
      "await import('./dist/src/feedback/explain.js');",
      "await import('./dist/src/typecheck/check-types.js');",
      "const require = createRequire(import.meta.url);",
      "const loaded = Object.keys(require.cache).some((k) => k.includes('/node_modules/typescript/'));",
      "console.log(loaded ? 'loaded' : 'not loaded');",
    ].join("\n");
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(out.trim()).toBe("not loaded");
  }, 60_000);
});
