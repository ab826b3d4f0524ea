/**
 * The type check's library is what QuickJS provides: every built-in the library files declare
 * (globals, their static members and their prototypes' members) exists in the sandbox, and the
 * ES2024+ built-ins models use type-check and run.
 */
import { afterAll, describe, expect, it } from "vitest";
import ts from "typescript";
import { ENGINE_LIB_FILES } from "../../src/typecheck/engine-lib.js";
import { checkTypes } from "../../src/typecheck/check-types.js";
import { disposeDefaultSandbox, runCode } from "../../src/sandbox/index.js";

afterAll(async () => {
  await disposeDefaultSandbox();
});

/** Every value the library declares: `[global, static members, prototype members]`. */
function declaredBuiltIns(): { name: string; statics: string[]; prototype: string[] }[] {
  const probe = "/probe/probe.ts";
  const options: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, lib: [...ENGINE_LIB_FILES], types: [], noEmit: true };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version) => (name === probe ? ts.createSourceFile(name, "export {};", version) : getSourceFile(name, version));
  const program = ts.createProgram([probe], options, host);
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(probe)!;
  const fromLib = (symbol: ts.Symbol) => (symbol.declarations ?? []).some((d) => d.getSourceFile().hasNoDefaultLib);
  // Optional members (`Iterator.return?`) may be absent; symbol-keyed ones are not named here.
  const names = (type: ts.Type) =>
    type
      .getProperties()
      .filter((p) => (p.flags & ts.SymbolFlags.Optional) === 0)
      .map((p) => p.name)
      .filter((n) => !n.startsWith("__@") && n !== "prototype");
  return checker
    .getSymbolsInScope(file, ts.SymbolFlags.Value)
    .filter(fromLib)
    .map((symbol) => {
      const type = checker.getTypeOfSymbolAtLocation(symbol, file);
      const prototype = type.getProperty("prototype");
      return {
        name: symbol.name,
        statics: names(type),
        prototype: prototype === undefined ? [] : names(checker.getTypeOfSymbolAtLocation(prototype, file)),
      };
    });
}

/**
 * Members the library declares on a prototype that live on each instance instead (`stack`,
 * `cause`, `lastIndex`, `errors`, an iterator's `next`): checked on an instance.
 */
const INSTANCES: Record<string, string> = {
  RegExp: "/x/g",
  Error: 'new Error("x", { cause: 1 })',
  EvalError: 'new EvalError("x", { cause: 1 })',
  RangeError: 'new RangeError("x", { cause: 1 })',
  ReferenceError: 'new ReferenceError("x", { cause: 1 })',
  SyntaxError: 'new SyntaxError("x", { cause: 1 })',
  TypeError: 'new TypeError("x", { cause: 1 })',
  URIError: 'new URIError("x", { cause: 1 })',
  AggregateError: 'new AggregateError([], "x", { cause: 1 })',
  Iterator: "[].values()",
};

/**
 * Declared by lib.es5.d.ts, which the compiler cannot do without, and absent in QuickJS:
 * RegExp's legacy static properties. Code that uses them fails when it runs (docs/graph.md
 * says so). `Intl` is the sandbox's own (docs/sandbox.md), with every member declared here.
 */
const DECLARED_BUT_ABSENT = [...["$1", "$2", "$3", "$4", "$5", "$6", "$7", "$8", "$9", "input", "$_", "lastMatch", "$&", "lastParen", "$+", "leftContext", "$`", "rightContext", "$'"].map((m) => `RegExp.${m}`)];

