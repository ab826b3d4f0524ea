/**
 * The host's verdict on a Python run's tests: the tests text is split again here
 * (splitPythonTests: the count and shape of the tests are the caller's, never the program's),
 * each encoded value the worker sent is checked and decoded, and comparisons are made here with
 * Python's semantics (`1 == 1.0 == True`, a list is not a tuple, dicts and sets without order,
 * `nan` equal to nothing). A value past the encoding's bounds is never equal to anything, nor is
 * an opaque object (an instance of a class of the program) compared with plain data; a
 * comparison with such objects on both sides is decided by the program's own comparison,
 * evaluated by the worker on the same values, and marked so.
 *
 * Runs on the host.
 */
import { MAX_TEST_CASES, type ExecutionError, type TestCase, type TestsOutcome } from "../../types.js";
import type { PythonStepReport } from "../shared/protocol.js";
import { pythonStringRepr } from "../shared/python-repr.js";
import { splitPythonTests, type PythonCompareOp, type PythonTestStep } from "../shared/tests-split.js";

/** A decoded Python value (value-encoder.ts's encoding). */
export type PyValue =
  | { t: "none" }
  | { t: "bool"; v: boolean }
  | { t: "int"; v: bigint }
  | { t: "float"; v: number }
  | { t: "str"; v: string; cut?: true }
  | { t: "bytes"; v: string; cut?: true }
  | { t: "list" | "tuple" | "set" | "frozenset"; items: PyValue[]; cut?: true }
  | { t: "dict"; entries: [PyValue, PyValue][]; cut?: true }
  | { t: "object"; type: string; truthy: boolean }
  | { t: "cut" };

/** Characters of one shown value. */
const MAX_SHOWN_CHARS = 300;
const MAX_SOURCE_CHARS = 300;
const MAX_DEPTH = 16;
const MAX_NODES = 100_000;

function hexText(hex: string): string | undefined {
  if (hex.length % 4 !== 0 || !/^[0-9a-f]*$/.test(hex)) return undefined;
  let out = "";
  for (let i = 0; i < hex.length; i += 4) out += String.fromCharCode(parseInt(hex.slice(i + 2, i + 4) + hex.slice(i, i + 2), 16));
  return out;
}

/**
 * Decodes and checks one encoded value (bounded text from the worker): its reason when it is
 * not a value of the encoding.
 *
 * @example
 * decodePyValue('["l",["i","1"],["f","2.5"]]'); // { t: "list", items: [{ t: "int", v: 1n }, { t: "float", v: 2.5 }] }
 */
