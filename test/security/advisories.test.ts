/**
 * The 2025–2026 QuickJS and QuickJS-NG advisories with public reproducers, run against the
 * engine the sandbox ships: quickjs-emscripten 0.32.0, variant @jitl/quickjs-wasmfile-release-sync,
 * which vendors bellard/quickjs 2025-09-13 at commit f1139494 (see docs/security.md for the
 * table and for why the QuickJS-NG variant was not taken). None of these is fixed in that
 * build; each test shows the program ends with a status, the host is untouched and the next run
 * starts clean. Reproducers are the reports' own, with `gc()` (not in the sandbox) replaced by
 * allocation that makes the collector run, and truncated ones completed after their description.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runHostile, useHostileSuite, type HostileCase } from "./harness.js";

const suite = useHostileSuite();
const slow = { timeoutMs: 3000 };

/** Memory bugs that stay inside the WASM instance: wrong results at worst, never a host fault. */
const inProcess: (HostileCase & { advisory: string })[] = [
  {
    advisory: "bellard/quickjs#477, quickjs-ng#1297: TypedArray.prototype.sort, comparator shrinks a resizable buffer",
    name: "typed-array sort with a resize in the comparator",
    code: `const sz = 256;
const ab = new ArrayBuffer(sz, { maxByteLength: sz * 10 });
const u8 = new Uint8Array(ab);
const errors = [];
for (const trigger of [1, 100, 500, 1000, 1734, 2000]) {
  ab.resize(sz);
  for (let i = 0; i < sz; i++) u8[i] = i;
  u8[sz - 1] = 0;
  let cnt = 0;
  try { u8.sort((a, b) => { if (++cnt === trigger) ab.resize(10); return a - b; }); } catch (e) { errors.push(e.name); }
}
[errors.length, u8.length]`,
    statuses: ["success", "runtime_error"],
    options: slow,
  },
  {
    advisory: "bellard/quickjs#478, quickjs-ng#1296: TypedArray constructor, prototype getter resizes the buffer",
    name: "typed-array constructor whose new.target.prototype getter shrinks the buffer",
    code: `const ab = new ArrayBuffer(10, { maxByteLength: 10 });
function f() { return 1337; }
const evil = f.bind();
Object.defineProperty(evil, "prototype", { get: () => { ab.resize(); return Uint8Array.prototype; } });
const u8 = Reflect.construct(Uint8Array, [ab], evil);
[u8.length, Array.from(u8)]`,
    statuses: ["success", "runtime_error"],
  },
  {
    advisory: "bellard/quickjs#492: TypedArray.prototype.with, valueOf shrinks the buffer (heap over-read)",
    name: "typed-array with() after the buffer shrank",
    code: `const ab = new ArrayBuffer(4096, { maxByteLength: 4096 });
const ta = new Int32Array(ab);
ta.fill(0x41414141);
const r = ta.with(0, { valueOf() { ab.resize(4); return 7; } });
[r.length, r[0]]`,
    statuses: ["success", "runtime_error"],
  },
  {
    advisory: "bellard/quickjs#480, #508, quickjs-ng#1301, #1302: Atomics with a resizable buffer (use after free)",
    name: "Atomics.add and Atomics.store while valueOf shrinks the buffer",
    code: `const rab = new ArrayBuffer(1024, { maxByteLength: 1024 * 1024 });
const i32 = new Int32Array(rab);
const evil = { valueOf: () => { rab.resize(0); return 123; } };
Atomics.add(i32, 0, evil);
Atomics.store(i32, 0, evil);`,
    statuses: ["runtime_error"],
    // The Emscripten build leaves Atomics out (quickjs.c defines CONFIG_ATOMICS only off Emscripten).
    check: (result) => expect(result.error?.message).toMatch(/Atomics/),
  },
  {
    advisory: "bellard/quickjs#488, quickjs-ng#1396: stack underflow with yield in a for-of head",
    name: "generator returned while suspended in a for-of head",
    code: `function* x() {
  for (var e of yield []);
}
const g = x();
g.next();
g.return("test");`,
    statuses: ["runtime_error"],
    check: (result) => expect(result.error?.message).toMatch(/stack underflow/),
  },
];

/**
 * Bugs of the collector and the allocator, whose worst case is an abort or a trap of the WASM
 * engine: each runs in a child process with a sandbox of its own.
 */
