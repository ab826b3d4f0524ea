/**
 * Hostile programs that try to reach the host: constructor chains, eval, errors and values of
 * host functions, proxies, stack-trace hooks, symbol protocols, dynamic imports and prototype
 * pollution. Each must fail inside the sandbox, leave the host untouched, and leave the next
 * run clean.
 */
import { describe, expect, it } from "vitest";
import { runCode, type JsonValue } from "../../src/index.js";
import { runHostile, useHostileSuite, type HostileCase } from "./harness.js";

const suite = useHostileSuite();

/** Code that uses whatever `EXPR` yields as Node's `process` to write the marker file. */
function escapeThrough(expr: string): string {
  return `const p = (${expr});\np.getBuiltinModule("fs").writeFileSync(MARKER, "escaped");\n"escaped"`;
}

/** Asserts the guest reported that the host's names are absent from its realm. */
const allUndefined = (result: { result?: JsonValue }) => {
  expect(result.result).toEqual(expect.any(Array));
  for (const value of result.result as JsonValue[]) expect(value).toBe("undefined");
};

const HOST_NAMES = `["process", "require", "module", "exports", "Buffer", "global", "setTimeout", "setImmediate", "fetch", "WebAssembly", "std", "os", "bridge", "__dirname"]`;

const constructorChains: HostileCase[] = [
  { name: "this.constructor.constructor('return process')()", code: escapeThrough(`this.constructor.constructor("return process")()`), statuses: ["runtime_error"] },
  { name: "({}).constructor.constructor('return process')()", code: escapeThrough(`({}).constructor.constructor("return process")()`), statuses: ["runtime_error"] },
  { name: "Function('return this')() has no host globals", code: `const g = Function("return this")();\n${HOST_NAMES}.map((n) => typeof g[n])`, statuses: ["success"], check: allUndefined },
  { name: "direct eval", code: escapeThrough(`eval("process")`), statuses: ["runtime_error"] },
  { name: "indirect eval of this", code: `const g = (0, eval)("this");\n${HOST_NAMES}.map((n) => typeof g[n])`, statuses: ["success"], check: allUndefined },
  { name: "async function constructor", code: escapeThrough(`await (async function () {}).constructor("return process")()`), statuses: ["runtime_error"] },
  { name: "generator function constructor", code: escapeThrough(`(function* () {}).constructor("yield process")().next().value`), statuses: ["runtime_error"] },
  { name: "async generator function constructor", code: escapeThrough(`(await (async function* () {}).constructor("yield process")().next()).value`), statuses: ["runtime_error"] },
  { name: "console.log's constructor chain", code: escapeThrough(`console.log.constructor("return process")()`), statuses: ["runtime_error"] },
  { name: "a host function's constructor chain", code: escapeThrough(`add.constructor.constructor("return process")()`), statuses: ["runtime_error"] },
  { name: "a host function's promise constructor chain", code: escapeThrough(`add(1, 2).constructor.constructor.constructor("return process")()`), statuses: ["runtime_error"] },
  {
    name: "caller of a getter run by console.log (reaching the prelude's bridge)",
    code: `const seen = [];
const o = { get x() { try { const c = arguments.callee.caller; seen.push(typeof c); if (typeof c === "function") c(1, "add", "[1,2]"); } catch (e) { seen.push("threw " + e.name); } return 1; } };
console.log(o);
function f() { try { return typeof f.caller; } catch (e) { return "threw"; } }
seen.concat([f()])`,
    statuses: ["success"],
    check: (r) => {
      for (const v of r.result as string[]) expect(v).not.toBe("function");
    },
  },
];

