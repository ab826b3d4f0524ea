/**
 * A JavaScript test's values, read from QuickJS handles by the worker (outside the engine's
 * memory) and compared here. Reading never calls the value's own methods: no `toJSON`,
 * `toString`, `valueOf` or getter of the guest runs (an accessor is shown as `[Getter]`, read
 * through the captured `Object.getOwnPropertyDescriptor`); only a Proxy's traps can run, and
 * what they answer is the value as far as any comparison could see it. Bounded: nodes plus text
 * characters, depth.
 *
 * Runs in the worker thread.
 */
import type { QuickJSHandle } from "quickjs-emscripten-core";
import type { JsTestOp } from "../prepare/tests-split.js";
import { ownKeys } from "./engine-reads.js";
import type { GuestRuntime } from "./guest-runtime.js";

/** A JavaScript value as the worker read it. */
export type JsValue =
  | { t: "undefined" }
  | { t: "null" }
  | { t: "boolean"; v: boolean }
  | { t: "number"; v: number }
  | { t: "string"; v: string; cut?: true }
  | { t: "bigint"; v: string }
  | { t: "symbol"; v: string }
  | { t: "function" }
  | { t: "getter" }
  | { t: "array"; items: JsValue[]; cut?: true }
  /** A built-in whose data is in internal slots (a Map, a Date, ...): not read, not comparable here. */
  | { t: "opaque"; type: string }
  | { t: "object"; entries: [string, JsValue][]; cut?: true }
  | { t: "cut" };

/** Nodes plus text characters read from one value. */
export const JS_VALUE_BUDGET = 20_000;
const MAX_DEPTH = 12;
const NATIVE_GET_OWN_PROPERTY_DESCRIPTOR = 9;
const NATIVE_GET_PROTOTYPE_OF = 10;
/** Built-ins whose data is in internal slots, as guest-runtime.ts takes their prototypes (from native 11 on). */
const SLOT_TYPES = ["Map", "Set", "WeakMap", "WeakSet", "Date", "RegExp", "Promise", "ArrayBuffer", "DataView", "TypedArray", "Error"] as const;
const FIRST_SLOT_PROTOTYPE = 11;
const MAX_PROTOTYPE_STEPS = 32;

/**
 * The slot-holding built-in `h` is an instance of (its prototype chain reaches that built-in's
 * prototype, read through the captured `Object.getPrototypeOf`), if any: own properties say
 * nothing of a Map's entries or a Date's time, so such a value is not read as data.
 */
function slotType(guest: GuestRuntime, h: QuickJSHandle): string | undefined {
  const ctx = guest.context;
  let current: QuickJSHandle = h.dup();
  try {
    for (let step = 0; step < MAX_PROTOTYPE_STEPS; step++) {
      const r: ReturnType<typeof ctx.callFunction> = ctx.callFunction(guest.natives[NATIVE_GET_PROTOTYPE_OF]!, ctx.undefined, current);
      current.dispose();
      if (r.error) {
        r.error.dispose();
        current = ctx.undefined.dup();
        return undefined;
      }
      current = r.value;
      if (ctx.typeof(current) !== "object" || ctx.sameValue(current, ctx.null)) return undefined;
      for (let i = 0; i < SLOT_TYPES.length; i++) {
        if (ctx.sameValue(current, guest.natives[FIRST_SLOT_PROTOTYPE + i]!)) return SLOT_TYPES[i];
      }
    }
    return undefined;
  } finally {
    current.dispose();
  }
}

/**
 * Reads a guest value (see the module comment).
 *
 * @example
 * readJsValue(guest, handle); // { t: "array", items: [{ t: "number", v: 1 }] }
 */
