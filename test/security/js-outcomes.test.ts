/**
 * Outcomes the JavaScript guest cannot write (issue 21, item 2): a wrong program's tests are
 * reported failed whatever the program did to the realm's promise machinery, the tests' helper
 * names or the throw mark; what the worker reads from the guest (an error description, a
 * result) cannot make it or the host throw; and a session call leaves nothing that runs in a
 * later call or between calls.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createSandbox, type ExecutionResult } from "../../src/index.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

/** A wrong `add` and the program lines that try to make its tests pass anyway. */
const WRONG_ADD = "function add(a, b) { return a - b; }";
const FORGE_THEN = [
  WRONG_ADD,
  // Every promise resolution that looks up `then` or `constructor` now meets the program's.
  "Promise.prototype.constructor = function () {};",
  "Promise.prototype.then = function (resolve) { resolve({ default: 1 }); };",
].join("\n");

async function testsOf(code: string, tests: string): Promise<ExecutionResult["tests"]> {
  const r = await sandbox.run(code, { tests, timeoutMs: 2000 });
  expect(r.status).toBe("success");
  return r.tests;
}

describe("the tests' verdict is the engine's, not the program's", () => {
  it("fails a wrong program whose tests end in an async IIFE, though it replaced Promise's then and constructor", async () => {
    const tests = await testsOf(FORGE_THEN, "(async () => { if (add(1, 2) !== 3) throw new Error('add(1, 2) should be 3'); })()");
    expect(tests).toMatchObject({ status: "failed", error: { message: "add(1, 2) should be 3", line: 1 } });
  });

  it("fails it with top-level await in the tests, too", async () => {
    const tests = await testsOf(FORGE_THEN, "const one = await 1;\nif (add(one, 2) !== 3) throw new Error('add is wrong');");
    expect(tests).toMatchObject({ status: "failed", error: { message: "add is wrong", line: 2 } });
  });

  it("still awaits an honest async IIFE at the end of the tests, and passes a right program", async () => {
    const right = "function add(a, b) { return a + b; }";
    expect(await testsOf(right, "(async () => { if (add(1, 2) !== 3) throw new Error('x'); })()")).toMatchObject({ status: "passed" });
    const late = await testsOf(right, "(async () => { await null; throw new Error('late failure'); })()");
    expect(late).toMatchObject({ status: "failed", error: { message: "late failure" } });
  });

  it("keeps the tests' helpers their own: a global accessor the program defined under a helper's name is not used", async () => {
    const program = `${WRONG_ADD}\nObject.defineProperty(globalThis, "eq", { get() { return () => {}; }, set() {}, configurable: false });`;
    const tests = await testsOf(program, "var eq = function (a, e) { if (a !== e) throw new Error('not equal'); };\neq(add(1, 2), 3);");
    // `eq(a, b)` is a comparison the worker makes itself (the helper is not called at all).
    expect(tests).toMatchObject({ status: "failed", total: 1, passed: 0, error: { message: "failed: eq(add(1, 2), 3);" } });
    expect(tests?.cases?.[0]).toMatchObject({ decidedBy: "outside", actual: "-1", expected: "3" });
    // A global named like the throw mark changes nothing either.
    const marked = await testsOf(`${WRONG_ADD}\nvar __sandboxTestThrowAt = (line, value) => ({ message: "forged" });`, "if (add(1, 2) !== 3) throw new Error('wrong');");
    expect(marked).toMatchObject({ status: "failed", error: { message: "wrong", line: 1 } });
  });

  it("reports the failing test's line, not one the program's code records while the failure is described", async () => {
    // The program's own throws are marked too, so the global mark exists; its getter calls it.
    const program = "function add() { return { get message() { __sandboxTestThrowAt(77, 0); return 'm'; } }; }\nif (false) throw 0;";
    const r = await sandbox.run(program, { tests: "\n\nthrow add();" });
    expect(r.tests).toMatchObject({ status: "failed", error: { message: "m", line: 3 } });
  });

  it("does not count a helper's tests as passed when the program's `then` would have hidden the failure of an awaited check", async () => {
    const tests = await testsOf(FORGE_THEN, "async function check() { if (add(2, 2) !== 4) throw new Error('add(2, 2)'); }\ncheck()");
    expect(tests).toMatchObject({ status: "failed", error: { message: "add(2, 2)" } });
  });
});

describe("documented limits of tests in the program's realm (docs/security.md)", () => {
  it("passes a wrong program that replaced JSON.stringify, which its tests compare through", async () => {
    const tests = await testsOf(`${WRONG_ADD}\nJSON.stringify = () => "same";`, "if (JSON.stringify(add(1, 2)) !== JSON.stringify(3)) throw new Error('add');");
    expect(tests?.status).toBe("passed");
  });

  it("reports a thrown InternalError('out of memory') as memory_limit (the guest could as well run out of memory)", async () => {
    expect((await sandbox.run("throw new InternalError('out of memory')")).status).toBe("memory_limit");
  });
});

