/**
 * The front under misuse by its caller's own code: dispose while runs wait or run, sessions
 * used from several places at once, host functions that never settle or throw odd values.
 */
import { describe, expect, it } from "vitest";
import { createSandbox, currentHostCall, SandboxDisposedError, SandboxSessionEndedError, type HostFunction } from "../../../src/index.js";

describe("the front under its caller's misuse", { timeout: 30_000 }, () => {
  it("rejects a run still queued at dispose with SandboxDisposedError, as the Python engine does", async () => {
    const sandbox = createSandbox({ poolSize: 1 });
    await sandbox.warm();
    const running = sandbox.run("const t = Date.now(); while (Date.now() - t < 2000) {} 1");
    const queued = sandbox.run("2").then(() => undefined, (error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await sandbox.dispose();
    expect(await queued).toBeInstanceOf(SandboxDisposedError);
    expect((await running).error?.message).toMatch(/disposed while this code ran/);
  });

  it("says a session call was stopped by the session's dispose, and refuses what was queued behind it", async () => {
    const sandbox = createSandbox({ poolSize: 1 });
    try {
      const session = await sandbox.createSession();
      const running = session.run("const t = Date.now(); while (Date.now() - t < 2000) {} 1");
      const names = session.functionNames();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await session.dispose();
      expect((await running).error?.message).toBe("the session was disposed while this code ran");
      await expect(names).rejects.toBeInstanceOf(SandboxSessionEndedError);
    } finally {
      await sandbox.dispose();
    }
  });

  it("ends a run waiting on a host function that never settles at its time limit, and aborts that call's signal", async () => {
    const sandbox = createSandbox({ poolSize: 1 });
    try {
      let aborted = false;
      const never: HostFunction = () => new Promise(() => currentHostCall()!.signal.addEventListener("abort", () => (aborted = true)));
      const r = await sandbox.run("await never()", { timeoutMs: 1000, hostFunctions: { never } });
      expect(r).toMatchObject({ status: "timeout", hostCalls: 1 });
      expect(aborted).toBe(true);
      expect((await sandbox.run("1 + 1")).result).toBe(2);
    } finally {
      await sandbox.dispose();
    }
  });

  it("turns whatever a host function throws or returns into an exception the guest can catch", async () => {
    const sandbox = createSandbox({ poolSize: 1 });
    try {
      const odd: Record<string, HostFunction> = {
        trapProxy: () => {
          throw new Proxy({}, { get: () => { throw new Error("trap"); }, getPrototypeOf: () => { throw new Error("trap"); } });
        },
        revokedProxy: () => {
          const { proxy, revoke } = Proxy.revocable({}, {});
          revoke();
          throw proxy;
        },
        symbol: () => {
          throw Symbol("s");
        },
        bigint: () => 10n as never,
        cyclic: () => {
          const a: Record<string, unknown> = {};
          a.self = a;
          return a as never;
        },
        deep: () => {
          let v: unknown = 0;
          for (let i = 0; i < 20_000; i++) v = [v];
          return v as never;
        },
      };
      const code = Object.keys(odd).map((k) => `try { await ${k}(); out.push("${k}: no error"); } catch (e) { out.push("${k}: " + e.name); }`);
      const r = await sandbox.run(["const out = [];", ...code, "out"].join("\n"), { hostFunctions: odd });
      expect(r.status).toBe("success");
      expect(r.result).toEqual(["trapProxy: Error", "revokedProxy: Error", "symbol: Error", "bigint: TypeError", "cyclic: TypeError", "deep: RangeError"]);
    } finally {
      await sandbox.dispose();
    }
  });
});
