/**
 * Results are capped: a program whose result's JSON is larger than `maxResultBytes` ends
 * `output_limit`, the result is dropped, and the host never holds the big value.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../src/index.js";

const MiB = 1024 * 1024;
const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

/** About 24 MB of JSON: a million 20-character strings (one string shared, so cheap in the guest). */
const BIG_RESULT = "Array(1000000).fill('x'.repeat(20))";

describe("result cap", () => {
  it("drops a 24 MB result with output_limit and its size, without the host holding it; the next run is clean", async () => {
    const options = { memoryLimitBytes: 256 * MiB, timeoutMs: 20_000 };
    // The first run grows a worker's WASM memory to what the guest needs (a worker that grew that
    // much is replaced after its run; the bound on that memory is js-memory-bound's test).
    const first = await sandbox.run(BIG_RESULT, options);
    expect(first.status).toBe("output_limit");
    expect(first.result).toBeUndefined();
    expect(first.outputTruncated).toBe(false);
    expect(first.error?.name).toBe("ResultLimitError");
    expect(first.error?.message).toMatch(/^the result's JSON is at least 23000001 bytes, over the 1048576-byte limit, so it was dropped/);
    expect(first.error?.message).toMatch(/maxResultBytes/);

    const before = process.memoryUsage();
    for (let i = 0; i < 3; i++) {
      const r = await sandbox.run(BIG_RESULT, options);
      expect(r.status).toBe("output_limit");
    }
    const after = process.memoryUsage();
    // Loose: a host that copied the value would grow by 24 MB (text) + the parsed array each time.
    // The main thread's own heap and buffers, not RSS: RSS also holds the replaced workers'
    // WebAssembly memory, which their threads give back at their own pace.
    expect(after.heapUsed - before.heapUsed).toBeLessThan(24 * MiB);
    expect(after.external + after.arrayBuffers - (before.external + before.arrayBuffers)).toBeLessThan(24 * MiB);

    const next = await sandbox.run("typeof globalThis.x === 'undefined' ? 6 * 7 : 'dirty'");
    expect(next).toMatchObject({ status: "success", result: 42 });
  });

  it("drops a large result of a module (awaited default export) and of a session call", async () => {
    const mod = await sandbox.run("await null;\nexport default 'y'.repeat(2000);", { maxResultBytes: 1000 });
    expect(mod.status).toBe("output_limit");
    expect(mod.error?.message).toMatch(/at least 2002 bytes, over the 1000-byte limit/);
    const session = await sandbox.createSession();
    await session.run("function big(n) { return 'z'.repeat(n); }");
    const small = await session.call("big", [10], { maxResultBytes: 100 });
    expect(small).toMatchObject({ status: "success", result: "z".repeat(10) });
    const large = await session.call("big", [500], { maxResultBytes: 100 });
    expect(large.status).toBe("output_limit");
    expect(large.result).toBeUndefined();
    // A dropped result does not end the session.
    expect((await session.call("big", [1])).result).toBe("z");
    await session.dispose();
  });

  it("counts UTF-8 bytes, not characters", async () => {
    const r = await sandbox.run("'é'.repeat(600)", { maxResultBytes: 1000 });
    expect(r.status).toBe("output_limit");
    const ok = await sandbox.run("'é'.repeat(400)", { maxResultBytes: 1000 });
    expect(ok.status).toBe("success");
  });
});
