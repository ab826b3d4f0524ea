import { afterAll, describe, expect, it } from "vitest";
import { SandboxDisposedError, SandboxSessionEndedError } from "../../../src/errors.js";
import { createSandbox } from "../../../src/sandbox/index.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

describe("sessions", () => {
  it("keeps functions and globals between calls", async () => {
    const session = await sandbox.createSession();
    const defined = await session.run(
      "function add(a, b) { return a + b; }\nvar counter = 0;\nconst triple = (x) => 3 * x;\nglobalThis.inc = () => ++counter;\nclass K { static seven() { return 7; } }",
    );
    expect(defined.status).toBe("success");
    expect((await session.call("add", [2, 3])).result).toBe(5);
    expect((await session.call("inc")).result).toBe(1);
    expect((await session.call("inc")).result).toBe(2);
    expect((await session.call("triple", [5])).result).toBe(15);
    expect((await session.run("K.seven() + counter")).result).toBe(9);
    expect(await session.functionNames()).toEqual(["add", "inc"]);
    await session.dispose();
  });

  it("makes named exports of a module callable; the default export is the result", async () => {
    const session = await sandbox.createSession({ language: "typescript" });
    const r = await session.run("export function mul(a: number, b: number): number { return a * b; }\nexport default 'loaded';");
    expect(r).toMatchObject({ status: "success", result: "loaded" });
    expect((await session.call("mul", [6, 7])).result).toBe(42);
    expect(await session.functionNames()).toContain("mul");
    await session.dispose();
  });

  it("awaits async functions and lets them call host functions granted to the call", async () => {
    const session = await sandbox.createSession();
    await session.run("async function viaHost(x) { console.log('asking'); return await double(x); }");
    const r = await session.call("viaHost", [21], { hostFunctions: { double: (x) => Number(x) * 2 } });
    expect(r).toMatchObject({ status: "success", result: 42, stdout: "asking\n" });
    const denied = await session.call("viaHost", [21]);
    expect(denied.status).toBe("runtime_error");
    expect(denied.error?.message).toMatch(/double/);
    await session.dispose();
  });

  it("reports an undefined function with the names that exist", async () => {
    const session = await sandbox.createSession();
    await session.run("function alpha() {}\nfunction beta() {}");
    const r = await session.call("gamma", []);
    expect(r.status).toBe("runtime_error");
    expect(r.error?.message).toMatch(/gamma/);
    expect(r.error?.message).toMatch(/alpha, beta/);
    await expect(session.call("not valid", [])).rejects.toThrowError(/"name"/);
    await expect(session.call("alpha", [() => 1] as never)).rejects.toThrowError(/"args\[0\]"/);
    await session.dispose();
  });

  it("reports errors thrown by a called function with their line", async () => {
    const session = await sandbox.createSession();
    await session.run("function f(x) {\n  if (x < 0) throw new RangeError('negative');\n  return Math.sqrt(x);\n}");
    expect((await session.call("f", [16])).result).toBe(4);
    const r = await session.call("f", [-1]);
    expect(r).toMatchObject({ status: "runtime_error", error: { name: "RangeError", message: "negative", line: 2 } });
    expect((await session.call("f", [9])).result).toBe(3);
    await session.dispose();
  });

  it("ends the session after a timeout; later calls throw a clear error", async () => {
    const session = await sandbox.createSession();
    await session.run("function spin() { for (;;) {} }");
    const r = await session.call("spin", [], { timeoutMs: 100 });
    expect(r.status).toBe("timeout");
    await expect(session.call("spin")).rejects.toThrowError(SandboxSessionEndedError);
    await expect(session.run("1")).rejects.toThrowError(/ended/);
    await session.dispose();
  });

  it("throws SandboxDisposedError after dispose", async () => {
    const session = await sandbox.createSession();
    await session.dispose();
    expect(session.disposed).toBe(true);
    await expect(session.run("1")).rejects.toThrowError(SandboxDisposedError);
  });

  it("keeps sessions separate from each other and from runs", async () => {
    const a = await sandbox.createSession();
    const b = await sandbox.createSession();
    await a.run("globalThis.secret = 'a'");
    expect((await b.run("typeof secret")).result).toBe("undefined");
    expect((await sandbox.run("typeof secret")).result).toBe("undefined");
    await Promise.all([a.dispose(), b.dispose()]);
  });
});