export function decodePyValue(text: string): PyValue | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return "a value that is not JSON";
  }
  let nodes = 0;
  const walk = (node: unknown, depth: number): PyValue | string => {
    if (++nodes > MAX_NODES) return "a value with too many nodes";
    if (depth > MAX_DEPTH) return "a value nested too deep";
    if (!Array.isArray(node) || typeof node[0] !== "string") return "a value node that is not tagged";
    const [tag, ...rest] = node as [string, ...unknown[]];
    const str = (k: number) => (typeof rest[k] === "string" ? (rest[k] as string) : undefined);
    switch (tag) {
      case "N":
        return { t: "none" };
      case "T":
      case "F":
        return { t: "bool", v: tag === "T" };
      case "c":
        return { t: "cut" };
      case "i": {
        const h = str(0);
        if (h === undefined || !/^-?[0-9a-f]+$/.test(h)) return "an int that is not hex";
        return { t: "int", v: h.startsWith("-") ? -BigInt(`0x${h.slice(1)}`) : BigInt(`0x${h}`) };
      }
      case "f": {
        const r = str(0);
        if (r === undefined || r.length > 40) return "a float that is not a repr";
        const v = r === "nan" ? NaN : r === "inf" ? Infinity : r === "-inf" ? -Infinity : Number(r);
        if (Number.isNaN(v) && r !== "nan") return "a float that is not a repr";
        return { t: "float", v };
      }
      case "s": {
        const v = hexText(str(0) ?? "x");
        if (v === undefined) return "a str that is not UTF-16 hex";
        return rest[1] === "c" ? { t: "str", v, cut: true } : { t: "str", v };
      }
      case "b": {
        const h = str(0);
        if (h === undefined || h.length % 2 !== 0 || !/^[0-9a-f]*$/.test(h)) return "bytes that are not hex";
        return rest[1] === "c" ? { t: "bytes", v: h, cut: true } : { t: "bytes", v: h };
      }
      case "l":
      case "t":
      case "S":
      case "Z": {
        const items: PyValue[] = [];
        let cut = false;
        for (const child of rest) {
          const item = walk(child, depth + 1);
          if (typeof item === "string") return item;
          if (item.t === "cut") cut = true;
          else items.push(item);
        }
        const t = tag === "l" ? "list" : tag === "t" ? "tuple" : tag === "S" ? "set" : "frozenset";
        return cut ? { t, items, cut: true } : { t, items };
      }
      case "d": {
        const entries: [PyValue, PyValue][] = [];
        let cut = false;
        for (let k = 0; k < rest.length; k++) {
          const key = walk(rest[k], depth + 1);
          if (typeof key === "string") return key;
          if (key.t === "cut") {
            cut = true;
            continue;
          }
          const value = k + 1 < rest.length ? walk(rest[++k], depth + 1) : ({ t: "cut" } as PyValue);
          if (typeof value === "string") return value;
          if (value.t === "cut") cut = true;
          entries.push([key, value]);
        }
        return cut ? { t: "dict", entries, cut: true } : { t: "dict", entries };
      }
      case "o": {
        const type = hexText(str(0) ?? "x");
        if (type === undefined || type.length > 200) return "an object without a type name";
        return { t: "object", type, truthy: rest[1] === 1 };
      }
      default:
        return "a value of no known tag";
    }
  };
  return walk(parsed, 0);
}

/** Whether a value holds a cut (a bound was reached while encoding it). */
function isCut(v: PyValue): boolean {
  if (v.t === "cut") return true;
  if ("cut" in v && v.cut) return true;
  if (v.t === "list" || v.t === "tuple" || v.t === "set" || v.t === "frozenset") return v.items.some(isCut);
  if (v.t === "dict") return v.entries.some(([k, x]) => isCut(k) || isCut(x));
  return false;
}

/** A number's value for Python's mixed comparisons: bool and int as BigInt, float as number. */
function numeric(v: PyValue): bigint | number | undefined {
  if (v.t === "bool") return v.v ? 1n : 0n;
  if (v.t === "int") return v.v;
  if (v.t === "float") return v.v;
  return undefined;
}

function numEq(a: bigint | number, b: bigint | number): boolean {
  if (typeof a === "bigint" && typeof b === "bigint") return a === b;
  if (typeof a === "number" && typeof b === "number") return a === b;
  const f = (typeof a === "number" ? a : b) as number;
  const i = (typeof a === "bigint" ? a : b) as bigint;
  return Number.isInteger(f) && BigInt(f) === i;
}

/** -1, 0, 1, or undefined (nan, or not both numbers). */
function numCmp(a: bigint | number, b: bigint | number): number | undefined {
  if (typeof a === "number" && Number.isNaN(a)) return undefined;
  if (typeof b === "number" && Number.isNaN(b)) return undefined;
  if (numEq(a, b)) return 0;
  if (typeof a === "bigint" && typeof b === "bigint") return a < b ? -1 : 1;
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : 1;
  // Mixed: compare the float's floor with the int exactly (a float past 2^53 is an integer).
  const f = (typeof a === "number" ? a : b) as number;
  const i = (typeof a === "bigint" ? a : b) as bigint;
  let sign: number;
  if (!Number.isFinite(f)) sign = f > 0 ? 1 : -1;
  else {
    const fl = BigInt(Math.floor(f));
    sign = fl > i ? 1 : fl < i ? -1 : f > Math.floor(f) ? 1 : 0;
  }
  return typeof a === "number" ? sign : -sign;
}