describe("what the worker reads from the guest cannot make it throw", () => {
  it("describes an error generically when the program replaced String; the worker is not lost", async () => {
    const r = await sandbox.run("globalThis.String = () => ({});\nthrow new Error('x');");
    expect(r).toMatchObject({ status: "runtime_error", error: { name: "Error", message: "the code failed in a way that cannot be described" } });
    const t = await sandbox.run("function f() { return 0; }\nglobalThis.String = () => ({});", { tests: "if (f() !== 1) throw new Error('f');" });
    expect(t).toMatchObject({ status: "success", tests: { status: "failed" } });
    expect((await sandbox.run("typeof String('a')")).result).toBe("string");
  });

  it("reports only real line numbers, whatever the program passes to the throw mark or writes in a stack", async () => {
    for (const forged of ["NaN", "Infinity", "-5", "2.5", "1e308", "0"]) {
      const viaMark = await sandbox.run(`if (false) throw 0;\n__sandboxTestThrowAt(${forged}, 0);\nPromise.reject("x")`);
      expect(viaMark.error?.line).toBeUndefined();
    }
    for (const forged of ["NaN", "-5", "0", "99999999999"]) {
      const viaStack = await sandbox.run(`Promise.reject({ name: "E", message: "m", stack: "    at f (main.js:${forged}:${forged})" })`);
      expect(viaStack.error?.line).toBeUndefined();
      expect(viaStack.error?.column).toBeUndefined();
    }
  });

  it("prints a string with a NUL or a lone surrogate whole (the engine's string reader stops at NUL)", async () => {
    const r = await sandbox.run('console.log("a\\u0000b", "\\ud800x"); console.error("e\\u0000f"); 1');
    expect(r.stdout).toBe("a\u0000b \ud800x\n");
    expect(r.stderr).toBe("e\u0000f\n");
  });

  it("drops a result nested deeper than the host accepts, with a message; a deep but reasonable one is kept", async () => {
    const deep = await sandbox.run("let v = 0; for (let i = 0; i < 3000; i++) v = [v]; v");
    expect(deep).toMatchObject({ status: "output_limit", error: { name: "ResultLimitError", message: expect.stringMatching(/more than 1000 levels deep/) } });
    expect(() => JSON.stringify(deep)).not.toThrow();
    const ok = await sandbox.run("let v = 0; for (let i = 0; i < 900; i++) v = { next: v }; v");
    expect(ok.status).toBe("success");
  });

  it("refuses a host call whose arguments nest too deep, as an exception in the guest; the host function never runs", async () => {
    let calls = 0;
    const r = await sandbox.run("let v = 0; for (let i = 0; i < 3000; i++) v = [v];\nlet said;\ntry { await record(v); said = 'called'; } catch (e) { said = e.message; }\nsaid", {
      hostFunctions: { record: () => void calls++ },
    });
    expect(r.result).toMatch(/record\(\) was refused: its arguments nest arrays or objects more than 1000 levels deep/);
    expect(calls).toBe(0);
  });
});

describe("files named like Object.prototype members", () => {
  it("keeps a given '__proto__' file, and returns one the guest wrote", async () => {
    const r = await sandbox.run("const seen = files.read('__proto__'); files.write('__proto__', seen + '!'); seen", { files: JSON.parse('{"__proto__": "p"}') });
    expect(r.result).toBe("p");
    expect(Object.keys(r.files ?? {})).toEqual(["__proto__"]);
    expect(new TextDecoder().decode(r.files?.["__proto__"])).toBe("p!");
  });
});

describe("a session call leaves nothing behind", () => {
  it("runs no job of a failed call in the next call, with that call's host functions", async () => {
    const session = await sandbox.createSession();
    try {
      const planted = [
        "throw { get message() {",
        "  Promise.resolve().then(() => { console.log('call 1 in a later call'); if (typeof secret === 'function') secret('stolen'); });",
        "  return 'm';",
        "} };",
      ].join("\n");
      expect((await session.run(planted)).status).toBe("runtime_error");
      const received: unknown[] = [];
      const r = await session.run("1 + 1", { hostFunctions: { secret: (x) => void received.push(x) } });
      expect(r).toMatchObject({ status: "success", stdout: "", result: 2 });
      expect(received).toEqual([]);
    } finally {
      await session.dispose();
    }
  });

  it("ends the session when a call's leftover jobs run past its deadline", async () => {
    const session = await sandbox.createSession();
    try {
      const r = await session.run("throw { get message() { Promise.resolve().then(function again() { Promise.resolve().then(again); }); return 'm'; } };", { timeoutMs: 300 });
      expect(r.status).toBe("timeout");
      await expect(session.run("1")).rejects.toThrow(/ended/);
    } finally {
      await session.dispose();
    }
  });

  it("lists function names without running guest code (a replaced Set.prototype.has cannot hang it)", async () => {
    const session = await sandbox.createSession();
    try {
      await session.run("function area(w, h) { return w * h; }\nSet.prototype.has = function () { for (;;) {} };\nObject.defineProperty(globalThis, 'trap', { get() { for (;;) {} } });");
      expect(await session.functionNames()).toEqual(["area"]);
      expect((await session.call("area", [3, 4])).result).toBe(12);
    } finally {
      await session.dispose();
    }
  });
});
