/**
 * Fresh runs served from a pristine image (src/sandbox/js/worker/fresh-image.ts), differentially:
 * after each hostile program (the security suites' own programs, read from their files, and the
 * attacks below), and after a run ends by timeout, memory limit, cancellation or a killed
 * worker, a fingerprint of everything a run can observe equals a brand-new context's (a pool
 * worker that makes a new runtime + context per run).
 */
import { readFileSync } from "node:fs";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJavaScriptEngine, type JavaScriptEngine } from "../../../src/sandbox/js/host/engine.js";
import { resolveRunOptions } from "../../../src/sandbox/options.js";
import type { ExecutionResult, RunOptions } from "../../../src/index.js";
import { HostProbe } from "../../security/harness.js";
import { JS_MEMORY_ATTACKS } from "../../security/fixtures/js-memory-attacks.mjs";
import { CORPUS } from "./fidelity/corpus.js";

/**
 * Describes the realm: every object reachable from the global object through own properties,
 * accessors and prototypes, each with its own keys, their attributes and kinds, primitive values,
 * extensibility; then what does not live in properties (Date, error stacks, `for-in` of a plain
 * object, Math.random's first reading, returned apart because it must differ). It awaits first, so
 * promise jobs an earlier run left queued would run (and show) before it looks.
 */
const FINGERPRINT = `
for (let i = 0; i < 20; i++) await null;
const seen = new Set();
const lines = [];
const nativeText = (f) => { try { return Function.prototype.toString.call(f).includes("[native code]") ? "native" : "js"; } catch { return "untextable"; } };
const kindOf = (v) => v === null ? "null" : typeof v === "function" ? "function:" + nativeText(v) : typeof v === "object" ? "object" : typeof v + ":" + String(v);
const walk = [[globalThis, "globalThis"]];
while (walk.length > 0) {
  const [o, path] = walk.pop();
  if (seen.has(o)) continue;
  seen.add(o);
  const proto = Object.getPrototypeOf(o);
  lines.push(path + " extensible=" + Object.isExtensible(o) + " frozen=" + Object.isFrozen(o) + " proto=" + (proto === null ? "null" : typeof proto));
  if (proto !== null) walk.push([proto, path + ".[[proto]]"]);
  for (const k of Reflect.ownKeys(o)) {
    const d = Reflect.getOwnPropertyDescriptor(o, k);
    const name = path + "." + String(k);
    const flags = (d.enumerable ? "e" : "-") + (d.configurable ? "c" : "-") + ("value" in d ? (d.writable ? "w" : "-") : "a");
    if ("value" in d) {
      lines.push(name + " " + flags + " " + kindOf(d.value));
      if (d.value !== null && (typeof d.value === "object" || typeof d.value === "function")) walk.push([d.value, name]);
    } else {
      lines.push(name + " " + flags + " get=" + kindOf(d.get) + " set=" + kindOf(d.set));
      if (d.get) walk.push([d.get, name + ".get"]);
      if (d.set) walk.push([d.set, name + ".set"]);
    }
  }
}
lines.sort();
const forIn = []; for (const k in {}) forIn.push(k);
const stack = (() => { try { null.x; } catch (e) { return [e.name, e.message, String(e.stack)]; } })();
const extras = {
  forIn, stack, made: String(new Error("m").stack),
  date: [new Date(0).toISOString(), new Date(2020, 0, 1).getTimezoneOffset(), typeof Date.now(), Date.now() > 1.6e12, String(new Date(NaN))],
  symbols: [Symbol.keyFor(Symbol.iterator), typeof Symbol.for("fingerprint"), Symbol.keyFor(Symbol.for("fingerprint"))],
  random: [typeof Math.random(), nativeText(Math.random)],
  json: JSON.stringify({ a: [1, "x", null], b: { c: true } }),
  regexp: [/a(b)?/.exec("ab").length, "aXbX".replace(/X/g, "-")],
};
export default { lines: lines.join("\\n"), extras, firstRandom: Math.random() };
`;

interface Fingerprint {
  lines: string;
  extras: unknown;
  firstRandom: number;
}

