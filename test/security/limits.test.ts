/**
 * Hostile programs that try to hang or exhaust the host: infinite loops, memory bombs, deep
 * recursion, output floods, promises that never settle and built-ins that never poll the
 * interrupt handler. Each must end with its own status within its limit (plus a grace
 * period), leave the host untouched and responsive, and leave the next run clean.
 */
import { describe, expect, it } from "vitest";
import { runHostile, useHostileSuite, type HostileCase } from "./harness.js";

const suite = useHostileSuite();

/** Time limit of the loop cases, and the most a run may take beyond it on a loaded machine. */
const LOOP_LIMIT_MS = 300;
const loop = (name: string, code: string, extra: Partial<HostileCase> = {}): HostileCase => ({
  name,
  code,
  options: { timeoutMs: LOOP_LIMIT_MS },
  statuses: ["timeout"],
  maxWallMs: LOOP_LIMIT_MS + 2500,
  check: (r) => expect(r.error?.name).toBeTruthy(),
  ...extra,
});

const infiniteLoops: HostileCase[] = [
  loop("while (true) {}", "while (true) {}"),
  loop("an endless chain of promise callbacks", "Promise.resolve().then(function again() { return Promise.resolve().then(again); });\n1", { statuses: ["timeout", "memory_limit"] }),
  loop("an async function awaiting in a loop", "(async () => { for (;;) await null; })();\n1"),
  loop("a loop in finally", "try { throw new Error('x'); } finally { for (;;) {} }"),
  loop("a loop that catches its own interruption", "for (;;) { try { for (;;) {} } catch (e) {} finally { continue; } }"),
  loop("catastrophic regex backtracking", '/(a+)+$/.test("a".repeat(40) + "b")'),
  loop("a loop inside toJSON of the result", "({ toJSON() { for (;;) {} } })"),
  loop("a loop inside a getter read by console.log", "console.log({ get x() { for (;;) {} } })"),
  loop("a host function that never settles", "await hang();\n1"),
  loop("unawaited host calls in a loop (a flood of host calls)", "for (let i = 0; ; i++) add(i, i);"),
  loop("Atomics.wait on a shared buffer", "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);\n1", {
    statuses: ["timeout", "runtime_error"],
    check: undefined,
  }),
];

const neverSettling: HostileCase[] = [
  {
    name: "a top-level await of a promise that never settles",
    code: "await new Promise(() => {});\n1",
    options: { timeoutMs: LOOP_LIMIT_MS },
    statuses: ["timeout", "runtime_error"],
    maxWallMs: LOOP_LIMIT_MS + 2500,
  },
  {
    name: "a script whose result is a promise that never settles",
    code: "new Promise(() => {})",
    options: { timeoutMs: LOOP_LIMIT_MS },
    statuses: ["timeout", "runtime_error"],
    maxWallMs: LOOP_LIMIT_MS + 2500,
  },
  {
    name: "an export default that never settles",
    code: "export default new Promise(() => {});",
    options: { timeoutMs: LOOP_LIMIT_MS },
    statuses: ["timeout", "runtime_error"],
    maxWallMs: LOOP_LIMIT_MS + 2500,
  },
];

/** Memory bombs run with a small limit; slow-to-fail allocators may end by the time limit. */
const bomb = (name: string, code: string, statuses: HostileCase["statuses"] = ["memory_limit", "timeout"]): HostileCase => ({
  name,
  code,
  options: { memoryLimitBytes: 16 * 1024 * 1024, timeoutMs: 2000 },
  statuses,
  maxWallMs: 2000 + 3000,
});

const memoryBombs: HostileCase[] = [
  bomb("an array of small objects", "const a = []; for (;;) a.push({ i: a.length, s: 'x' });"),
  bomb("a string doubling", "let s = 'x'; for (;;) s += s;", ["memory_limit", "runtime_error", "timeout"]),
  bomb("a flattened doubling string", "let s = 'xy'; for (;;) { s = s + s; s.charCodeAt(s.length - 1); s = s.split('').join(''); }", ["memory_limit", "runtime_error", "timeout"]),
  bomb("ArrayBuffers of 1 MiB", "const a = []; for (;;) a.push(new ArrayBuffer(1 << 20));"),
  bomb("one 2 GiB ArrayBuffer", "new ArrayBuffer(2 ** 31).byteLength", ["memory_limit", "runtime_error"]),
  bomb("typed arrays", "const a = []; for (;;) a.push(new Float64Array(1e5));"),
  bomb("a Map", "const m = new Map(); for (let i = 0; ; i++) m.set(i, 'v' + i);"),
  bomb("fresh 1 KB strings", "const a = []; for (let i = 0; ; i++) a.push(String(i).padEnd(1024, 'x'));"),
  bomb("Array(1e9).fill", "new Array(1e9).fill(0).length", ["memory_limit", "runtime_error", "timeout"]),
];

const recursion = (
  name: string,
  code: string,
  statuses: HostileCase["statuses"] = ["runtime_error"],
  timeoutMs = 3000,
): HostileCase => ({
  name,
  code,
  options: { timeoutMs },
  statuses,
  maxWallMs: timeoutMs + 3000,
});
/** Building 100k nested objects takes seconds on a loaded 2-core machine; give it room. */
const NESTING_TIMEOUT_MS = 15_000;