/** A key that is equal for values Python's `==` calls equal (hashable values only). */
function hashKey(v: PyValue): string {
  const n = numeric(v);
  if (n !== undefined) {
    if (typeof n === "bigint") return `n${n}`;
    if (Number.isInteger(n)) return `n${BigInt(n)}`;
    return Number.isNaN(n) ? `nan${Math.random()}` : `f${n}`;
  }
  switch (v.t) {
    case "none":
      return "N";
    case "str":
      return `s${JSON.stringify(v.v)}`;
    case "bytes":
      return `b${v.v}`;
    case "tuple":
      return `t(${v.items.map(hashKey).join(",")})`;
    case "frozenset":
      return `z{${v.items.map(hashKey).sort().join(",")}}`;
    default:
      // Unhashable or opaque: equal to nothing else.
      return `?${Math.random()}`;
  }
}

/**
 * Python's `a == b` for decoded values: `undefined` when it cannot be decided outside (a cut).
 *
 * @example
 * pyEquals({ t: "int", v: 1n }, { t: "float", v: 1 }); // true
 */
export function pyEquals(a: PyValue, b: PyValue): boolean | undefined {
  if (isCut(a) || isCut(b)) return undefined;
  return eq(a, b);
}

function eq(a: PyValue, b: PyValue): boolean {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined || nb !== undefined) return na !== undefined && nb !== undefined && numEq(na, nb);
  if (a.t === "object" || b.t === "object") return false;
  if (a.t === "none" || b.t === "none") return a.t === b.t;
  if (a.t === "str" && b.t === "str") return a.v === b.v;
  if (a.t === "bytes" && b.t === "bytes") return a.v === b.v;
  if ((a.t === "list" && b.t === "list") || (a.t === "tuple" && b.t === "tuple")) {
    return a.items.length === b.items.length && a.items.every((x, i) => eq(x, b.items[i]!));
  }
  const isSet = (v: PyValue) => v.t === "set" || v.t === "frozenset";
  if (isSet(a) && isSet(b)) {
    const ka = new Set((a as { items: PyValue[] }).items.map(hashKey));
    const kb = new Set((b as { items: PyValue[] }).items.map(hashKey));
    return ka.size === kb.size && [...ka].every((k) => kb.has(k));
  }
  if (a.t === "dict" && b.t === "dict") {
    if (a.entries.length !== b.entries.length) return false;
    const byKey = new Map(b.entries.map(([k, v]) => [hashKey(k), v]));
    return a.entries.every(([k, v]) => {
      const other = byKey.get(hashKey(k));
      return other !== undefined && eq(v, other);
    });
  }
  return false;
}

/** Python's `a < b` style ordering: -1, 0, 1, or undefined (not ordered outside, or a TypeError). */
function order(a: PyValue, b: PyValue): number | undefined {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return numCmp(na, nb);
  if (a.t === "str" && b.t === "str") {
    const ca = [...a.v];
    const cb = [...b.v];
    for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
      const x = ca[i]!.codePointAt(0)!;
      const y = cb[i]!.codePointAt(0)!;
      if (x !== y) return x < y ? -1 : 1;
    }
    return Math.sign(ca.length - cb.length);
  }
  if (a.t === "bytes" && b.t === "bytes") return a.v === b.v ? 0 : a.v < b.v ? -1 : 1;
  if ((a.t === "list" && b.t === "list") || (a.t === "tuple" && b.t === "tuple")) {
    for (let i = 0; i < Math.min(a.items.length, b.items.length); i++) {
      if (eq(a.items[i]!, b.items[i]!)) continue;
      return order(a.items[i]!, b.items[i]!);
    }
    return Math.sign(a.items.length - b.items.length);
  }
  return undefined;
}

/** Python's truth of a decoded value (an opaque object's is the one the program computed). */
function truthy(v: PyValue): boolean {
  switch (v.t) {
    case "none":
      return false;
    case "bool":
      return v.v;
    case "int":
      return v.v !== 0n;
    case "float":
      return v.v !== 0;
    case "str":
    case "bytes":
      return v.v.length > 0;
    case "list":
    case "tuple":
    case "set":
    case "frozenset":
      return v.items.length > 0;
    case "dict":
      return v.entries.length > 0;
    case "object":
      return v.truthy;
    case "cut":
      return true;
  }
}

