/**
 * A run that reached its memory limit ends `memory_limit`, decided by the worker from the
 * memory's cap (engine-memory.ts counts refused growths), not from what the guest did with the
 * engine's out-of-memory error: caught by the code, or lost in a promise chain nobody awaits
 * (QuickJS then ends the chain silently, and the run looked like a success).
 */
import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../../src/sandbox/index.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const MIB = 2 ** 20;

describe("reaching the memory limit is never a success", () => {
  it("an out-of-memory error the code catches", async () => {
    const r = await sandbox.run("let a = []; try { for (;;) a.push(new Uint8Array(1 << 20)); } catch (e) { a = null; }\n'handled'", { memoryLimitBytes: 32 * MIB, timeoutMs: 5000 });
    expect(r).toMatchObject({ status: "memory_limit", error: { name: "MemoryLimitError" } });
  });

  it("an endless promise chain that runs out of memory after the result settled", async () => {
    const r = await sandbox.run("Promise.resolve().then(function again() { return Promise.resolve().then(again); });\n1", { memoryLimitBytes: 16 * MIB, timeoutMs: 10_000 });
    expect(r.status).toBe("memory_limit");
  });

  it("the next run in the same sandbox is an ordinary success", async () => {
    await sandbox.run("const a = []; for (;;) a.push(new Uint8Array(1 << 20));", { memoryLimitBytes: 16 * MIB });
    expect(await sandbox.run("6 * 7")).toMatchObject({ status: "success", result: 42 });
  });
});