const inChild: { advisory: string; name: string; code: string; statuses: string[]; message?: RegExp }[] = [
  {
    advisory: "bellard/quickjs#535 (open), quickjs-ng#1609: Proxy ownKeys length overflows the allocation size on 32-bit hosts (wasm32 is one)",
    name: "proxy-ownkeys-overflow",
    code: `const arrayLike = new Proxy({}, { get(t, k) { return k === "length" ? 0x20000000 : "k" + String(k); } });
Reflect.ownKeys(new Proxy({}, { ownKeys() { return arrayLike; } })).length`,
    // Measured: the engine aborts (malloc of size 0 is asserted); the worker is replaced.
    statuses: ["runtime_error"],
    message: /Aborted|crashed/,
  },
  {
    advisory: "quickjs-ng#1400: mapped arguments marked by the collector while their frame is live",
    name: "mapped-arguments-gc",
    code: `function f(a) {
  arguments;
  const keep = [];
  for (let i = 0; i < 20000; i++) keep.push({ i, s: "x" + i });
  return keep.length;
}
let n = 0;
for (let k = 0; k < 20; k++) n += f(k);
n`,
    statuses: ["success", "runtime_error", "memory_limit"],
  },
  {
    advisory: "quickjs-ng#1562: Array length grown then push, reference count underflow in the collector",
    name: "array-length-grow-push",
    code: `const keep = [];
for (let i = 0; i < 30; i++) { const a = [0]; a.length = 245; a.push(2); keep.push(a); }
const junk = [];
for (let i = 0; i < 200000; i++) junk.push({ i });
keep.length`,
    statuses: ["success", "runtime_error", "memory_limit"],
  },
  {
    advisory: "bellard/quickjs#471: collector walks an uninitialised fast array (toReversed, toSorted, toSpliced, with)",
    name: "fast-array-gc-during-construction",
    code: `const out = [];
for (const method of ["toReversed", "toSorted", "toSpliced", "with"]) {
  const o = { length: 2000 };
  for (let i = 0; i < 2000; i++) Object.defineProperty(o, i, { get() { const junk = []; for (let j = 0; j < 50; j++) junk.push({ j }); return i; } });
  const args = method === "with" ? [0, 1] : method === "toSpliced" ? [0, 0] : [];
  out.push(Array.prototype[method].call(o, ...args).length);
}
out`,
    statuses: ["success", "runtime_error", "memory_limit"],
  },
];

interface ChildReport {
  runs: { name: string; status: string; message?: string; next: { status: string; result: unknown } }[];
  rssBytes: number;
}

function runInChild(programs: { name: string; code: string }[]): Promise<{ code: number | null; report?: ChildReport; stderr: string }> {
  const script = fileURLToPath(new URL("./fixtures/advisory-child.mjs", import.meta.url));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => {
      const line = stdout.trim().split("\n").pop() ?? "";
      let report: ChildReport | undefined;
      try {
        report = JSON.parse(line) as ChildReport;
      } catch {
        report = undefined;
      }
      resolve({ code, report, stderr: stderr.slice(-2000) });
    });
    child.stdin.end(JSON.stringify(programs));
  });
}

describe("QuickJS advisories (bellard/quickjs 2025-09-13+f1139494 in quickjs-emscripten 0.32.0)", () => {
  describe("memory bugs stay inside the engine: a status, the host untouched, the next run clean", () => {
    for (const { advisory, ...hostile } of inProcess) {
      it(`${advisory}`, () => runHostile(suite.sandbox, suite.probe, suite.baseline, hostile));
    }
  });

  it("collector and allocator bugs end as a status in a child process that survives, and its next runs are clean", { timeout: 120_000 }, async () => {
    const { code, report, stderr } = await runInChild(inChild.map(({ name, code }) => ({ name, code })));
    expect(code, stderr).toBe(0);
    expect(report, stderr).toBeDefined();
    for (const expected of inChild) {
      const run = report!.runs.find((r) => r.name === expected.name);
      expect(run, `${expected.advisory}: no result`).toBeDefined();
      expect(expected.statuses, `${expected.advisory}: ${JSON.stringify(run)}`).toContain(run!.status);
      if (expected.message) expect(run!.message).toMatch(expected.message);
      // The next run is served (the worker was replaced if it had to be) and starts clean.
      expect(run!.next).toEqual({ status: "success", result: [42, "undefined", 0] });
    }
    // An engine that aborted took its WASM heap with it; the process itself stays bounded.
    expect(report!.rssBytes).toBeLessThan(1024 * 1024 * 1024);
  });
});
