/**
 * No silent result: a JavaScript result JSON.stringify refuses (a throwing getter or `toJSON`,
 * a cycle, a BigInt) ends the run with an error naming why, on every path a result takes: a
 * script's last value, an awaited promise, a module's default export, a session call.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../../src/sandbox/index.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const refused = (why: RegExp) => ({ status: "runtime_error", error: { message: expect.stringMatching(why) } });

describe("a result JSON cannot hold is an error naming why", () => {
  it("a throwing getter, a throwing toJSON, a cycle and a BigInt, as a script's value", async () => {
    expect(await sandbox.run("({ get x() { throw new RangeError('no x for you') } })")).toMatchObject({ status: "runtime_error", error: { name: "RangeError", message: expect.stringMatching(/^the result cannot be serialised as JSON: no x for you; return plain data/) } });
    expect(await sandbox.run("({ toJSON() { throw new Error('toJSON refused') } })")).toMatchObject(refused(/cannot be serialised as JSON: toJSON refused/));
    expect(await sandbox.run("const a = [1]; a.push({ back: a }); a")).toMatchObject(refused(/cannot be serialised as JSON: .*circular/i));
    expect(await sandbox.run("({ big: 2n ** 70n })")).toMatchObject(refused(/cannot be serialised as JSON: .*BigInt.*String\(x\)/));
    // A thrown non-Error is described too.
    expect(await sandbox.run("({ get x() { throw 'plain' } })")).toMatchObject(refused(/cannot be serialised as JSON: .*plain/));
  });

  it("an awaited promise's value and a module's default export", async () => {
    expect(await sandbox.run("Promise.resolve({ n: 1n })")).toMatchObject(refused(/BigInt/));
    expect(await sandbox.run("const o = {}; o.o = o;\nexport default await Promise.resolve(o);")).toMatchObject(refused(/circular/i));
  });

  it("a session call's return value", async () => {
    const session = await sandbox.createSession();
    try {
      await session.run("function f() { return { get v() { throw new TypeError('gone') } }; }");
      expect(await session.call("f", [])).toMatchObject(refused(/cannot be serialised as JSON: gone/));
      // The session goes on.
      expect(await session.run("1 + 1")).toMatchObject({ status: "success", result: 2 });
    } finally {
      await session.dispose();
    }
  });

  it("values JSON leaves out are still no result, not an error", async () => {
    for (const code of ["undefined", "(function () {})"]) {
      const r = await sandbox.run(code);
      expect(r.status).toBe("success");
      expect(r.result).toBeUndefined();
    }
    expect(await sandbox.run("({ f() {}, n: 1 })")).toMatchObject({ status: "success", result: { n: 1 } });
  });
});