const hostFunctionValues: HostileCase[] = [
  {
    name: "a host error's prototype chain, constructor and stack hold nothing of the host",
    code: `let out = "no throw";
try { await boom(); } catch (e) {
  out = [typeof e, e instanceof Error, Object.getPrototypeOf(Object.getPrototypeOf(e)) === Object.prototype || Object.getPrototypeOf(e) === Error.prototype,
   e.constructor.constructor("return typeof process")(), typeof e.hostFunction, typeof e.hostObject,
   String(e.stack ?? ""), String(e.message)];
}
out`,
    statuses: ["success"],
    check: (r) => {
      const [kind, isError, plainProto, processType, fnType, objType, stack] = r.result as JsonValue[];
      expect(kind).toBe("object");
      expect(isError).toBe(true);
      expect(plainProto).toBe(true);
      expect(processType).toBe("undefined");
      expect(fnType).not.toBe("function");
      expect(objType).not.toBe("function");
      // The host's stack (its file paths and frames) must not be handed to the guest.
      expect(String(stack)).not.toMatch(/node:internal|node_modules|\.ts:\d+|file:\/\//);
    },
  },
  {
    name: "a host function that throws a value with no string form (Object.create(null))",
    code: `let out = "no throw";\ntry { await throwBare(); } catch (e) { out = typeof e; }\nout`,
    statuses: ["success"],
    options: { timeoutMs: 3000 },
    check: (r) => expect(r.result).toBe("object"),
  },
  {
    name: "a host function that throws an object whose name and message getters throw",
    code: `let out = "no throw";\ntry { await throwTrap(); } catch (e) { out = typeof e; }\nout`,
    statuses: ["success"],
    options: { timeoutMs: 3000 },
    check: (r) => expect(r.result).toBe("object"),
  },
  {
    name: "a host error used as an escape route",
    code: escapeThrough(`await boom().catch((e) => e.constructor.constructor("return process")())`),
    statuses: ["runtime_error"],
  },
  {
    name: "a host function returning `process` gives at most a JSON copy",
    code: `let v; try { v = await leakProcess(); } catch (e) { v = "threw " + e.name; }
const kinds = v && typeof v === "object" ? [typeof v.exit, typeof v.getBuiltinModule, typeof v.binding] : [typeof v];
kinds`,
    statuses: ["success", "runtime_error"],
    check: (r) => {
      for (const v of (r.result ?? []) as string[]) expect(v).not.toBe("function");
    },
  },
  {
    name: "a host function returning a function gives no function",
    code: `const v = await leakFunction();\ntypeof v`,
    statuses: ["success", "runtime_error"],
    check: (r) => expect(r.result).not.toBe("function"),
  },
  {
    name: "mutating a host object's copy leaves the host object alone",
    code: `const s = await getSecret(); s.owner = "guest"; s.nested.value = 666; s.nested.list.push(4); delete s.nested;
const again = await getSecret();\n[again.owner, again.nested.value, again.nested.list.length]`,
    statuses: ["success"],
    check: (r) => expect(r.result).toEqual(["host", 1, 3]),
  },
  {
    name: "a proxy as host-function argument reaches the host as plain data",
    code: `const trap = new Proxy({}, { get: (t, k) => (k === "toJSON" ? undefined : () => 1), ownKeys: () => ["a"], getOwnPropertyDescriptor: () => ({ value: 1, enumerable: true, configurable: true }) });
await add(trap, trap)`,
    statuses: ["success", "runtime_error"],
  },
  {
    name: "a proxy argument whose traps throw",
    code: `const trap = new Proxy({}, { get() { throw new Error("trap"); }, ownKeys() { throw new Error("trap"); } });\nawait add(trap, 1)`,
    statuses: ["runtime_error"],
  },
  {
    name: "Array.prototype.toJSON turns host-function arguments into a huge array-like",
    code: `Array.prototype.toJSON = function () { return { length: 50000000 }; };
let r; try { r = await add(1, 2); } catch (e) { r = e.name; }
delete Array.prototype.toJSON;\nr`,
    statuses: ["success", "runtime_error"],
  },
  {
    name: "a host function called with a name from Object.prototype",
    code: `const names = ["constructor", "__proto__", "toString", "hasOwnProperty", "__defineGetter__"];
names.map((n) => typeof globalThis[n] === "function" && globalThis[n] !== Object.prototype[n] ? "host:" + n : "none")`,
    statuses: ["success"],
    check: (r) => {
      for (const v of r.result as string[]) expect(v).toBe("none");
    },
  },
];

const proxiesAndSymbols: HostileCase[] = [
  {
    name: "Error.prepareStackTrace and captureStackTrace (V8 hooks) are never called with host frames",
    code: `let called = false;
Error.prepareStackTrace = (e, frames) => { called = true; return frames.map((f) => typeof f.getThis === "function" ? f.getThis() : f); };
if (Error.captureStackTrace) Error.captureStackTrace({});
try { await boom(); } catch (e) { void e.stack; }
try { null.x; } catch (e) { void e.stack; }
called`,
    statuses: ["success"],
    check: (r) => expect(r.result).toBe(false),
  },
  {
    name: "a thrown proxy whose traps throw",
    code: `throw new Proxy({}, { get() { throw new Error("trap"); }, has() { throw new Error("trap"); } });`,
    statuses: ["runtime_error"],
  },
  {
    name: "a thrown proxy whose traps loop forever",
    code: `throw new Proxy({}, { get() { for (;;) {} }, has() { for (;;) {} } });`,
    options: { timeoutMs: 300 },
    statuses: ["timeout"],
    maxWallMs: 3000,
  },
  {
    name: "a proxy result whose ownKeys loops forever",
    code: `new Proxy({}, { ownKeys() { for (;;) {} } })`,
    options: { timeoutMs: 300 },
    statuses: ["timeout"],
    maxWallMs: 3000,
  },
  {
    name: "Symbol.toPrimitive and toString on a thrown value",
    code: `throw { [Symbol.toPrimitive]() { throw new Error("prim"); }, toString() { throw new Error("str"); }, get message() { throw new Error("msg"); } };`,
    statuses: ["runtime_error"],
  },
  {
    name: "Symbol.hasInstance on Error loops inside console.log",
    code: `Object.defineProperty(Error, Symbol.hasInstance, { value: () => { for (;;) {} } });\nconsole.log({ a: 1 });`,
    options: { timeoutMs: 300 },
    statuses: ["timeout"],
    maxWallMs: 3000,
  },
  {
    name: "Symbol.species on Promise intercepts the runtime's promise handling",
    code: `let seen = 0;
class Evil extends Promise { static get [Symbol.species]() { seen++; return Promise; } }
Object.defineProperty(Promise, Symbol.species, { get() { seen++; return function (exec) { exec(() => {}, () => {}); return { then() {} }; }; } });
await add(1, 2);\nseen`,
    statuses: ["success", "runtime_error"],
  },
  {
    name: "a forged thenable as result",
    code: `({ then(resolve) { resolve({ get x() { return Function("return typeof process")(); } }); } })`,
    statuses: ["success", "runtime_error"],
    check: (r) => {
      if (r.status === "success") expect(r.result).toEqual({ x: "undefined" });
    },
  },
  {
    name: "overriding JSON and Promise.prototype.then before the result is read",
    code: `JSON.stringify = () => '{"forged":true}';\nJSON.parse = () => ({ forged: true });\nPromise.prototype.then = function () { return this; };\n42`,
    statuses: ["success"],
    check: (r) => expect(r.result).toBe(42),
  },
  {
    name: "JSON.stringify replaced by one that returns invalid JSON, a number, or throws",
    code: `const forged = ["{not json", 5, undefined];
let n = 0;
JSON.stringify = () => { if (n === 3) throw new Error("stringify"); return forged[n++ % 3]; };
await null;
42`,
    statuses: ["success", "runtime_error"],
    check: (r) => {
      if (r.status === "success") expect(r.result).toBe(42);
    },
  },
];

const imports: HostileCase[] = [
  { name: "import() of fs (static check)", code: `const fs = await import("fs");\nfs.writeFileSync(MARKER, "x");`, statuses: ["forbidden"] },
  { name: "import() hidden in eval", code: `const fs = await eval('import("fs")');\nfs.writeFileSync(MARKER, "x");`, statuses: ["runtime_error"] },
  { name: "import() hidden in new Function", code: `const fs = await new Function('return import("node:fs")')();\nfs.writeFileSync(MARKER, "x");`, statuses: ["runtime_error"] },
  { name: "QuickJS's own std/os modules through eval", code: `const os = await eval('import("os")');\nos.exec(["touch", MARKER]);`, statuses: ["runtime_error"] },
  { name: "require reached through a computed name", code: `globalThis["req" + "uire"]("fs").writeFileSync(MARKER, "x");`, statuses: ["runtime_error"] },
  { name: "a TypeScript import of child_process", code: `import { execSync } from "child_process";\nexecSync(\`touch \${MARKER}\`);`, options: { language: "typescript" }, statuses: ["forbidden"] },
];

const pollution: HostileCase[] = [
  {
    name: "polluting Object.prototype before calling a host function",
    code: `Object.prototype.polluted = "yes"; Object.prototype.isAdmin = true; Array.prototype.extra = 1;
const v = await getSecret();\n[v.polluted, await add(1, 2)]`,
    statuses: ["success"],
    check: (r) => expect(r.result).toEqual(["yes", 3]),
  },
  {
    name: "a __proto__ key in a result",
    code: `JSON.parse('{"__proto__": {"polluted": "yes"}, "a": 1}')`,
    statuses: ["success"],
    check: (r) => {
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.getPrototypeOf(r.result)).toBe(Object.prototype);
    },
  },
  {
    name: "a __proto__ key in host-function arguments",
    code: `await add(JSON.parse('{"__proto__": {"polluted": "yes"}}'), JSON.parse('{"constructor": {"prototype": {"polluted": "yes"}}}'))`,
    statuses: ["success"],
  },
  {
    name: "pollution and new globals aimed at the next run",
    code: `Object.prototype.leak = 1; Array.prototype.push = () => 0; Function.prototype.call = () => "pwned";
globalThis.leftover = "from a previous run"; Math.random = () => 4; JSON.stringify = () => "{}";
Object.freeze(Object.prototype);\n"done"`,
    // The guest may break its own result (the runtime's helpers use Function.prototype.call).
    statuses: ["success", "runtime_error"],
  },
  {
    name: "redefining console and the granted globals",
    code: `console.log = () => { throw new Error("console"); };\nglobalThis.MARKER = "/tmp/x";\nObject.defineProperty(globalThis, "add", { value: 1 });\n1`,
    statuses: ["success"],
  },
];

describe("hostile programs: reaching the host", () => {
  const groups: Array<[string, HostileCase[]]> = [
    ["constructor chains, Function and eval", constructorChains],
    ["host functions' errors and values", hostFunctionValues],
    ["proxies, stack-trace hooks and symbols", proxiesAndSymbols],
    ["imports", imports],
    ["prototype pollution", pollution],
  ];
  for (const [group, cases] of groups) {
    describe(group, () => {
      for (const hostile of cases) it(hostile.name, () => runHostile(suite.sandbox, suite.probe, suite.baseline, hostile));
    });
  }

  it("the shared default sandbox of runCode also contains a constructor-chain escape", async () => {
    const result = await runCode(escapeThrough(`this.constructor.constructor("return process")()`), { globals: suite.probe.globals() });
    expect(result.status).toBe("runtime_error");
    suite.probe.expectHostUntouched();
    expect((await runCode("6*7")).result).toBe(42);
  });
});
