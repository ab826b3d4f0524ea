/**
 * JavaScript that runs INSIDE the sandbox, loaded only when a run needs it (a promise to
 * await, an error to describe, an object to print, host functions, sessions). It gets a single
 * host callback (`bridge`) as an argument and keeps it in a closure, so the guest never sees
 * it as a global. (`console` itself is made by the host: see GuestContext.)
 *
 * Bridge operations (first argument):
 * - 1 call(name, argsJson) -> promise of the JSON text of the host's return value
 * - 2 done(resultJson | undefined)
 * - 3 fail(errorJson)
 */

/** File name under which the prelude is evaluated; its frames are dropped from stacks. */
export const PRELUDE_FILE_NAME = "sandbox-prelude.js";

/** File name under which the user's code is evaluated; stack frames there are the user's. */
export const USER_FILE_NAME = "main.js";

/** File name under which a run's `tests` are evaluated; lines there are lines of the tests text. */
export const TESTS_FILE_NAME = "tests.js";

/**
 * Source of the eager part of the prelude, kept small because it is parsed for every run:
 * a function of `(bridge, librarySource, natives)` returning one dispatcher `helper(op, a, b)`:
 * 0 settle(value, mode), 1 describe(error) -> JSON, 2 setGlobals(json),
 * 3 defineHostFunctions(namesJson), 5 invoke(name, argsJson),
 * 6 load the library now (sessions do, so their baseline of built-in names is taken early),
 * 7 inspect(value) -> text as Node's console prints it (for console arguments that are not
 * strings, numbers or booleans), 8 seedRandom(hex): `Math.random` becomes a seeded generator
 * (runs given `inputs`).
 * The host loads the prelude only when a run needs it: a plain script with a JSON result and
 * no output, globals or host functions never parses it.
 */
export const GUEST_PRELUDE_SOURCE = String.raw`(function (bridge, librarySource, natives) {
  "use strict";
  // Built-ins captured by the host before any user code ran (the prelude may load later,
  // after the code replaced JSON, Promise.prototype.then, eval or Function.prototype.call).
  const G = globalThis;
  const stringify = natives[0];
  const then = natives[2];
  const PromiseCtor = natives[3];
  const promiseResolve = natives[4];
  const apply = natives[5];
  const indirectEval = natives[6];
  const defineProp = natives[7];
  const keys = natives[8];
  const resolve = (v) => apply(promiseResolve, PromiseCtor, [v]);
  let library;
  const lib = () => library ?? (library = indirectEval(librarySource)(bridge, natives));

  // mode 0: script value; 1: module namespace, result = awaited default export;
  // 2: module in a session, named exports also become globals.
  function settle(value, mode) {
    const onValue = (v) => {
      if (mode === 0) return v;
      if (mode === 2) {
        for (const k of keys(v)) if (k !== "default") defineProp(G, k, { value: v[k], writable: true, configurable: true, enumerable: true });
      }
      return v.default;
    };
    const p = apply(then, resolve(value), [onValue]);
    // A result JSON cannot hold is the run's error (op 4), not a success without a result.
    apply(then, p, [(v) => { let json; try { json = stringify(v); } catch (e) { bridge(4, lib().describe(e)); return; } bridge(2, json); }, (e) => { bridge(3, lib().describe(e)); }]);
  }

  return function helper(op, a, b) {
    switch (op) {
      case 0: return settle(a, b);
      case 1: return lib().describe(a);
      case 2: return lib().setGlobals(a);
      case 3: return lib().defineHostFunctions(a);
      case 5: return lib().invoke(a, b);
      case 6: lib(); return undefined;
      case 7: return lib().inspect(a, 0, []);
      case 8: return lib().seedRandom(a);
    }
  };
})`;

/**
 * Source of the rest of the prelude, parsed only when a run needs it (printing an object,
 * an error, globals, host functions, sessions): a function of `(bridge, natives)` returning helpers.
 */
