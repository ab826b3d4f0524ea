/**
 * A JavaScript pool worker reuses one WebAssembly memory for its runs (isolation "context"):
 * nothing a run left in it may be readable by a later run. quickjs-ng hands out a growable
 * SharedArrayBuffer's new bytes unzeroed; a run read an earlier tenant's strings that way. The
 * guest is not given SharedArrayBuffer (nor Atomics); every other way to get fresh bytes is
 * probed for an earlier run's secret.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../src/index.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

/** Run A: a secret in strings and typed arrays, spread over the worker's memory and then freed. */
const TENANT_A = [
  "const s = 'TENANT-A-PASSWORD:hunter2;'.repeat(20000);",
  "globalThis.keep = s + '!';",
  "const big = new Uint8Array(1 << 20);",
  "for (let i = 0; i < big.length; i++) big[i] = 'SECRETKEY'.charCodeAt(i % 9);",
  "keep.length + big.length",
].join("\n");

/** How run B scans fresh bytes `u`: the count of non-zero bytes (any earlier content shows). */
const COUNT = "let n = 0; for (let i = 0; i < u.length; i++) if (u[i] !== 0) n++; n";

const PROBES: Record<string, string> = {
  // Growing, shrinking and transferring a buffer are gone (js-typed-array-reach.test.ts); what remains:
  "a resizable ArrayBuffer made at its full length": `const u = new Uint8Array(new ArrayBuffer(1 << 22, { maxByteLength: 1 << 23 })); ${COUNT}`,
  "ArrayBuffer.prototype.slice": `const u = new Uint8Array(new ArrayBuffer(1 << 22).slice(16)); ${COUNT}`,
  "TypedArray.prototype.slice of a new Int32Array": `const u = new Int32Array(1 << 20).slice(1); ${COUNT}`,
  "a new Uint8Array": `const u = new Uint8Array(1 << 22); ${COUNT}`,
  "a new Float64Array": `const u = new Float64Array(1 << 19); ${COUNT}`,
  "a DataView over a new ArrayBuffer": `const d = new DataView(new ArrayBuffer(1 << 22)); const u = { length: d.byteLength }; let n = 0; for (let i = 0; i < d.byteLength; i += 4) if (d.getUint32(i) !== 0) n++; n`,
  "an array whose length was set": `const a = []; a.length = 1e6; let n = 0; for (let i = 0; i < a.length; i++) if (a[i] !== undefined) n++; n`,
};

describe("nothing of a JavaScript pool run is readable by the next one", () => {
  it("gives the guest no SharedArrayBuffer and no Atomics, in pool runs, sessions and TypeScript", async () => {
    const probe = "[typeof SharedArrayBuffer, typeof Atomics, 'SharedArrayBuffer' in globalThis, 'Atomics' in globalThis]";
    expect((await sandbox.run(probe)).result).toEqual(["undefined", "undefined", false, false]);
    expect((await sandbox.run(probe, { language: "typescript" })).result).toEqual(["undefined", "undefined", false, false]);
    const session = await sandbox.createSession({ language: "javascript" });
    try {
      expect((await session.run(probe)).result).toEqual(["undefined", "undefined", false, false]);
    } finally {
      await session.dispose();
    }
    const grow = await sandbox.run("const ab = new SharedArrayBuffer(0, { maxByteLength: 1 << 22 }); ab.grow(1 << 22); 1");
    expect(grow.status).toBe("runtime_error");
    expect(grow.error?.message).toMatch(/SharedArrayBuffer/);
  });

  it.each(Object.entries(PROBES))("%s holds only zeros after another run's secrets", async (_name, code) => {
    expect((await sandbox.run(TENANT_A)).status).toBe("success");
    const r = await sandbox.run(code, { timeoutMs: 20_000 });
    expect(r.status, r.error?.message).toBe("success");
    expect(r.result).toBe(0);
  });
});