export function readJsValue(guest: GuestRuntime, handle: QuickJSHandle, budget = JS_VALUE_BUDGET): JsValue {
  const ctx = guest.context;
  let left = budget;
  const read = (h: QuickJSHandle, depth: number): JsValue => {
    left--;
    if (left < 0 || depth > MAX_DEPTH) return { t: "cut" };
    const type = ctx.typeof(h);
    switch (type) {
      case "undefined":
        return { t: "undefined" };
      case "boolean":
        return { t: "boolean", v: ctx.sameValue(h, ctx.true) };
      case "number":
        return { t: "number", v: ctx.getNumber(h) };
      case "string": {
        // A string longer than what is left is not copied out of the engine at all.
        if (guest.stringLength(h) > left) return { t: "string", v: "", cut: true };
        const v = guest.exactString(h);
        left -= v.length;
        return left < 0 ? { t: "string", v: v.slice(0, Math.max(0, v.length + left)), cut: true } : { t: "string", v };
      }
      case "bigint": {
        const v = String(ctx.getBigInt(h));
        left -= v.length;
        return left < 0 ? { t: "cut" } : { t: "bigint", v };
      }
      case "symbol":
        return { t: "symbol", v: String(ctx.getSymbol(h).description ?? "").slice(0, 100) };
      case "function":
        return { t: "function" };
      case "object":
        break;
      default:
        return { t: "cut" };
    }
    if (ctx.sameValue(h, ctx.null)) return { t: "null" };
    const slots = slotType(guest, h);
    if (slots !== undefined) return { t: "opaque", type: slots };
    // A huge array or object is not listed key by key (that would cost the worker, outside the
    // deadline): past what is left, the keys are counted and freed unread (engine-reads.ts).
    const length = ownLength(guest, h);
    if (length !== undefined && length > left) return { t: "cut" };
    const keys = ownKeys(ctx, h, { max: left });
    if (keys === undefined || keys.total > left) return { t: "cut" };
    const names = keys.names;
    const shown = ownKeys(ctx, h, { onlyEnumerable: true, max: left })?.names ?? [];
    // An array's `length` is its own, not enumerable: the mark of an array as far as data goes.
    const isArray = names.includes("length") && !shown.includes("length") && shown.every((k) => /^(?:0|[1-9]\d*)$/.test(k));
    const property = (key: string): JsValue => {
      using name = ctx.newString(key);
      const r = ctx.callFunction(guest.natives[NATIVE_GET_OWN_PROPERTY_DESCRIPTOR]!, ctx.undefined, h, name);
      if (r.error) {
        r.error.dispose();
        return { t: "cut" };
      }
      using descriptor = r.value;
      if (ctx.typeof(descriptor) !== "object" || !guest.ownStringKeys(descriptor).includes("value")) return { t: "getter" };
      using value = ctx.getProp(descriptor, "value");
      return read(value, depth + 1);
    };
    if (isArray) {
      // The length read above (not through `property`, whose depth bound would read it as cut:
      // an array at the deepest level would then read as empty, equal to any other).
      const n = length !== undefined && Number.isSafeInteger(length) && length >= 0 ? length : 0;
      const items: JsValue[] = [];
      const present = new Set(shown);
      for (let i = 0; i < n; i++) {
        if (left <= 0) return { t: "array", items, cut: true };
        items.push(present.has(String(i)) ? property(String(i)) : { t: "undefined" });
      }
      return { t: "array", items };
    }
    const entries: [string, JsValue][] = [];
    for (const key of shown) {
      if (left <= 0) return { t: "object", entries, cut: true };
      left -= key.length;
      entries.push([key, property(key)]);
    }
    return { t: "object", entries };
  };
  return read(handle, 0);
}

/** An own data property `length` that is a number, read through the captured descriptor (no getter runs). */
function ownLength(guest: GuestRuntime, h: QuickJSHandle): number | undefined {
  const ctx = guest.context;
  using name = ctx.newString("length");
  const r = ctx.callFunction(guest.natives[NATIVE_GET_OWN_PROPERTY_DESCRIPTOR]!, ctx.undefined, h, name);
  if (r.error) {
    r.error.dispose();
    return undefined;
  }
  using descriptor = r.value;
  if (ctx.typeof(descriptor) !== "object" || !guest.ownStringKeys(descriptor).includes("value")) return undefined;
  using value = ctx.getProp(descriptor, "value");
  return ctx.typeof(value) === "number" ? ctx.getNumber(value) : undefined;
}

function isCut(v: JsValue): boolean {
  if (v.t === "cut" || ("cut" in v && v.cut === true)) return true;
  if (v.t === "array") return v.items.some(isCut);
  if (v.t === "object") return v.entries.some(([, x]) => isCut(x));
  return false;
}

