/**
 * The guest side of `Intl`: JavaScript evaluated inside a context (see intl-guest.ts) that
 * defines `Intl` and the locale-sensitive methods of `Date`, `Number`, `BigInt`, `String`,
 * `Array` and typed arrays. It only converts arguments to primitives (getters, `valueOf`,
 * Proxies run here, in the guest, under the run's deadline) and calls one host function
 * `op(code, spec, a, b)`; every formatting, and every check, is done by the worker's V8 Intl
 * (intl-host.ts). `spec` is the JSON text `[kind, locales, options]` of a formatter.
 */
import { IntlOp, MAX_LOCALES, OPTION_NAMES } from "./intl-host.js";

/** File name the shim is evaluated under. */
export const INTL_SHIM_FILE_NAME = "sandbox-intl.js";

const OPS = {
  Resolved: IntlOp.Resolved,
  Format: IntlOp.Format,
  FormatToParts: IntlOp.FormatToParts,
  FormatRange: IntlOp.FormatRange,
  FormatRangeToParts: IntlOp.FormatRangeToParts,
  Select: IntlOp.Select,
  SelectRange: IntlOp.SelectRange,
  Compare: IntlOp.Compare,
  RelativeFormat: IntlOp.RelativeFormat,
  RelativeFormatToParts: IntlOp.RelativeFormatToParts,
  ListFormat: IntlOp.ListFormat,
  ListFormatToParts: IntlOp.ListFormatToParts,
  Segment: IntlOp.Segment,
  DisplayOf: IntlOp.DisplayOf,
  CaseMap: IntlOp.CaseMap,
  Locale: IntlOp.Locale,
  CanonicalLocales: IntlOp.CanonicalLocales,
  SupportedValuesOf: IntlOp.SupportedValuesOf,
  SupportedLocalesOf: IntlOp.SupportedLocalesOf,
};

