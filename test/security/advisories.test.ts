/**
 * The 2025–2026 QuickJS and QuickJS-NG advisories with public reproducers, run against the
 * engine the sandbox ships: quickjs-emscripten 0.32.0, variant @jitl/quickjs-wasmfile-release-sync,
 * which vendors bellard/quickjs 2025-09-13 at commit f1139494 (see docs/security.md for the
 * table and for why the QuickJS-NG variant was not taken). None of these is fixed in that
 * build; each test shows the program ends with a status, the host is untouched and the next run
 * starts clean. The programs are written after the reports' descriptions, with `gc()` (not in
 * the sandbox) replaced by allocation that makes the collector run.
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
    code: `const full = 256;
const buffer = new ArrayBuffer(full, { maxByteLength: full * 10 });
const bytes = new Uint8Array(buffer);
const thrown = [];
// Shrink the buffer at different points of the sort, once large indexes have moved to the front.
for (const shrinkAt of [1, 100, 500, 1000, 1734, 2000]) {
  buffer.resize(full);
  bytes.forEach((_, i) => { bytes[i] = i === full - 1 ? 0 : i; });
  let comparisons = 0;
  try {
    bytes.sort((x, y) => { comparisons += 1; if (comparisons === shrinkAt) buffer.resize(10); return x - y; });
  } catch (e) { thrown.push(e.name); }
}
[thrown.length, bytes.length]`,
    // resize is gone from the guest (js-typed-array-reach.test.ts): the buffer cannot shrink.
    statuses: ["runtime_error"],
    check: (result) => expect(result.error?.message).toMatch(/not a function/),
    options: slow,
  },
  {
    advisory: "bellard/quickjs#478, quickjs-ng#1296: TypedArray constructor, prototype getter resizes the buffer",
    name: "typed-array constructor whose new.target.prototype getter shrinks the buffer",
    code: `const buffer = new ArrayBuffer(10, { maxByteLength: 10 });
// A bound function has no own prototype: reading new.target.prototype runs our getter, which
// empties the buffer after the constructor has checked its length.
const target = (function () {}).bind(null);
Object.defineProperty(target, "prototype", { get() { buffer.resize(0); return Uint8Array.prototype; } });
const view = Reflect.construct(Uint8Array, [buffer], target);
[view.length, Array.from(view)]`,
    // resize is gone from the guest (js-typed-array-reach.test.ts): the buffer cannot shrink.
    statuses: ["runtime_error"],
    check: (result) => expect(result.error?.message).toMatch(/not a function/),
  },
  {
    advisory: "bellard/quickjs#492: TypedArray.prototype.with, valueOf shrinks the buffer (heap over-read)",
    name: "typed-array with() after the buffer shrank",
    code: `const buffer = new ArrayBuffer(4096, { maxByteLength: 4096 });
const words = new Int32Array(buffer).fill(-1);
// The replacement value's valueOf runs after with() read the length: shrink the buffer then.
const copy = words.with(0, { valueOf() { buffer.resize(4); return 7; } });
[copy.length, copy[0]]`,
    // resize is gone from the guest (js-typed-array-reach.test.ts): the buffer cannot shrink.
    statuses: ["runtime_error"],
    check: (result) => expect(result.error?.message).toMatch(/not a function/),
  },
  {
    advisory: "bellard/quickjs#480, #508, quickjs-ng#1301, #1302: Atomics with a resizable buffer (use after free)",
    name: "Atomics.add and Atomics.store while valueOf shrinks the buffer",
    code: `const buffer = new ArrayBuffer(1024, { maxByteLength: 4096 });
const cells = new Int32Array(buffer);
const shrinking = { valueOf() { buffer.resize(0); return 5; } };
Atomics.add(cells, 0, shrinking);
Atomics.store(cells, 0, shrinking);`,
    statuses: ["runtime_error"],
    // The Emscripten build leaves Atomics out (quickjs.c defines CONFIG_ATOMICS only off Emscripten).
    check: (result) => expect(result.error?.message).toMatch(/Atomics/),
  },
  {
    advisory: "bellard/quickjs#488, quickjs-ng#1396: stack underflow with yield in a for-of head",
    name: "generator returned while suspended in a for-of head",
    code: `function* head() {
  // The yield sits in the for-of head: the loop has not started when the generator returns.
  for (const item of yield [1, 2]) item;
}
const it = head();
it.next();
it.return(0);`,
    statuses: ["runtime_error"],
    check: (result) => expect(result.error?.message).toMatch(/stack underflow/),
  },
  {
    advisory: "quickjs-ng ad874ef (2026-08-18, tests/bug1672): Array.prototype methods on a huge array-like never poll the interrupt handler",
    name: "lastIndexOf, indexOf and includes over 2^32 - 1 missing elements",
    code: `const huge = { length: 2 ** 32 - 1 };
[Array.prototype.lastIndexOf.call(huge, 42), Array.prototype.indexOf.call(huge, 42), Array.prototype.includes.call(huge, 42)]`,
    // Not fixed in bellard/quickjs: only the watchdog, which kills the thread, ends it.
    statuses: ["timeout"],
    options: { timeoutMs: 300 },
    maxWallMs: 10_000,
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
    advisory: "quickjs-ng#1355 (bellard e7b9f21): async generator re-entered from a `then` getter while it resolves (use after free)",
    name: "async-generator-reentry",
    code: `const gates = [0, 1, 2].map(() => { let open; const p = new Promise((r) => { open = r; }); return { p, open }; });
let gen;
let calls = 0;
let busy = false;
// Every promise resolution looks up "then": re-enter the generator from inside that lookup.
Object.defineProperty(Object.prototype, "then", {
  configurable: true,
  get() {
    if (busy || gen === undefined) return undefined;
    busy = true;
    try {
      if (calls === 0) gen.return("early");
      else if (calls === 1) { gen.next("again"); gen.return("late"); }
      calls++;
    } catch {}
    busy = false;
    return undefined;
  },
});
async function* body() {
  try {
    await gates[0].p;
    yield "first";
    await gates[1].p;
    yield "second";
    await gates[2].p;
  } finally {
    await gates[2].p;
  }
}
gen = body();
gen.next();
gates[0].open({});
await null;
await null;
gates[1].open({});
gates[2].open({});
await null;
calls`,
    // Measured: QuickJS aborts on an assertion; the worker is replaced.
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
    code: `const kept = [];
for (let round = 0; round < 30; round++) {
  const grown = [round];
  grown.length = 245; // holes at the end of a fast array
  grown.push(round);
  kept.push(grown);
}
const churn = [];
for (let i = 0; i < 200000; i++) churn.push({ i });
kept.length`,
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