export const GUEST_LIBRARY_SOURCE = String.raw`(function (bridge, natives) {
  "use strict";
  const G = globalThis;
  const stringify = natives[0];
  const parse = natives[1];
  const indirectEval = natives[6];
  const getOwnNames = Object.getOwnPropertyNames;
  const getDesc = Object.getOwnPropertyDescriptor;
  const defineProp = Object.defineProperty;
  const baseline = new Set(getOwnNames(G));
  const hostNames = new Set();
  // Math.random of runs given a seed (RunInputs): xoshiro128**, reseeded by each such run.
  // Everything it uses is taken now, before user code could replace it.
  const MathObject = Math;
  const imul = Math.imul;
  const parseHex = parseInt;
  let s0 = 1, s1 = 0, s2 = 0, s3 = 0, randomInstalled = false;
  const rotl = (x, k) => (x << k) | (x >>> (32 - k));
  function next32() {
    const r = imul(rotl(imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3; s2 ^= t; s3 = rotl(s3, 11);
    return r;
  }
  const seeded = { random() { return ((next32() >>> 5) * 67108864 + (next32() >>> 6)) / 9007199254740992; } }.random;
  function seedRandom(hex) {
    s0 = parseHex(hex.slice(0, 8), 16) | 0; s1 = parseHex(hex.slice(8, 16), 16) | 0;
    s2 = parseHex(hex.slice(16, 24), 16) | 0; s3 = parseHex(hex.slice(24, 32), 16) | 0;
    if ((s0 | s1 | s2 | s3) === 0) s0 = 1;
    if (!randomInstalled) {
      randomInstalled = true;
      defineProp(MathObject, "random", { value: seeded, writable: true, configurable: true, enumerable: false });
    }
  }
  const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

  function inspect(v, depth, seen) {
    switch (typeof v) {
      case "string": return depth === 0 ? v : "'" + v.replace(/'/g, "\\'") + "'";
      case "number": return Object.is(v, -0) ? "-0" : String(v);
      case "bigint": return String(v) + "n";
      case "undefined": return "undefined";
      case "boolean": return String(v);
      case "symbol": return v.toString();
      case "function": return "[Function: " + (v.name || "(anonymous)") + "]";
    }
    if (v === null) return "null";
    if (seen.indexOf(v) !== -1) return "[Circular]";
    if (v instanceof Error) {
      const head = String(v.name) + ": " + String(v.message);
      return depth === 0 && typeof v.stack === "string" && v.stack ? head + "\n" + v.stack.replace(/\s+$/, "") : "[" + head + "]";
    }
    if (v instanceof Date) return isNaN(v.getTime()) ? "Invalid Date" : v.toISOString();
    if (v instanceof RegExp) return String(v);
    if (depth > 2) return Array.isArray(v) ? "[Array]" : "[Object]";
    seen.push(v);
    let out;
    if (Array.isArray(v)) {
      const parts = [];
      const n = Math.min(v.length, 100);
      for (let i = 0; i < n; i++) parts.push(inspect(v[i], depth + 1, seen));
      if (v.length > n) parts.push("... " + (v.length - n) + " more items");
      out = parts.length ? "[ " + parts.join(", ") + " ]" : "[]";
    } else if (v instanceof Map) {
      const parts = [];
      for (const [k, val] of v) parts.push(inspect(k, depth + 1, seen) + " => " + inspect(val, depth + 1, seen));
      out = "Map(" + v.size + ") {" + (parts.length ? " " + parts.join(", ") + " " : "") + "}";
    } else if (v instanceof Set) {
      const parts = [];
      for (const val of v) parts.push(inspect(val, depth + 1, seen));
      out = "Set(" + v.size + ") {" + (parts.length ? " " + parts.join(", ") + " " : "") + "}";
    } else if (typeof v.then === "function") {
      out = "Promise { <pending> }";
    } else {
      const parts = [];
      for (const k of Object.keys(v)) {
        parts.push((IDENT.test(k) ? k : "'" + k + "'") + ": " + inspect(v[k], depth + 1, seen));
      }
      const ctor = v.constructor && v.constructor !== Object && typeof v.constructor.name === "string" && v.constructor.name ? v.constructor.name + " " : "";
      out = ctor + (parts.length ? "{ " + parts.join(", ") + " }" : "{}");
    }
    seen.pop();
    return out;
  }

  function format(args) {
    let text = "";
    for (let i = 0; i < args.length; i++) {
      let piece;
      try { piece = inspect(args[i], 0, []); } catch (e) { piece = "[value that cannot be printed]"; }
      text += (i ? " " : "") + piece;
    }
    return text + "\n";
  }

  // Error text goes back to the caller and often into a model's prompt: keep it bounded.
  const cut = (text, max) => text.length > max ? text.slice(0, max) + "... (" + (text.length - max) + " more characters)" : text;
  function describe(e) {
    try {
      if (e !== null && typeof e === "object" && "message" in e) {
        return stringify({
          name: cut(String(e.name ?? "Error"), 200),
          message: cut(String(e.message), 4000),
          stack: typeof e.stack === "string" ? cut(e.stack, 4000) : undefined,
        });
      }
      return stringify({ name: "Error", message: cut("Uncaught " + (typeof e === "string" ? "'" + cut(e, 4000) + "'" : inspect(e, 1, [])), 4000) });
    } catch (_) {
      return stringify({ name: "Error", message: "the code threw a value that cannot be described" });
    }
  }

  function setGlobals(json) {
    const g = parse(json);
    for (const k of Object.keys(g)) defineProp(G, k, { value: g[k], writable: true, configurable: true, enumerable: true });
  }

  function defineHostFunctions(namesJson) {
    for (const name of parse(namesJson)) {
      hostNames.add(name);
      const fn = { async [name](...args) {
        const json = await bridge(1, name, stringify(args));
        return json === undefined ? undefined : parse(json);
      } }[name];
      defineProp(G, name, { value: fn, writable: true, configurable: true, enumerable: false });
    }
  }

  function functionNames() {
    const names = [];
    for (const n of getOwnNames(G)) {
      if (baseline.has(n) || hostNames.has(n)) continue;
      const d = getDesc(G, n);
      if (d && typeof d.value === "function") names.push(n);
    }
    return names;
  }

  function invoke(name, argsJson) {
    let f;
    try { f = indirectEval(name); } catch (_) { f = undefined; }
    if (typeof f !== "function") {
      const names = functionNames();
      throw new TypeError(name + " is not a function defined in this session; defined functions: " + (names.length ? names.join(", ") : "(none)"));
    }
    return f.apply(undefined, parse(argsJson));
  }

  return { inspect, describe, setGlobals, defineHostFunctions, functionNames, invoke, seedRandom };
})`;