const primitive = (v: JsValue) => v.t !== "array" && v.t !== "object" && v.t !== "opaque" && v.t !== "function" && v.t !== "getter" && v.t !== "cut";

function holdsOpaque(v: JsValue): boolean {
  if (v.t === "opaque") return true;
  if (v.t === "array") return v.items.some(holdsOpaque);
  if (v.t === "object") return v.entries.some(([, x]) => holdsOpaque(x));
  return false;
}

/** The slot-holding built-in a value holds (a Map, a Date, ...), if any. */
export function jsValueOpaqueType(v: JsValue): string | undefined {
  if (v.t === "opaque") return v.type;
  const inner = v.t === "array" ? v.items : v.t === "object" ? v.entries.map(([, x]) => x) : [];
  for (const x of inner) {
    const type = jsValueOpaqueType(x);
    if (type !== undefined) return type;
  }
  return undefined;
}

function objectIs(a: JsValue, b: JsValue): boolean {
  if (a.t !== b.t) return false;
  switch (a.t) {
    case "undefined":
    case "null":
      return true;
    case "boolean":
      return a.v === (b as typeof a).v;
    case "number":
      return Object.is(a.v, (b as typeof a).v);
    case "string":
      return a.v === (b as typeof a).v;
    case "bigint":
    case "symbol":
      return a.v === (b as typeof a).v && a.t === "bigint";
    default:
      return false;
  }
}

/** `a == b` for primitives (the abstract equality's cases without objects). */
function looseEquals(a: JsValue, b: JsValue): boolean {
  const nullish = (v: JsValue) => v.t === "null" || v.t === "undefined";
  if (nullish(a) || nullish(b)) return nullish(a) && nullish(b);
  if (a.t === b.t) return a.t === "number" ? a.v === (b as typeof a).v : objectIs(a, b);
  const num = (v: JsValue): number | bigint | undefined => {
    if (v.t === "number") return v.v;
    if (v.t === "boolean") return v.v ? 1 : 0;
    if (v.t === "string") return v.v.trim() === "" ? 0 : Number(v.v);
    if (v.t === "bigint") return BigInt(v.v);
    return undefined;
  };
  const x = num(a);
  const y = num(b);
  if (x === undefined || y === undefined) return false;
  // eslint-disable-next-line eqeqeq -- abstract equality of numbers and bigints is what is meant here
  return x == y;
}

/** Deep equality: `strict` uses Object.is on primitives (deepStrictEqual), else `==` (deepEqual); `skipUndefined` is Jest's toEqual. */
function deepEquals(a: JsValue, b: JsValue, strict: boolean, skipUndefined: boolean): boolean {
  if (primitive(a) || primitive(b)) return strict ? objectIs(a, b) : looseEquals(a, b);
  if (a.t === "array" && b.t === "array") return a.items.length === b.items.length && a.items.every((x, i) => deepEquals(x, b.items[i]!, strict, skipUndefined));
  if (a.t === "object" && b.t === "object") {
    const pick = (es: [string, JsValue][]) => (skipUndefined ? es.filter(([, v]) => v.t !== "undefined") : es);
    const ea = pick(a.entries);
    const eb = new Map(pick(b.entries));
    return ea.length === eb.size && ea.every(([k, v]) => eb.has(k) && deepEquals(v, eb.get(k)!, strict, skipUndefined));
  }
  return false;
}

/** What `JSON.stringify` would give for the value (the evals' `eq` helpers compare that). */
function jsonText(v: JsValue): string | undefined {
  switch (v.t) {
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    case "null":
      return "null";
    case "boolean":
      return String(v.v);
    case "number":
      return Number.isFinite(v.v) ? JSON.stringify(v.v) : "null";
    case "string":
      return JSON.stringify(v.v);
    case "array":
      return `[${v.items.map((x) => jsonText(x) ?? "null").join(",")}]`;
    case "object":
      return `{${v.entries.flatMap(([k, x]) => (jsonText(x) === undefined ? [] : [`${JSON.stringify(k)}:${jsonText(x)}`])).join(",")}}`;
    default:
      // A bigint throws in JSON.stringify; a getter was not read: not comparable here.
      return `\u0000${Math.random()}`;
  }
}