/** The `code` strings of the hostile cases in a suite's file (its `HostileCase` literals), read as text. */
function hostileCodesIn(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(new URL(file, import.meta.url), "utf8"), ts.ScriptTarget.Latest, true);
  const codes: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node) && node.name.getText() === "code" && (ts.isStringLiteral(node.initializer) || ts.isNoSubstitutionTemplateLiteral(node.initializer))) {
      codes.push(node.initializer.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return codes;
}

/** Attacks on what a reused context could carry into the next run. */
const OWN_ATTACKS: string[] = [
  "Object.prototype.polluted = 1; Array.prototype.evil = () => 1; 0",
  "Object.defineProperty(Object.prototype, 'x', { get() { return 'leak'; }, configurable: false }); 0",
  "Object.freeze(Object.prototype); Object.freeze(Array.prototype); Object.freeze(globalThis); 0",
  "Object.preventExtensions(Math); Object.seal(JSON); 0",
  "globalThis.globalThis = 1; globalThis.undefinedish = undefined; 0",
  "Object.defineProperty(globalThis, 'console', { value: { log() {} } }); 0",
  "delete globalThis.JSON; delete globalThis.Math; delete Array.prototype.map; 0",
  "Function.prototype.toString = () => 'function () { [native code] }'; 0",
  "Error.prepareStackTrace = () => 'forged'; Error.captureStackTrace = () => {}; Error.stackTraceLimit = 0; 0",
  "Object.defineProperty(Error.prototype, 'stack', { get() { return 'forged'; } }); 0",
  "Symbol.prototype.toString = () => 'x'; Symbol.for('evil'); Symbol.for('fingerprint').description; 0",
  "for (let i = 0; i < 20000; i++) Symbol.for('reg' + i); 0",
  "const o = {}; for (let i = 0; i < 50000; i++) o['atom' + i] = i; 0",
  "globalThis['x'.repeat(1 << 20)] = 1; 0",
  "const s = 'y'.repeat(1 << 22); globalThis[s] = s; ({ [s]: 1 }); 0",
  "Promise.resolve().then(function again() { globalThis.leaked = (globalThis.leaked ?? 0) + 1; return Promise.resolve().then(again); }); 0",
  "new Promise(() => {}); Promise.reject(new Error('never handled')); 0",
  "(async () => { for (;;) await null; })(); 0",
  "const r = new FinalizationRegistry(() => { globalThis.finalized = true; }); for (let i = 0; i < 1000; i++) r.register({}, i); globalThis.keep = r; 0",
  "globalThis.ref = new WeakRef({ big: 'z'.repeat(1000) }); const w = new WeakMap(); w.set(Object, 1); 0",
  "Math.random = () => 0.5; Date.now = () => 0; Date.prototype.getTime = () => 0; 0",
  "Object.setPrototypeOf(Object.prototype, null); 0",
  "Object.setPrototypeOf(globalThis, new Proxy({}, { get: (t, k) => 'trap:' + String(k), has: () => true })); 0",
  "Array.prototype[Symbol.iterator] = function* () { yield 'forged'; }; 0",
  "Promise.prototype.then = function () { globalThis.thenCalled = true; }; 0",
  "JSON.stringify = () => '\"forged\"'; JSON.parse = () => 'forged'; 0",
  "String.prototype.replace = function () { return 'forged'; }; RegExp.prototype.exec = () => null; 0",
  "var declared = 1; function declaredFunction() {} class Declared {} 0",
  "let lexical = 1; const alsoLexical = 2; 0",
  "Reflect.defineProperty(globalThis, 'Symbol', { value: undefined }); 0",
  "Intl.NumberFormat.prototype.format = () => 'forged'; (1).toLocaleString('de-DE')",
  "Object.defineProperty(Object, 'keys', { value: () => [] }); Object.getOwnPropertyNames = () => []; 0",
  "Reflect.ownKeys = () => []; Reflect.getOwnPropertyDescriptor = () => undefined; 0",
  "const big = []; for (let i = 0; i < 200000; i++) big.push({ i, s: 'str' + i }); big.length",
  "const a = new ArrayBuffer(8 << 20); new Uint8Array(a).fill(0x41); a.byteLength",
  "const shapes = []; for (let i = 0; i < 5000; i++) { const o = {}; o['p' + (i % 97)] = i; o['q' + i] = i; shapes.push(o); } 0",
  "globalThis.__proto__ = null; 0",
  "throw new Error('thrown at the end')",
  "throw null",
  "(function f() { f(); })()",
  "export default await new Promise((r) => r(globalThis.later = 1));",
  "console.log('x'.repeat(100000)); console.error('e'); 0",
  "console = undefined; 0",
];

/** Built-ins whose prototypes and statics an attack replaces, extends and freezes, one program each. */
const BUILT_INS = [
  "Object", "Function", "Array", "String", "Number", "Boolean", "Symbol", "BigInt", "Date", "RegExp", "Error", "TypeError",
  "RangeError", "SyntaxError", "Map", "Set", "WeakMap", "WeakSet", "WeakRef", "FinalizationRegistry", "Promise", "Proxy",
  "ArrayBuffer", "DataView", "Uint8Array", "Int32Array", "Float64Array", "BigInt64Array", "Iterator", "AggregateError",
];
const BUILT_IN_ATTACKS = BUILT_INS.flatMap((name) => [
  `const C = globalThis.${name}; if (C.prototype) { C.prototype.injected = 1; Object.defineProperty(C.prototype, Symbol.toStringTag, { value: 'forged', configurable: true }); for (const k of Reflect.ownKeys(C.prototype)) { try { C.prototype[k] = undefined; } catch {} } Object.freeze(C.prototype); } C.injected = 2; Object.freeze(C); 0`,
  `const C = globalThis.${name}; for (const k of Reflect.ownKeys(C)) { try { delete C[k]; } catch {} } if (C.prototype) Object.setPrototypeOf(C.prototype, null); globalThis.${name} = function forged() {}; 0`,
]);

const LIMITS = { timeoutMs: 1000, memoryLimitBytes: 32 * 1024 * 1024 } satisfies RunOptions;

describe("fresh runs from the pristine image", () => {
  let image: JavaScriptEngine;
  let fresh: JavaScriptEngine;
  let probe: HostProbe;
  let baseline: Fingerprint;
  const randoms = new Set<number>();

  const run = (engine: JavaScriptEngine, code: string, options: RunOptions = {}): Promise<ExecutionResult> =>
    engine.run(code, resolveRunOptions({ ...LIMITS, ...options }));
  const fingerprint = async (engine: JavaScriptEngine): Promise<Fingerprint> => {
    const r = await run(engine, FINGERPRINT, { maxResultBytes: 8 * 1024 * 1024, timeoutMs: 10_000 });
    expect(r.status, JSON.stringify(r.error)).toBe("success");
    return r.result as unknown as Fingerprint;
  };
  /** The image's fingerprint now equals a brand-new context's, and its Math.random is not a replay. */
  const expectClean = async (after: string): Promise<void> => {
    const now = await fingerprint(image);
    if (now.lines !== baseline.lines) {
      const was = new Set(baseline.lines.split("\n"));
      const is = new Set(now.lines.split("\n"));
      const diff = [...[...is].filter((l) => !was.has(l)).map((l) => `+ ${l}`), ...[...was].filter((l) => !is.has(l)).map((l) => `- ${l}`)];
      expect.fail(`after ${after.slice(0, 120)}: the realm differs from a new context's:\n${diff.slice(0, 20).join("\n")}`);
    }
    expect(now.extras, after).toEqual(baseline.extras);
    expect(randoms.has(now.firstRandom), `after ${after.slice(0, 120)}: Math.random repeated an earlier run's sequence`).toBe(false);
    randoms.add(now.firstRandom);
  };

  beforeAll(async () => {
    image = createJavaScriptEngine({ poolSize: 1, freshRuns: "image" });
    fresh = createJavaScriptEngine({ poolSize: 1, freshRuns: "context" });
    probe = new HostProbe();
    await Promise.all([image.warm(), fresh.warm()]);
    baseline = await fingerprint(fresh);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([image?.dispose(), fresh?.dispose()]);
    probe?.dispose();
  });

  it("serves runs from the image, and a new context's fingerprint is stable", async () => {
    expect(image.freshRunModes()).toEqual(["image"]);
    expect(fresh.freshRunModes()).toEqual(["context"]);
    expect((await fingerprint(fresh)).lines).toBe(baseline.lines);
    expect(baseline.lines.split("\n").length).toBeGreaterThan(1000);
    await expectClean("nothing");
  });

  it("leaves nothing of any hostile program for the next run", { timeout: 600_000 }, async () => {
    const programs = [
      ...hostileCodesIn("../../security/escape.test.ts"),
      ...hostileCodesIn("../../security/limits.test.ts"),
      ...hostileCodesIn("../../security/advisories.test.ts"),
      ...hostileCodesIn("../../security/js-intl-host.test.ts"),
      ...hostileCodesIn("../../security/js-outcomes.test.ts"),
      ...Object.values(JS_MEMORY_ATTACKS).map((a) => a.code),
      ...OWN_ATTACKS,
      ...BUILT_IN_ATTACKS,
    ];
    expect(programs.length).toBeGreaterThanOrEqual(150);
    const statuses = new Map<string, number>();
    for (const code of programs) {
      const r = await run(image, code, { globals: probe.globals(), hostFunctions: probe.hostFunctions() });
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      probe.expectHostUntouched();
      await expectClean(code);
    }
    // The corpus reaches every kind of ending, and the pool kept serving from an image.
    for (const status of ["success", "runtime_error", "timeout", "memory_limit"]) expect(statuses.get(status), JSON.stringify([...statuses])).toBeGreaterThan(0);
    expect(image.freshRunModes()).toEqual(["image"]);
  });

  it("is clean after a timeout, a memory limit, a cancellation, a killed worker and a memory that grew", { timeout: 120_000 }, async () => {
    expect((await run(image, "globalThis.spin = 1; for (;;) {}", { timeoutMs: 200 })).status).toBe("timeout");
    await expectClean("timeout");
    expect((await run(image, "globalThis.big = []; for (;;) big.push({ s: 'm' + big.length });", { memoryLimitBytes: 8 * 1024 * 1024 })).status).toBe("memory_limit");
    await expectClean("memory_limit");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    expect((await run(image, "globalThis.cancelled = 1; for (;;) {}", { signal: controller.signal, timeoutMs: 5000 })).status).toBe("cancelled");
    await expectClean("cancelled");
    // An operation that never polls the interrupt: only killing the worker stops it.
    expect((await run(image, "globalThis.killed = 1; new Array(1e9).join('x').length", { timeoutMs: 200 })).status).toMatch(/timeout|memory_limit/);
    await expectClean("killed worker");
    expect((await run(image, "const a = []; for (let i = 0; i < 24; i++) a.push(new Uint8Array(1 << 20).fill(1)); a.length", { memoryLimitBytes: 64 * 1024 * 1024 })).result).toBe(24);
    await expectClean("grown memory");
    expect(image.freshRunModes()).toEqual(["image"]);
  });

  it("leaves nothing of the fidelity corpus's programs for the next run", { timeout: 300_000 }, async () => {
    for (const [id, code] of CORPUS) {
      await run(image, code, { timeoutMs: 5000 });
      await expectClean(id);
    }
  });

  it("gives the same results as a new context run after run, programs differing every run", async () => {
    for (let i = 0; i < 50; i++) {
      const code = `const o = { i: ${i} }; o.j = o.i * 2; console.log(o.j); [o, typeof leftover, globalThis.leftover = ${i}]`;
      const [a, b] = [await run(image, code), await run(fresh, code)];
      expect({ status: a.status, result: a.result, stdout: a.stdout }).toEqual({ status: b.status, result: b.result, stdout: b.stdout });
    }
  });
});
