import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../src/sandbox/index.js";

const sandbox = createSandbox({ poolSize: 2 });
afterAll(() => sandbox.dispose());
const run = sandbox.run.bind(sandbox);
const MiB = 1024 * 1024;

describe("results", () => {
  it("returns the last expression of a script and its console output", async () => {
    const r = await run("console.log('hi', 1, { a: [1, 'x'] }); console.error('oops'); 6 * 7");
    expect(r).toMatchObject({ status: "success", stdout: "hi 1 { a: [ 1, 'x' ] }\n", stderr: "oops\n", result: 42 });
    expect(r.outputTruncated).toBe(false);
    expect(r.language).toBe("javascript");
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("routes console methods to stdout and stderr, formats console.assert", async () => {
    const r = await run("console.info('i'); console.debug('d'); console.warn('w'); console.assert(1 > 2, 'math', 3); console.assert(true, 'no');");
    expect(r.stdout).toBe("i\nd\n");
    expect(r.stderr).toBe("w\nAssertion failed: math 3\n");
  });

  it("awaits a promise that is the last expression", async () => {
    const r = await run("Promise.resolve(5).then((x) => x * 2)");
    expect(r).toMatchObject({ status: "success", result: 10 });
  });

  it("gives undefined for values JSON leaves out, and an error for values it refuses", async () => {
    const fn = await run("() => 1");
    expect(fn.status).toBe("success");
    expect(fn.result).toBeUndefined();
    expect(await run("10n")).toMatchObject({ status: "runtime_error", error: { name: "TypeError", message: expect.stringMatching(/^the result cannot be serialised as JSON: .*BigInt/) } });
    expect(await run("const a = {}; a.self = a; a")).toMatchObject({ status: "runtime_error", error: { message: expect.stringMatching(/^the result cannot be serialised as JSON: .*circular/i) } });
    expect((await run("({ d: new Date(0) })")).result).toEqual({ d: "1970-01-01T00:00:00.000Z" });
  });

  it("uses the awaited default export of a module", async () => {
    const r = await run("export const helper = 1;\nexport default await Promise.resolve({ answer: 42 });");
    expect(r).toMatchObject({ status: "success", result: { answer: 42 } });
  });

  it("supports top-level await", async () => {
    const r = await run("const f = async (x) => x * 2;\nconsole.log(await f(21));");
    expect(r).toMatchObject({ status: "success", stdout: "42\n" });
  });

  it("strips TypeScript types", async () => {
    const r = await run("interface P { x: number }\nconst p: P = { x: 20 };\nfunction f(n: number): number { return n + p.x; }\nf(22)", { language: "typescript" });
    expect(r).toMatchObject({ status: "success", result: 42, language: "typescript" });
  });

  it("ends at once when the program's promise can never settle", async () => {
    const r = await run("await new Promise(() => {});", { timeoutMs: 5000 });
    expect(r.status).toBe("runtime_error");
    expect(r.error?.message).toMatch(/never settled/);
    expect(r.durationMs).toBeLessThan(4000);
  });
});

describe("errors", () => {
  it("reports a syntax error with its line", async () => {
    const r = await run("let a = 1;\nlet b = ;\n");
    expect(r.status).toBe("syntax_error");
    expect(r.error?.line).toBe(2);
  });

  it("reports a runtime error with name, line, column and the user's frames only", async () => {
    const r = await run("function inner() {\n  return missing + 1;\n}\nfunction outer() { return inner(); }\nouter();\n");
    expect(r.status).toBe("runtime_error");
    expect(r.error).toMatchObject({ name: "ReferenceError", line: 2 });
    expect(r.error?.column).toBeGreaterThan(0);
    expect(r.error?.stack).toMatch(/inner \(main\.js:2/);
    expect(r.error?.stack).toMatch(/outer \(main\.js:4/);
    expect(r.error?.stack).not.toMatch(/prelude/);
  });

  it("points TypeScript errors at the TypeScript source line", async () => {
    const code = "type N = number;\nconst a: N = 1;\n\nfunction f(n: N): N {\n  throw new RangeError('bad ' + n);\n}\nf(a);\n";
    const r = await run(code, { language: "typescript" });
    expect(r.error).toMatchObject({ name: "RangeError", message: "bad 1", line: 5 });
  });

  it("reports a rejected top-level promise", async () => {
    const r = await run("await Promise.reject(new TypeError('nope'));");
    expect(r.status).toBe("runtime_error");
    expect(r.error).toMatchObject({ name: "TypeError", message: "nope" });
  });

  it("describes thrown non-Error values", async () => {
    const r = await run("throw 'plain string';");
    expect(r.status).toBe("runtime_error");
    expect(r.error?.message).toContain("plain string");
  });

  it("forbids imports before running, naming the module", async () => {
    const r = await run("console.log('never');\nimport { execSync } from 'node:child_process';");
    expect(r.status).toBe("forbidden");
    expect(r.stdout).toBe("");
    expect(r.error?.message).toContain("node:child_process");
  });

  it("keeps out host globals", async () => {
    const r = await run("[typeof process, typeof require, typeof fetch, typeof setTimeout, typeof structuredClone].join()");
    expect(r.result).toBe("undefined,undefined,undefined,undefined,undefined");
  });
});

describe("globals and host functions", () => {
  it("copies globals in as JSON values", async () => {
    const r = await run("data.items.push(4); [data.items.reduce((a, b) => a + b, 0), name, flag, nothing]", {
      globals: { data: { items: [1, 2, 3] }, name: "x", flag: true, nothing: null },
    });
    expect(r.result).toEqual([10, "x", true, null]);
  });

  it("passes a large JSON value in and back out unchanged", async () => {
    const big = { rows: Array.from({ length: 5000 }, (_, i) => ({ id: i, label: `row ${i}`, tags: ["a", "b"] })) };
    const r = await run("data", { globals: { data: big } });
    expect(r.status).toBe("success");
    expect(r.result).toEqual(big);
  });

  it("calls sync and async host functions with JSON copies", async () => {
    const seen: unknown[] = [];
    const r = await run("const a = await add(2, 3);\nconst b = await fetchUser({ id: 7 });\nconsole.log(a, b.name);\n[a, b]", {
      hostFunctions: {
        add: (x, y) => Number(x) + Number(y),
        fetchUser: async (query) => {
          seen.push(query);
          await new Promise((resolve) => setTimeout(resolve, 10));
          return { name: "Ada", id: (query as { id: number }).id };
        },
      },
    });
    expect(r).toMatchObject({ status: "success", stdout: "5 Ada\n", result: [5, { name: "Ada", id: 7 }] });
    expect(seen).toEqual([{ id: 7 }]);
  });

  it("turns a throwing host function into a catchable exception", async () => {
    const r = await run("try { await boom(); } catch (e) { console.log('caught', e.message); }\nawait boom();", {
      hostFunctions: {
        boom: () => {
          throw new Error("kaboom");
        },
      },
    });
    expect(r.stdout).toBe("caught kaboom\n");
    expect(r.status).toBe("runtime_error");
    expect(r.error?.message).toBe("kaboom");
  });

  it("runs many host calls in parallel", async () => {
    const r = await run("(await Promise.all([1, 2, 3, 4, 5].map((n) => twice(n)))).join()", {
      hostFunctions: { twice: async (n) => Number(n) * 2 },
    });
    expect(r.result).toBe("2,4,6,8,10");
  });

  it("counts time waiting on a host function against the limit", async () => {
    const started = Date.now();
    const r = await run("await slow();", {
      timeoutMs: 150,
      hostFunctions: { slow: () => new Promise((resolve) => setTimeout(resolve, 2000)) },
    });
    expect(r.status).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it("gives the guest no reference to host functions or objects", async () => {
    const r = await run("const f = globalThis.peek; [typeof f, Object.keys(f), await f.constructor('return typeof process')()].join('|')", {
      hostFunctions: { peek: () => 1 },
    });
    expect(r).toMatchObject({ status: "success", result: "function||undefined" });
  });
});

describe("limits", () => {
  it("stops an endless loop with status timeout, keeping earlier output", async () => {
    const r = await run("console.log('before');\nwhile (true) {}", { timeoutMs: 150 });
    expect(r.status).toBe("timeout");
    expect(r.stdout).toBe("before\n");
    expect(r.error?.name).toBe("TimeoutError");
  });

  it("kills a built-in that does not poll the interrupt handler (watchdog)", async () => {
    const started = Date.now();
    const r = await run("console.log('start');\nnew Array(1e9).join('x').length", { timeoutMs: 200, memoryLimitBytes: 1024 * MiB });
    expect(r.status).toBe("timeout");
    expect(r.stdout).toBe("start\n");
    expect(Date.now() - started).toBeLessThan(3000);
    expect((await run("1 + 1")).result).toBe(2);
  });

  it("reports memory_limit", async () => {
    const r = await run("const a = []; for (;;) a.push({ i: a.length, s: String(a.length) });", { memoryLimitBytes: 16 * MiB, timeoutMs: 20000 });
    expect(r.status).toBe("memory_limit");
  });

  it("reports memory_limit when QuickJS cannot even build the error (a Map bomb), but not for throw null", async () => {
    const r = await run("const m = new Map();\nfor (let i = 0; ; i++) m.set(i, 'v' + i);", { memoryLimitBytes: 16 * MiB, timeoutMs: 20000 });
    expect(r.status).toBe("memory_limit");
    const own = await run("throw null;");
    expect(own).toMatchObject({ status: "runtime_error", error: { message: "Uncaught null" } });
  });

  it("decides a thrown null from what the run threw, not from the source text", async () => {
    // A null thrown through a variable, or from a function, is the code's own error.
    const viaVariable = await run("const nothing = null;\nthrow nothing;");
    expect(viaVariable).toMatchObject({ status: "runtime_error", error: { message: "Uncaught null", line: 2 } });
    const fromFunction = await run("function fail(v) { throw v; }\nfail(null);");
    expect(fromFunction).toMatchObject({ status: "runtime_error", error: { message: "Uncaught null" } });
    const async = await run("async function fail() { const v = null; throw v; }\nawait fail();");
    expect(async.status).toBe("runtime_error");
    // A program that throws elsewhere but runs out of memory is still memory_limit.
    const bomb = await run(
      "function check(x) { if (x < 0) throw new Error('negative'); }\nconst m = new Map();\nfor (let i = 0; ; i++) { check(i); m.set(i, 'v' + i); }",
      { memoryLimitBytes: 16 * MiB, timeoutMs: 20000 },
    );
    expect(bomb.status).toBe("memory_limit");
    // A Map bomb inside a function: the memory is freed while the stack unwinds.
    const local = await run("(() => { const m = new Map(); for (let i = 0; ; i++) m.set(i, 'v' + i); })()", { memoryLimitBytes: 16 * MiB, timeoutMs: 20000 });
    expect(local.status).toBe("memory_limit");
  });

  it("keeps error text bounded", async () => {
    const r = await run("throw new Error('x'.repeat(1e6));", { timeoutMs: 10000 });
    expect(r.status).toBe("runtime_error");
    expect(r.error!.message.length).toBeLessThan(5000);
    expect(r.error!.message).toMatch(/more characters/);
  });

  it("reports output_limit and keeps output up to the cap", async () => {
    const r = await run("console.log('first');\nfor (let i = 0; ; i++) console.log('line ' + i);", { maxOutputBytes: 4096, timeoutMs: 10000 });
    expect(r.status).toBe("output_limit");
    expect(r.outputTruncated).toBe(true);
    expect(r.stdout.startsWith("first\nline 0\n")).toBe(true);
    expect(Buffer.byteLength(r.stdout + r.stderr)).toBeLessThanOrEqual(4096);
    expect(Buffer.byteLength(r.stdout)).toBeGreaterThan(4000);
  });

  it("ends deep recursion as a runtime error and keeps serving", async () => {
    const r = await run("function f(n) { return f(n + 1) + 1; }\nf(0);");
    expect(r.status).toBe("runtime_error");
    expect(r.error?.message).toMatch(/stack overflow/);
    expect((await run("6 * 7")).result).toBe(42);
  });

  it("leaks nothing from one run to the next", async () => {
    await run("globalThis.leak = 1; Object.prototype.polluted = 1; Array.prototype.push = null;");
    const r = await run("const a = []; a.push(1); [typeof leak, typeof ({}).polluted, a.length].join()");
    expect(r.result).toBe("undefined,undefined,1");
  });
});

describe("results the code cannot forge", () => {
  it("reads results and globals with built-ins captured before the code ran", async () => {
    const tamper = "JSON.stringify = () => '\"forged\"'; JSON.parse = () => 'forged';\nPromise.prototype.then = function () { return this; };\nFunction.prototype.call = () => 'forged';\nReflect.apply = () => 'forged';\n";
    expect((await run(`${tamper}[1, 2]`)).result).toEqual([1, 2]);
    expect(await run(`${tamper}console.log({ a: 1 });\nPromise.resolve(7)`)).toMatchObject({ stdout: "{ a: 1 }\n", result: 7 });
    const r = await run(`${tamper}({ ok: data.n })`, { globals: { data: { n: 3 } } });
    expect(r).toMatchObject({ status: "success", result: { ok: 3 } });
  });
});