function truthy(v: JsValue): boolean {
  switch (v.t) {
    case "undefined":
    case "null":
      return false;
    case "boolean":
      return v.v;
    case "number":
      return v.v !== 0 && !Number.isNaN(v.v);
    case "string":
      return v.v.length > 0;
    case "bigint":
      return v.v !== "0";
    default:
      return true;
  }
}

/**
 * The verdict of a comparison from the values read (and, for `===`-like operators on objects,
 * whether the two handles were the same object): true, false, or undefined when it cannot be
 * decided outside (a value past the bounds).
 *
 * @example
 * judgeJsComparison("strictEqual", [{ t: "number", v: 15 }, { t: "number", v: 7 }], false); // false
 */
export function judgeJsComparison(op: JsTestOp, values: JsValue[], same: boolean): boolean | undefined {
  const [a, b] = values as [JsValue, JsValue | undefined];
  // A value cut at the bounds is a non-empty string, a long bigint or an object: truthy all.
  if (op === "truthy") return truthy(a);
  if (op === "falsy") return !truthy(a);
  if (b === undefined) return undefined;
  // The same object is equal to itself under every operator (read once, compared by identity).
  if (same) return true;
  if (isCut(a) || isCut(b)) return undefined;
  // A Map's entries or a Date's time were not read: only identity (above, and strictEqual) decides.
  if ((holdsOpaque(a) || holdsOpaque(b)) && op !== "strictEqual" && op !== "toBe" && op !== "equal") return undefined;
  switch (op) {
    case "strictEqual":
    case "toBe":
      return primitive(a) && primitive(b) ? objectIs(a, b) : false;
    case "equal":
      return primitive(a) && primitive(b) ? looseEquals(a, b) : false;
    case "deepStrictEqual":
    case "toStrictEqual":
      return deepEquals(a, b, true, false);
    case "deepEqual":
      return deepEquals(a, b, false, false);
    case "toEqual":
      return deepEquals(a, b, true, true);
    case "json":
      return jsonText(a) === jsonText(b);
    default:
      return undefined;
  }
}

/**
 * A value as JSON-like text (`undefined`, `NaN`, `-0`, `12n` shown as such), about `maxChars` long.
 *
 * @example
 * showJsValue({ t: "array", items: [{ t: "number", v: -0 }] }); // "[-0]"
 */
export function showJsValue(v: JsValue, maxChars = 300): string {
  const parts: string[] = [];
  let used = 0;
  const put = (s: string) => {
    parts.push(s);
    used += s.length;
  };
  const walk = (x: JsValue): void => {
    if (used > maxChars) return;
    switch (x.t) {
      case "undefined":
      case "null":
        return put(x.t);
      case "boolean":
        return put(String(x.v));
      case "number":
        return put(Object.is(x.v, -0) ? "-0" : String(x.v));
      case "string":
        return put(JSON.stringify(x.v) + (x.cut ? "..." : ""));
      case "bigint":
        return put(`${x.v}n`);
      case "symbol":
        return put(`Symbol(${x.v})`);
      case "function":
        return put("[Function]");
      case "getter":
        return put("[Getter]");
      case "opaque":
        return put(`[${x.type}]`);
      case "cut":
        return put("...");
      case "array":
        put("[");
        x.items.forEach((item, i) => {
          if (i > 0) put(", ");
          walk(item);
        });
        if (x.cut) put(", ...");
        return put("]");
      case "object":
        put("{");
        x.entries.forEach(([k, item], i) => {
          if (i > 0) put(", ");
          put(`${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: `);
          walk(item);
        });
        if (x.cut) put(x.entries.length > 0 ? ", ..." : "...");
        return put("}");
    }
  };
  walk(v);
  const text = parts.join("");
  return text.length > maxChars ? `${text.slice(0, Math.max(0, maxChars - 3))}...` : text;
}

/** Whether a value holds a cut (it was too large or deep to read whole). */
export function jsValueIsCut(v: JsValue): boolean {
  return isCut(v);
}