/** `a in b`: undefined when not decidable outside. */
function contains(b: PyValue, a: PyValue): boolean | undefined {
  if (b.t === "str" && a.t === "str") return b.cut ? (b.v.includes(a.v) ? true : undefined) : b.v.includes(a.v);
  if (b.t === "bytes" && a.t === "bytes") return b.v.length % 2 === 0 && (b.v.match(/../g) ?? []).join(",").includes((a.v.match(/../g) ?? []).join(",")) ? true : b.cut ? undefined : false;
  if (b.t === "list" || b.t === "tuple" || b.t === "set" || b.t === "frozenset") {
    if (b.items.some((x) => !isCut(x) && !isCut(a) && eq(a, x))) return true;
    return isCut(b) || isCut(a) ? undefined : false;
  }
  if (b.t === "dict") {
    if (b.entries.some(([k]) => !isCut(k) && !isCut(a) && eq(a, k))) return true;
    return isCut(b) || isCut(a) ? undefined : false;
  }
  return undefined;
}

/** `a is b` outside: only for the singletons None, True and False (else not decidable). */
function identical(a: PyValue, b: PyValue): boolean | undefined {
  const single = (v: PyValue) => v.t === "none" || v.t === "bool";
  if (single(a) || single(b)) return a.t === b.t && (a.t !== "bool" || a.v === (b as { v: boolean }).v);
  return undefined;
}

/** `op` applied outside: true, false, or undefined (not decidable here). */
function compare(op: PythonCompareOp, a: PyValue, b: PyValue): boolean | undefined {
  switch (op) {
    case "==":
      return pyEquals(a, b);
    case "!=": {
      const r = pyEquals(a, b);
      return r === undefined ? undefined : !r;
    }
    case "in":
      return contains(b, a);
    case "not in": {
      const r = contains(b, a);
      return r === undefined ? undefined : !r;
    }
    case "is":
      return identical(a, b);
    case "is not": {
      const r = identical(a, b);
      return r === undefined ? undefined : !r;
    }
    default: {
      if (isCut(a) || isCut(b)) return undefined;
      const o = order(a, b);
      if (o === undefined) return undefined;
      return op === "<" ? o < 0 : op === "<=" ? o <= 0 : op === ">" ? o > 0 : o >= 0;
    }
  }
}

/** `math.isclose(a, b, rel_tol, abs_tol)` outside. */
function isClose(a: PyValue, b: PyValue, rel?: PyValue, abs?: PyValue): boolean | undefined {
  const num = (v: PyValue | undefined, d: number) => {
    if (v === undefined) return d;
    const n = numeric(v);
    return n === undefined ? undefined : Number(n);
  };
  const x = num(a, NaN);
  const y = num(b, NaN);
  const r = num(rel, 1e-9);
  const t = num(abs, 0);
  if (x === undefined || y === undefined || r === undefined || t === undefined || r < 0 || t < 0) return undefined;
  if (x === y) return true;
  if (!Number.isFinite(x) || !Number.isFinite(y)) return false;
  const diff = Math.abs(y - x);
  return diff <= Math.abs(r * y) || diff <= Math.abs(r * x) || diff <= t;
}