/** The shim: a function of the host operation `op` and the namespace source, installing everything when called. */
export const INTL_SHIM_SOURCE = String.raw`(function (op, namespaceSource) {
  "use strict";
  const OP = ${JSON.stringify(OPS)};
  const NAMES = ${JSON.stringify(OPTION_NAMES)};
  const MAX_LOCALES = ${MAX_LOCALES};
  const G = globalThis;
  const stringify = JSON.stringify, parse = JSON.parse;
  const defineProp = Object.defineProperty, create = Object.create, freeze = Object.freeze;
  const apply = Reflect.apply;
  const RangeErr = RangeError, TypeErr = TypeError;
  const isArray = Array.isArray;
  const dateNow = Date.now, getTime = Date.prototype.getTime;
  const upper = String.prototype.toUpperCase, lower = String.prototype.toLowerCase;
  const slice = String.prototype.slice;
  const toStringTag = Symbol.toStringTag, iterator = Symbol.iterator;
  const Str = String, Num = Number, Obj = Object;
  const slots = new WeakMap();
  const slotGet = WeakMap.prototype.get, slotSet = WeakMap.prototype.set;
  const setSlot = (o, s) => apply(slotSet, slots, [o, s]);

  function call(code, spec, a, b) {
    try { return op(code, spec, a, b); }
    catch (e) {
      if (e && e.name === "RangeError") throw new RangeErr(e.message);
      if (e && e.name === "TypeError") throw new TypeErr(e.message);
      throw e;
    }
  }
  function slot(o, kind, method) {
    const s = (o !== null && typeof o === "object") ? apply(slotGet, slots, [o]) : undefined;
    if (s === undefined || s.kind !== kind) throw new TypeErr("Method Intl." + kind + ".prototype." + method + " called on incompatible receiver " + (typeof o === "string" ? o : typeof o));
    return s;
  }

  function localeList(locales) {
    if (locales === undefined) return null;
    if (typeof locales === "string") return locales;
    if (locales === null) throw new TypeErr("Cannot convert undefined or null to object");
    const ls = localeSlot(locales);
    if (ls) return ls.info.tag;
    const o = Obj(locales);
    const n = Num(o.length) || 0;
    if (n > MAX_LOCALES) throw new RangeErr("Intl in this sandbox takes at most " + MAX_LOCALES + " locales per call (got " + n + ")");
    const out = [];
    for (let i = 0; i < n; i++) {
      if (!(i in o)) continue;
      const v = o[i];
      const vs = localeSlot(v);
      if (vs) { out.push(vs.info.tag); continue; }
      if (typeof v !== "string" && (v === null || typeof v !== "object")) throw new TypeErr("Language ID should be string or object.");
      out.push(Str(v));
    }
    return out;
  }
  function prim(v) {
    const t = typeof v;
    if (t === "number") return v === v && v !== Infinity && v !== -Infinity ? v : Str(v);
    if (t === "string" || t === "boolean") return v;
    if (t === "symbol") throw new TypeErr("Cannot convert a Symbol value to a string");
    return Str(v);
  }
  function pick(kind, options) {
    if (options === undefined) return null;
    if (options === null) throw new TypeErr("Cannot convert undefined or null to object");
    const o = Obj(options);
    const names = NAMES[kind];
    let out = null;
    for (let i = 0; i < names.length; i++) {
      const v = o[names[i]];
      if (v === undefined) continue;
      if (out === null) out = {};
      out[names[i]] = prim(v);
    }
    return out;
  }
  const specOf = (kind, locales, options, optionKind) => stringify([kind, localeList(locales), pick(optionKind || kind, options)]);
  // A number to format: a number, or (tagged) a BigInt's digits or a decimal string, exact.
  function numeric(x) {
    if (x !== null && (typeof x === "object" || typeof x === "function")) x = Num(x);
    if (typeof x === "bigint") return "n" + Str(x);
    if (typeof x === "string") return "s" + x;
    return Num(x);
  }
  function timeOf(x) {
    return x === undefined ? dateNow() : Num(x);
  }

  function define(target, name, value) {
    defineProp(target, name, { value, writable: true, configurable: true, enumerable: false });
  }
  function getter(target, name, get) {
    defineProp(target, name, { get, configurable: true, enumerable: false });
  }
  function tag(proto, name) {
    defineProp(proto, toStringTag, { value: name, writable: false, configurable: true, enumerable: false });
  }

  function localeSlot(v) {
    const s = (v !== null && typeof v === "object") ? apply(slotGet, slots, [v]) : undefined;
    return s !== undefined && s.kind === "Locale" ? s : undefined;
  }
  // The Intl namespace (its constructors) is parsed only when a program first reads Intl:
  // a run that only calls toLocaleString or localeCompare does not pay for it.
  const indirectEval = eval;
  let namespace;
  const env = { OP, NAMES, G, stringify, parse, defineProp, create, apply, RangeErr, TypeErr, slice, iterator, Str, Num, Obj, slots, slotGet, setSlot, call, slot, localeList, localeSlot, pick, specOf, numeric, timeOf, define, getter, tag };
  function setIntl(value) { defineProp(G, "Intl", { value, writable: true, configurable: true, enumerable: false }); }
  defineProp(G, "Intl", {
    get: { Intl() { if (namespace === undefined) namespace = indirectEval(namespaceSource)(env); setIntl(namespace); return namespace; } }.Intl,
    set: { Intl(value) { setIntl(value); } }.Intl,
    configurable: true, enumerable: false,
  });

  // The locale-sensitive methods of the built-ins, on the same formatters. The spec of a call
  // without locales and options is a constant: a sort with localeCompare makes no JSON per call.
  const plain = (kind) => stringify([kind, null, null]);
  const PLAIN = { Collator: plain("Collator"), NumberFormat: plain("NumberFormat"), any: plain("Date:any"), date: plain("Date:date"), time: plain("Date:time") };
  const specFor = (kind, plainKey, locales, options, optionKind) => locales === undefined && options === undefined ? PLAIN[plainKey] : specOf(kind, locales, options, optionKind);
  function dateMethod(name, which) {
    const m = { [name]() {
      const t = apply(getTime, this, []);
      if (t !== t) return "Invalid Date";
      return call(OP.Format, specFor("Date:" + which, which, arguments[0], arguments[1], "DateTimeFormat"), t);
    } }[name];
    define(Date.prototype, name, m);
  }
  dateMethod("toLocaleString", "any");
  dateMethod("toLocaleDateString", "date");
  dateMethod("toLocaleTimeString", "time");
  const thisNumber = Number.prototype.valueOf, thisBigInt = BigInt.prototype.valueOf;
  define(Number.prototype, "toLocaleString", { toLocaleString() {
    return call(OP.Format, specFor("NumberFormat", "NumberFormat", arguments[0], arguments[1]), apply(thisNumber, this, []));
  } }.toLocaleString);
  define(BigInt.prototype, "toLocaleString", { toLocaleString() {
    return call(OP.Format, specFor("NumberFormat", "NumberFormat", arguments[0], arguments[1]), "n" + Str(apply(thisBigInt, this, [])));
  } }.toLocaleString);
  function thisString(v, name) {
    if (v === null || v === undefined) throw new TypeErr("String.prototype." + name + " called on null or undefined");
    return Str(v);
  }
  define(String.prototype, "localeCompare", { localeCompare(that) {
    const s = thisString(this, "localeCompare");
    return call(OP.Compare, specFor("Collator", "Collator", arguments[1], arguments[2]), s, Str(that));
  } }.localeCompare);
  function caseMethod(name, direction, plainFn) {
    define(String.prototype, name, { [name]() {
      const s = thisString(this, name);
      const locales = arguments[0];
      if (locales === undefined) return apply(plainFn, s, []);
      return call(OP.CaseMap, stringify(["", localeList(locales), null]), s, direction);
    } }[name]);
  }
  caseMethod("toLocaleUpperCase", "upper", upper);
  caseMethod("toLocaleLowerCase", "lower", lower);
  // Array's and typed arrays' toLocaleString pass locales and options on to each element (ECMA-402).
  const active = [];
  function listToLocale(o, locales, options) {
    if (active.indexOf(o) !== -1) return "";
    active.push(o);
    try {
      const n = Num(o.length) || 0;
      let r = "";
      for (let i = 0; i < n; i++) {
        if (i > 0) r += ",";
        const e = o[i];
        if (e !== undefined && e !== null) r += Str(e.toLocaleString(locales, options));
      }
      return r;
    } finally {
      active.pop();
    }
  }
  define(Array.prototype, "toLocaleString", { toLocaleString() { return listToLocale(Obj(this), arguments[0], arguments[1]); } }.toLocaleString);
  const TypedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
  const typedLength = Object.getOwnPropertyDescriptor(TypedArrayProto, "length").get;
  define(TypedArrayProto, "toLocaleString", { toLocaleString() { apply(typedLength, this, []); return listToLocale(this, arguments[0], arguments[1]); } }.toLocaleString);
})`;


