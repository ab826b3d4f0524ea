import { afterAll, describe, expect, it } from "vitest";
import { createSandbox, InvalidOptionError } from "../../../src/index.js";

const sandbox = createSandbox({ poolSize: 1, isolation: "module" });
afterAll(() => sandbox.dispose());

describe('createSandbox({ isolation: "module" })', () => {
  it("runs every pool run from the worker's restored memory, with the same results", async () => {
    const first = await sandbox.run("globalThis.leak = 'x'.repeat(1000); console.log('one'); 6 * 7");
    expect(first).toMatchObject({ status: "success", stdout: "one\n", result: 42 });
    const second = await sandbox.run("typeof leak");
    expect(second.result).toBe("undefined");
    const host = await sandbox.run("await add(2, 3)", { hostFunctions: { add: (a, b) => Number(a) + Number(b) } });
    expect(host.result).toBe(5);
    const timeout = await sandbox.run("for (;;) {}", { timeoutMs: 200 });
    expect(timeout.status).toBe("timeout");
    expect((await sandbox.run("1 + 1")).result).toBe(2);
    // A run that grows the memory: the worker takes a new instance, and runs on.
    const grow = "const p = []; for (let i = 0; i < 24; i++) p.push(new Uint8Array(1 << 20).fill(1)); p.length";
    expect((await sandbox.run(grow)).result).toBe(24);
    expect((await sandbox.run("globalThis.leak === undefined && [1, 2].join()")).result).toBe("1,2");
    expect(sandbox.liveWorkerCount()).toBe(1);
  });

  it("refuses an unknown isolation", () => {
    expect(() => createSandbox({ isolation: "process" as "module" })).toThrow(InvalidOptionError);
  });
});