function floatRepr(v: number): string {
  if (Number.isNaN(v)) return "nan";
  if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
  if (Object.is(v, -0)) return "-0.0";
  const abs = Math.abs(v);
  if (abs !== 0 && (abs >= 1e16 || abs < 1e-4)) {
    const [m, e] = v.toExponential().split("e") as [string, string];
    const exp = Number(e);
    return `${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  const s = String(v);
  return /[.e]/.test(s) ? s : `${s}.0`;
}

function bytesRepr(hex: string): string {
  let body = "";
  for (let i = 0; i < hex.length; i += 2) {
    const c = parseInt(hex.slice(i, i + 2), 16);
    if (c === 0x5c) body += "\\\\";
    else if (c === 0x27) body += "\\'";
    else if (c === 0x0a) body += "\\n";
    else if (c === 0x0d) body += "\\r";
    else if (c === 0x09) body += "\\t";
    else if (c < 0x20 || c >= 0x7f) body += `\\x${c.toString(16).padStart(2, "0")}`;
    else body += String.fromCharCode(c);
  }
  return `b'${body}'`;
}

/**
 * A decoded value as Python's `repr` shows it (built here from the data: a class's `__repr__`
 * is not consulted), cut to about `maxChars`.
 *
 * @example
 * pyRepr({ t: "tuple", items: [{ t: "int", v: 1n }] }); // "(1,)"
 */
export function pyRepr(v: PyValue, maxChars = MAX_SHOWN_CHARS): string {
  const out: string[] = [];
  let used = 0;
  const put = (s: string): boolean => {
    if (used > maxChars) return false;
    out.push(s);
    used += s.length;
    return used <= maxChars;
  };
  const items = (vs: PyValue[], open: string, close: string, more: boolean, single = false): void => {
    put(open);
    vs.forEach((x, i) => {
      if (i > 0) put(", ");
      walk(x);
    });
    if (single && vs.length === 1) put(",");
    if (more) put(vs.length > 0 ? ", ..." : "...");
    put(close);
  };
  const walk = (x: PyValue): void => {
    if (used > maxChars) return;
    switch (x.t) {
      case "none":
        put("None");
        return;
      case "bool":
        put(x.v ? "True" : "False");
        return;
      case "int":
        put(x.v.toString());
        return;
      case "float":
        put(floatRepr(x.v));
        return;
      case "str":
        put(pythonStringRepr(x.v) + (x.cut ? "..." : ""));
        return;
      case "bytes":
        put(bytesRepr(x.v) + (x.cut ? "..." : ""));
        return;
      case "list":
        items(x.items, "[", "]", x.cut === true);
        return;
      case "tuple":
        items(x.items, "(", ")", x.cut === true, true);
        return;
      case "set":
        if (x.items.length === 0 && !x.cut) put("set()");
        else items(x.items, "{", "}", x.cut === true);
        return;
      case "frozenset":
        put("frozenset(");
        if (x.items.length > 0 || x.cut) items(x.items, "{", "}", x.cut === true);
        put(")");
        return;
      case "dict":
        put("{");
        x.entries.forEach(([k, val], i) => {
          if (i > 0) put(", ");
          walk(k);
          put(": ");
          walk(val);
        });
        if (x.cut) put(x.entries.length > 0 ? ", ..." : "...");
        put("}");
        return;
      case "object":
        put(`<${x.type} object>`);
        return;
      case "cut":
        put("...");
        return;
    }
  };
  walk(v);
  const text = out.join("");
  return text.length > maxChars ? `${text.slice(0, Math.max(0, maxChars - 3))}...` : text;
}

const cap = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 3)}...` : s);

/** Whether a value holds an object of the program's own class (no data to compare it by). */
function holdsObject(v: PyValue): boolean {
  if (v.t === "object") return true;
  if (v.t === "list" || v.t === "tuple" || v.t === "set" || v.t === "frozenset") return v.items.some(holdsObject);
  if (v.t === "dict") return v.entries.some(([k, x]) => holdsObject(k) || holdsObject(x));
  return false;
}

/**
 * The verdict of one shaped test from its decoded parts. A comparison whose two sides both hold
 * objects of the program's own class (`f() == Point(1, 2)`) is the program's: their `__eq__` is
 * the only meaning `==` has for them, so the interpreter's answer on the same values
 * (`byProgram`) decides, marked `decidedBy: "program"` (a program can forge it; the others it
 * cannot). With plain data on one side (`f() == 7`) it is decided here, where an object equals
 * nothing.
 */
function judgeShaped(step: PythonTestStep, values: PyValue[], out: TestCase, byProgram?: boolean): void {
  const shape = step.shape!;
  const [a, b] = values as [PyValue, PyValue | undefined];
  let ok: boolean | undefined;
  if (shape.kind === "compare") {
    out.expression = cap(shape.left, MAX_SOURCE_CHARS);
    out.operator = shape.op;
    out.actual = pyRepr(a);
    out.expected = pyRepr(b!);
    if (holdsObject(a) && holdsObject(b!) && !values.some(isCut)) {
      ok = byProgram;
      out.decidedBy = "program";
      if (ok !== undefined) out.note = "an object of the program's own class: its own comparison decided this test (the program can forge such a verdict)";
    } else ok = compare(shape.op, a, b!);
  } else if (shape.kind === "truthy") {
    out.expression = cap(shape.operand, MAX_SOURCE_CHARS);
    out.operator = "truthy";
    out.actual = pyRepr(a);
    ok = truthy(a);
    if (a.t === "object") out.decidedBy = "program";
  } else {
    out.expression = cap(shape.a, MAX_SOURCE_CHARS);
    out.operator = "isclose";
    out.actual = pyRepr(a);
    out.expected = pyRepr(b!);
    let k = 2;
    const rel = shape.relTol !== undefined ? values[k++] : undefined;
    const abs = shape.absTol !== undefined ? values[k++] : undefined;
    ok = isClose(a, b!, rel, abs);
  }
  if (ok === undefined) {
    out.status = "failed";
    out.note = values.some(isCut)
      ? "a value was too large or too deep to compare outside the program; it counts as failed"
      : "these values cannot be compared outside the program (an object of the program's own class, or types Python cannot compare); it counts as failed";
    return;
  }
  if (shape.negate) ok = !ok;
  out.status = ok ? "passed" : "failed";
}

/** The failure a failed case stands for, as the `error` of the tests (old readers keep working). */
function caseError(c: TestCase): ExecutionError {
  if (c.error) return c.error;
  // The message a bare failed assert always had; the values are in the case.
  return { name: "AssertionError", message: cap(`failed: ${c.source.trim()}`, 2000), line: c.line };
}

/**
 * Judges a Python run's tests from the worker's step reports: cases, counts, status and the
 * first failure. `reports` may be shorter than the split (a limit ended the tests): the rest are
 * errors that did not finish.
 *
 * @example
 * judgePythonTests("assert f() == 2", [{ kind: "values", values: ['["i","3"]', '["i","2"]'] }]).passed; // 0
 */
export function judgePythonTests(
  tests: string,
  reports: readonly PythonStepReport[],
  ended?: ExecutionError,
): Pick<TestsOutcome, "status" | "error" | "total" | "passed" | "cases"> {
  const steps = splitPythonTests(tests);
  const cases: TestCase[] = [];
  let total = 0;
  let passed = 0;
  let first: TestCase | undefined;
  steps.forEach((step, i) => {
    const report = reports[i];
    if (step.role === "test") total++;
    const c: TestCase = { line: step.line, source: cap(step.source, MAX_SOURCE_CHARS), status: "passed", role: step.role, decidedBy: step.shape ? "outside" : "program" };
    if (report === undefined) {
      c.status = "error";
      c.error = ended ?? { name: "Error", message: "the tests ended before this statement ran", line: step.line };
    } else if (report.kind === "raised") {
      c.status = step.role === "test" && report.error.name === "AssertionError" && !step.shape ? "failed" : "error";
      c.error = report.error;
    } else if (report.kind === "values") {
      const decoded = step.shape ? report.values.map(decodePyValue) : [];
      const expected = step.shape?.kind === "compare" || step.shape?.kind === "isclose" ? 2 + (step.shape.kind === "isclose" ? Number(step.shape.relTol !== undefined) + Number(step.shape.absTol !== undefined) : 0) : 1;
      if (!step.shape || decoded.length !== expected || decoded.some((d) => typeof d === "string")) {
        c.status = "error";
        c.error = { name: "SandboxViolation", message: "the interpreter sent values that do not match this test; it counts as failed", line: step.line };
      } else judgeShaped(step, decoded as PyValue[], c, report.byProgram);
    } else if (step.shape) {
      // A shaped test must send its values: "it ran" is not a verdict for it.
      c.status = "error";
      c.error = { name: "SandboxViolation", message: "the interpreter sent no values for this test; it counts as failed", line: step.line };
    }
    if (step.role === "test" && c.status === "passed") passed++;
    if (c.status !== "passed") first ??= c;
    if ((step.role === "test" || c.status !== "passed") && cases.length < MAX_TEST_CASES) cases.push(c);
  });
  const out: Pick<TestsOutcome, "status" | "error" | "total" | "passed" | "cases"> = { status: first ? "failed" : "passed", total, passed, cases };
  if (first) out.error = caseError(first);
  return out;
}