/** The Intl namespace, evaluated by the shim on first read of `Intl`: a function of the shim's helpers returning `Intl`. */
export const INTL_NAMESPACE_SOURCE = String.raw`(function (env) {
  "use strict";
  const { OP, NAMES, G, stringify, parse, defineProp, create, apply, RangeErr, TypeErr, slice, iterator, Str, Num, Obj, slots, slotGet, setSlot, call, slot, localeList, localeSlot, pick, specOf, numeric, timeOf, define, getter, tag } = env;
  const Intl = {};
  tag(Intl, "Intl");

  // One constructor per kind; "callable" kinds may be called without new (ECMA-402 allows it).
  function makeKind(kind, callable, length, methods) {
    const proto = {};
    const ctor = ({ [kind]: function () {
      if (new.target === undefined && !callable) throw new TypeErr("Constructor Intl." + kind + " requires 'new'");
      const spec = specOf(kind, arguments[0], arguments[1]);
      const self = new.target === undefined ? create(proto) : this;
      // Validates and makes the formatter now, so bad locales or options throw here.
      const resolved = call(OP.Resolved, spec);
      setSlot(self, { kind, spec, resolved, bound: undefined });
      return self;
    } })[kind];
    defineProp(ctor, "length", { value: length, configurable: true });
    defineProp(ctor, "prototype", { value: proto, writable: false, enumerable: false, configurable: false });
    define(proto, "constructor", ctor);
    tag(proto, "Intl." + kind);
    define(proto, "resolvedOptions", { resolvedOptions() { return parse(slot(this, kind, "resolvedOptions").resolved); } }.resolvedOptions);
    define(ctor, "supportedLocalesOf", { supportedLocalesOf(locales) { return parse(call(OP.SupportedLocalesOf, specOf(kind, locales, arguments[1]))); } }.supportedLocalesOf);
    for (const name of Obj.keys(methods)) {
      const m = methods[name];
      if (m.bound) {
        getter(proto, name, { [name]() {
          const s = slot(this, kind, name);
          return s.bound || (s.bound = { [name]: function (a, b) { return m.fn(s, a, b); } }[name]);
        } }[name]);
      } else {
        const fn = m.fn;
        const method = { [name](a, b) { return fn(slot(this, kind, name), a, b); } }[name];
        defineProp(method, "length", { value: m.length ?? 1, configurable: true });
        define(proto, name, method);
      }
    }
    define(Intl, kind, ctor);
    return ctor;
  }
  const parts = (code) => (s, a) => parse(call(code, s.spec, a));

  makeKind("DateTimeFormat", true, 0, {
    format: { bound: true, fn: (s, d) => call(OP.Format, s.spec, timeOf(d)) },
    formatToParts: { fn: (s, d) => parse(call(OP.FormatToParts, s.spec, timeOf(d))) },
    formatRange: { length: 2, fn: (s, a, b) => {
      if (a === undefined || b === undefined) throw new TypeErr("Invalid time value");
      return call(OP.FormatRange, s.spec, Num(a), Num(b));
    } },
    formatRangeToParts: { length: 2, fn: (s, a, b) => {
      if (a === undefined || b === undefined) throw new TypeErr("Invalid time value");
      return parse(call(OP.FormatRangeToParts, s.spec, Num(a), Num(b)));
    } },
  });
  makeKind("NumberFormat", true, 0, {
    format: { bound: true, fn: (s, x) => call(OP.Format, s.spec, numeric(x)) },
    formatToParts: { fn: (s, x) => parse(call(OP.FormatToParts, s.spec, numeric(x))) },
    formatRange: { length: 2, fn: (s, a, b) => {
      if (a === undefined || b === undefined) throw new TypeErr("start or end is undefined");
      return call(OP.FormatRange, s.spec, numeric(a), numeric(b));
    } },
    formatRangeToParts: { length: 2, fn: (s, a, b) => {
      if (a === undefined || b === undefined) throw new TypeErr("start or end is undefined");
      return parse(call(OP.FormatRangeToParts, s.spec, numeric(a), numeric(b)));
    } },
  });
  makeKind("PluralRules", false, 0, {
    select: { fn: (s, n) => call(OP.Select, s.spec, Num(n)) },
    selectRange: { length: 2, fn: (s, a, b) => {
      if (a === undefined || b === undefined) throw new TypeErr("start or end is undefined");
      return call(OP.SelectRange, s.spec, Num(a), Num(b));
    } },
  });
  makeKind("Collator", true, 0, {
    compare: { bound: true, fn: (s, a, b) => call(OP.Compare, s.spec, Str(a), Str(b)) },
  });
  makeKind("RelativeTimeFormat", false, 0, {
    format: { length: 2, fn: (s, v, unit) => call(OP.RelativeFormat, s.spec, Num(v), Str(unit)) },
    formatToParts: { length: 2, fn: (s, v, unit) => parse(call(OP.RelativeFormatToParts, s.spec, Num(v), Str(unit))) },
  });
  function listOf(items) {
    if (items === undefined) return "[]";
    const out = [];
    for (const v of items) {
      if (typeof v !== "string") throw new TypeErr("Iterable yielded " + (typeof v === "symbol" ? "a Symbol" : Str(v)) + " which is not a string");
      out.push(v);
    }
    return stringify(out);
  }
  makeKind("ListFormat", false, 0, {
    format: { fn: (s, items) => call(OP.ListFormat, s.spec, listOf(items)) },
    formatToParts: { fn: (s, items) => parse(call(OP.ListFormatToParts, s.spec, listOf(items))) },
  });
  makeKind("DisplayNames", false, 2, {
    of: { fn: (s, code) => call(OP.DisplayOf, s.spec, Str(code)) },
  });

  // Segmenter: the host returns the segments' start indices; the segments are sliced here.
  const segmentsProto = {};
  const segmentIteratorProto = {};
  function segmentData(seg, i) {
    const starts = seg.starts, input = seg.input;
    const start = starts[i], end = i + 1 < starts.length ? starts[i + 1] : input.length;
    const r = { segment: apply(slice, input, [start, end]), index: start, input };
    if (seg.wordLike) r.isWordLike = seg.wordLike[i] === "1";
    return r;
  }
  define(segmentsProto, "containing", { containing(index) {
    const seg = slot(this, "Segments", "containing");
    let n = Num(index);
    if (n !== n) n = 0;
    n = n < 0 ? Math.ceil(n) : Math.floor(n);
    if (n < 0 || n >= seg.input.length) return undefined;
    let lo = 0, hi = seg.starts.length - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (seg.starts[mid] <= n) lo = mid; else hi = mid - 1; }
    return segmentData(seg, lo);
  } }.containing);
  define(segmentsProto, iterator, { [iterator]() {
    const seg = slot(this, "Segments", "[Symbol.iterator]");
    const it = create(segmentIteratorProto);
    setSlot(it, { kind: "SegmentIterator", seg, i: 0 });
    return it;
  } }[iterator]);
  define(segmentIteratorProto, "next", { next() {
    const s = slot(this, "SegmentIterator", "next");
    if (s.i >= s.seg.starts.length) return { value: undefined, done: true };
    return { value: segmentData(s.seg, s.i++), done: false };
  } }.next);
  define(segmentIteratorProto, iterator, { [iterator]() { return this; } }[iterator]);
  tag(segmentIteratorProto, "Segmenter String Iterator");
  makeKind("Segmenter", false, 0, {
    segment: { fn: (s, text) => {
      const input = Str(text);
      const [starts, wordLike] = parse(call(OP.Segment, s.spec, input));
      const segments = create(segmentsProto);
      setSlot(segments, { kind: "Segments", input, starts, wordLike: wordLike || undefined });
      return segments;
    } },
  });

  // Locale: its properties are read once from the host, when it is made.
  const localeProto = {};
  const Locale = { Locale: function (tagValue) {
    if (new.target === undefined) throw new TypeErr("Constructor Intl.Locale requires 'new'");
    if (tagValue === undefined || (typeof tagValue !== "string" && (tagValue === null || typeof tagValue !== "object"))) throw new TypeErr("First argument to Intl.Locale constructor can't be empty or missing");
    const ls = localeSlot(tagValue);
    const info = parse(call(OP.Locale, stringify(["Locale", ls ? ls.info.tag : Str(tagValue), pick("Locale", arguments[1])])));
    setSlot(this, { kind: "Locale", info });
  } }.Locale;
  defineProp(Locale, "prototype", { value: localeProto, writable: false, enumerable: false, configurable: false });
  define(localeProto, "constructor", Locale);
  tag(localeProto, "Intl.Locale");
  for (const key of ["baseName", "calendar", "caseFirst", "collation", "hourCycle", "language", "numberingSystem", "numeric", "region", "script"]) {
    getter(localeProto, key, { [key]() { return slot(this, "Locale", key).info[key]; } }[key]);
  }
  define(localeProto, "toString", { toString() { return slot(this, "Locale", "toString").info.tag; } }.toString);
  define(localeProto, "maximize", { maximize() { return new Locale(slot(this, "Locale", "maximize").info.maximized); } }.maximize);
  define(localeProto, "minimize", { minimize() { return new Locale(slot(this, "Locale", "minimize").info.minimized); } }.minimize);
  define(Intl, "Locale", Locale);

  define(Intl, "getCanonicalLocales", { getCanonicalLocales(locales) { return parse(call(OP.CanonicalLocales, stringify(["", localeList(locales), null]))); } }.getCanonicalLocales);
  define(Intl, "supportedValuesOf", { supportedValuesOf(key) { return parse(call(OP.SupportedValuesOf, "", Str(key))); } }.supportedValuesOf);
  return Intl;
})`;