const deepRecursion: HostileCase[] = [
  recursion("plain recursion", "function f() { return f() + 1; }\nf()"),
  recursion("mutual recursion", "function a() { return b(); }\nfunction b() { return a(); }\na()"),
  recursion("recursion through toString", "const o = { toString() { return String(o); } };\nString(o)"),
  recursion("recursion through valueOf", "const o = { valueOf() { return o + 1; } };\no * 2"),
  recursion("recursion through a proxy trap", "const p = new Proxy({}, { get(t, k, r) { return r[k]; } });\np.x"),
  recursion("recursion through getters", "const o = {}; Object.defineProperty(o, 'x', { get() { return o.x; } });\no.x"),
  recursion("recursion that swallows every stack overflow", "function f() { try { f(); } catch { f(); } }\nf()", ["timeout", "runtime_error"]),
  recursion("recursion across await", "async function f(n) { return 1 + (await f(n + 1)); }\nawait f(0)", ["runtime_error", "memory_limit", "timeout"]),
  recursion(
    "JSON.stringify of a deeply nested object",
    "let o = {}; for (let i = 0; i < 1e5; i++) o = { o };\nJSON.stringify(o).length",
    ["runtime_error", "memory_limit"],
    NESTING_TIMEOUT_MS,
  ),
  recursion(
    "a deeply nested object as the result",
    "let a = []; for (let i = 0; i < 1e5; i++) a = [a];\na",
    ["success", "runtime_error", "memory_limit"],
    NESTING_TIMEOUT_MS,
  ),
  recursion("a deeply nested object in console.log", "let a = []; for (let i = 0; i < 1e5; i++) a = [a];\nconsole.log(a);\n1", ["success"]),
];

const OUTPUT_LIMIT = 10_000;
const flood = (name: string, code: string): HostileCase => ({
  name,
  code,
  options: { maxOutputBytes: OUTPUT_LIMIT, timeoutMs: 3000 },
  statuses: ["output_limit"],
  maxWallMs: 3000 + 3000,
  check: (r) => {
    expect(r.outputTruncated).toBe(true);
    expect(Buffer.byteLength(r.stdout) + Buffer.byteLength(r.stderr)).toBeLessThanOrEqual(OUTPUT_LIMIT);
    expect(r.stdout.length + r.stderr.length).toBeGreaterThan(0);
  },
});

const outputFloods: HostileCase[] = [
  flood("console.log in an endless loop", "for (;;) console.log('flood');"),
  flood("one huge line", "console.log('x'.repeat(5_000_000));"),
  flood("console.error in an endless loop", "for (;;) console.error('e');"),
  flood("output that swallows its own limit error", "for (;;) { try { console.log('y'.repeat(1000)); } catch (e) {} }"),
];

/** An error's text goes back to the caller (and often to a model): it must stay bounded. */
const MAX_ERROR_TEXT = 64 * 1024;
const errorFlood = (name: string, code: string): HostileCase => ({
  name,
  code,
  options: { timeoutMs: 10_000 },
  statuses: ["runtime_error"],
  check: (r) => {
    expect(r.error?.name.length ?? 0).toBeLessThanOrEqual(MAX_ERROR_TEXT);
    expect(r.error?.message.length ?? 0).toBeLessThanOrEqual(MAX_ERROR_TEXT);
    expect(r.error?.stack?.length ?? 0).toBeLessThanOrEqual(MAX_ERROR_TEXT);
  },
});
outputFloods.push(
  errorFlood("an error with a 20 MB message", "throw new Error('x'.repeat(20e6));"),
  errorFlood("a thrown 10 MB string", "throw 'y'.repeat(10e6);"),
  errorFlood("an error with a 1 MB name", "const e = new Error('m'); e.name = 'N'.repeat(1e6); throw e;"),
);

const nonPolling: HostileCase[] = [
  {
    name: "new Array(1e9).join('') never polls the interrupt handler",
    code: "new Array(1e9).join('').length",
    options: { timeoutMs: LOOP_LIMIT_MS, memoryLimitBytes: 256 * 1024 * 1024 },
    statuses: ["timeout"],
    maxWallMs: LOOP_LIMIT_MS + 2500,
  },
  {
    // Measured: about 3 s in this QuickJS build, none of it polling; 10n ** 1000000n is
    // refused at once ("BigInt is too large to allocate") and would test nothing.
    name: "(10n ** 300000n).toString() never polls the interrupt handler",
    code: "(10n ** 300000n).toString().length",
    options: { timeoutMs: LOOP_LIMIT_MS },
    statuses: ["timeout"],
    maxWallMs: LOOP_LIMIT_MS + 2500,
  },
];

describe("hostile programs: hanging and exhausting the host", () => {
  const groups: Array<[string, HostileCase[]]> = [
    ["infinite loops", infiniteLoops],
    ["never-settling promises", neverSettling],
    ["memory bombs", memoryBombs],
    ["deep recursion", deepRecursion],
    ["output floods", outputFloods],
    ["non-polling built-ins", nonPolling],
  ];
  for (const [group, cases] of groups) {
    describe(group, () => {
      for (const hostile of cases) it(hostile.name, () => runHostile(suite.sandbox, suite.probe, suite.baseline, hostile));
    });
  }

  it("keeps the host's event loop responsive while guest code spins", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    try {
      const result = await suite.sandbox.run("for (;;) {}", { timeoutMs: 500 });
      expect(result.status).toBe("timeout");
    } finally {
      clearInterval(timer);
    }
    // 500 ms of 10 ms ticks: a blocked loop would give none; allow for a loaded machine.
    expect(ticks).toBeGreaterThan(10);
  });

  it("keeps output produced before the time limit", async () => {
    const result = await suite.sandbox.run("console.log('before');\nfor (;;) {}", { timeoutMs: LOOP_LIMIT_MS });
    expect(result.status).toBe("timeout");
    expect(result.stdout).toBe("before\n");
  });

  it("keeps output produced before a non-polling built-in is killed", async () => {
    const result = await suite.sandbox.run("console.log('before');\n(10n ** 300000n).toString().length", { timeoutMs: LOOP_LIMIT_MS });
    expect(result.status).toBe("timeout");
    expect(result.stdout).toBe("before\n");
  });
});