describe("the type check's library matches the sandbox's QuickJS", () => {
  it("every declared global, static member and prototype member exists in the sandbox", async () => {
    const declared = declaredBuiltIns();
    expect(declared.length).toBeGreaterThan(50);
    const probe = `
      const declared = ${JSON.stringify(declared)};
      const instances = { ${Object.entries(INSTANCES).map(([name, make]) => `${JSON.stringify(name)}: () => ${make}`).join(", ")} };
      const missing = [];
      for (const { name, statics, prototype } of declared) {
        if (!(name in globalThis)) { missing.push(name); continue; }
        const value = globalThis[name];
        for (const member of statics) if (value === null || !(member in Object(value))) missing.push(name + "." + member);
        const proto = value?.prototype;
        const instance = instances[name]?.();
        for (const member of prototype) {
          if (proto != null && member in proto) continue;
          if (instance !== undefined && member in instance) continue;
          missing.push(name + ".prototype." + member);
        }
      }
      missing`;
    const result = await runCode(probe, { timeoutMs: 20_000 });
    expect(result.status, JSON.stringify(result.error)).toBe("success");
    expect([...(result.result as string[])].sort()).toEqual([...DECLARED_BUT_ABSENT].sort());
  }, 60_000);
});

describe("built-ins of ES2024 and later that QuickJS has", () => {
  const code = [
    "const people = [{ name: 'a', age: 30 }, { name: 'b', age: 25 }, { name: 'c', age: 30 }];",
    "const byAge = Object.groupBy(people, (p) => p.age);",
    "const byParity = Map.groupBy([1, 2, 3, 4], (n) => (n % 2 === 0 ? 'even' : 'odd'));",
    "const both = new Set([1, 2]).union(new Set([2, 3]));",
    "const common = new Set([1, 2]).intersection(new Set([2, 3]));",
    "const { promise, resolve } = Promise.withResolvers<number>();",
    "resolve(7);",
    "const sorted = [3, 1, 2].toSorted();",
    "const doubled = [1, 2, 3].values().map((n) => n * 2).toArray();",
    "const tried = await Promise.try(() => 5);",
    "console.log(JSON.stringify(byAge), [...byParity.keys()].join(), [...both].join(), [...common].join(), await promise, sorted.join(), doubled.join(), tried, Error.isError(new Error('x')));",
  ].join("\n");

  it("type-check and run", async () => {
    expect(await checkTypes(code)).toMatchObject({ ok: true });
    const run = await runCode(code, { language: "typescript" });
    expect(run.status, JSON.stringify(run.error)).toBe("success");
    expect(run.stdout).toBe('{"25":[{"name":"b","age":25}],"30":[{"name":"a","age":30},{"name":"c","age":30}]} odd,even 1,2,3 2 7 1,2,3 2,4,6 5 true\n');
  }, 60_000);
});

describe("type errors never advise changing compiler options", () => {
  it("a built-in QuickJS lacks, the DOM, Node.js and test frameworks are named as such", async () => {
    const code = [
      "const all = await Array.fromAsync([Promise.resolve(1)]);",
      "const stack = new DisposableStack();",
      "document.title = 'x';",
      "const fs = require('fs');",
      "describe('x', () => {});",
      "const b = Buffer.from('x');",
      "new ArrayBuffer(8).resize(0);",
    ].join("\n");
    const result = await checkTypes(code);
    const messages = result.ok ? [] : result.diagnostics.map((d) => d.message);
    expect(messages).toEqual([
      "Property 'fromAsync' does not exist on type 'ArrayConstructor'. The sandbox's engine (QuickJS) does not provide it: write it another way.",
      "Cannot find name 'DisposableStack'.",
      "Cannot find name 'document'. The sandbox has no DOM (no document, window or fetch).",
      "Cannot find name 'require'. The sandbox has no Node.js APIs (no require, process, Buffer or fs).",
      "Cannot find name 'describe'. The sandbox has no test framework: check results with plain code that throws.",
      "Cannot find name 'Buffer'. The sandbox has no Node.js APIs (no require, process, Buffer or fs).",
      // Removed from the engine by the sandbox (docs/security.md): told before it runs.
      "Property 'resize' does not exist on type 'ArrayBuffer'. The sandbox's engine (QuickJS) does not provide it: write it another way.",
    ]);
    for (const message of messages) expect(message).not.toMatch(/compiler option|tsconfig|npm i|types field|target library/i);
  }, 60_000);
});
