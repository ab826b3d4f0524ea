/**
 * A run's Python `tests` split into top-level statements, each with the shape of what it checks.
 * The same pure function runs in the Deno worker (to run each statement on its own) and on the
 * host (to know how many tests there are and what each compares, whatever the worker says): the
 * tests are the caller's text, so their split is never the program's to decide.
 *
 * Shapes: `assert A == B` (and `!=`, `<`, `<=`, `>`, `>=`, `in`, `not in`, `is`, `is not`),
 * `assert A`, `assert not ...` of either, and `assert math.isclose(A, B, rel_tol=..., abs_tol=...)`.
 * Anything else that contains `assert` or `raise` is a test the interpreter's own evaluation
 * decides; other statements (imports, definitions, assignments, calls) are `setup`.
 *
 * The text is assumed to compile (the worker compiles it whole first); the scanner knows strings
 * (prefixes, triple quotes, f-string replacement fields), comments, brackets and continuations.
 */

/** A comparison operator of an assert's top level. */
export type PythonCompareOp = "==" | "!=" | "<" | "<=" | ">" | ">=" | "in" | "not in" | "is" | "is not";

/** What a test statement checks, when the host can decide it from the values of its parts. */
export type PythonTestShape =
  | { kind: "compare"; op: PythonCompareOp; negate: boolean; left: string; right: string }
  | { kind: "truthy"; negate: boolean; operand: string }
  | { kind: "isclose"; negate: boolean; a: string; b: string; relTol?: string; absTol?: string };

/** One top-level statement of the tests. */
export interface PythonTestStep {
  /** `setup` runs in order and only fails the tests if it raises; `test` is a test. */
  role: "setup" | "test";
  /** 1-based line of the statement's first character in the tests text. */
  line: number;
  /** The statement's text (a `;`-separated part alone, without leading blanks). */
  source: string;
  /** For a test whose parts the guest evaluates and the host compares. */
  shape?: PythonTestShape;
  /** The 1-based line of each part's first character (same order as the parts' evaluation). */
  partLines?: number[];
}

/** Statements the split keeps at most; the rest run as one last `whole` statement. */
export const MAX_TEST_STEPS = 500;

interface Scan {
  /** The text with string contents and comments blanked (same length, newlines kept). */
  masked: string;
  /** Bracket depth before each character. */
  depth: Int32Array;
}

const PREFIX = /^[rRbBuUfFtT]{1,2}$/;

/** Blanks strings and comments; records bracket depth. */
function scan(text: string): Scan {
  const out = text.split("");
  const depth = new Int32Array(text.length + 1);
  let d = 0;
  let i = 0;
  const blank = (from: number, to: number): void => {
    for (let k = from; k < to; k++) if (out[k] !== "\n") out[k] = " ";
  };
  // Returns the index after the string that starts with its quote at `q`.
  const skipString = (q: number, fString: boolean): number => {
    const quote = text[q]!;
    const triple = text.startsWith(quote.repeat(3), q);
    let k = q + (triple ? 3 : 1);
    while (k < text.length) {
      const c = text[k]!;
      if (c === "\\") {
        k += 2;
        continue;
      }
      if (fString && c === "{") {
        if (text[k + 1] === "{") {
          k += 2;
          continue;
        }
        k = skipField(k + 1);
        continue;
      }
      if (triple ? text.startsWith(quote.repeat(3), k) : c === quote) return k + (triple ? 3 : 1);
      if (!triple && c === "\n") return k;
      k++;
    }
    return k;
  };
  // An f-string's replacement field, from after its `{` to after its `}`.
  const skipField = (from: number): number => {
    let k = from;
    let inner = 0;
    while (k < text.length) {
      const c = text[k]!;
      if (c === "'" || c === '"') {
        k = skipString(k, false);
        continue;
      }
      const word = stringPrefixAt(k);
      if (word) {
        k = skipString(k + word.length, /[fFtT]/.test(word));
        continue;
      }
      if (c === "(" || c === "[" || c === "{") inner++;
      else if (c === ")" || c === "]") inner--;
      else if (c === "}") {
        if (inner === 0) return k + 1;
        inner--;
      }
      k++;
    }
    return k;
  };
  // A string prefix (`rb`, `f`) that starts at `k` and is followed by a quote, as a word of its own.
  const stringPrefixAt = (k: number): string | undefined => {
    if (k > 0 && /[\w]/.test(text[k - 1]!)) return undefined;
    for (const n of [2, 1]) {
      const word = text.slice(k, k + n);
      if (PREFIX.test(word) && (text[k + n] === "'" || text[k + n] === '"')) return word;
    }
    return undefined;
  };
  while (i < text.length) {
    depth[i] = d;
    const c = text[i]!;
    if (c === "#") {
      let k = i;
      while (k < text.length && text[k] !== "\n") k++;
      blank(i, k);
      for (let j = i; j < k; j++) depth[j] = d;
      i = k;
      continue;
    }
    const prefix = stringPrefixAt(i);
    if (prefix || c === "'" || c === '"') {
      const q = i + (prefix?.length ?? 0);
      const end = skipString(q, prefix !== undefined && /[fFtT]/.test(prefix));
      // The quotes stay (a string is a value: `x == ''` keeps its right side), the contents go.
      const quote = text[q]!;
      blank(i, end);
      out[i] = quote;
      if (end - 1 > i) out[end - 1] = quote;
      for (let j = i; j < end; j++) depth[j] = d;
      i = end;
      continue;
    }
    if (c === "(" || c === "[" || c === "{") d++;
    else if (c === ")" || c === "]" || c === "}") d = Math.max(0, d - 1);
    i++;
  }
  depth[text.length] = d;
  return { masked: out.join(""), depth };
}

interface Logical {
  start: number;
  end: number;
  indent: number;
}

/** Logical lines: ends at a newline outside brackets that no backslash continues. */
function logicalLines(text: string, s: Scan): Logical[] {
  const lines: Logical[] = [];
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && (s.masked[i] !== "\n" || s.depth[i]! > 0)) continue;
    if (i < text.length && i > 0 && s.masked[i - 1] === "\\") continue;
    const body = s.masked.slice(start, i);
    if (body.trim() !== "") {
      const indent = body.length - body.replace(/^[ \t\f]+/, "").length;
      lines.push({ start: start + indent, end: i, indent });
    }
    start = i + 1;
  }
  return lines;
}

const COMPOUND = /^(?:(?:def|class|if|for|while|with|try|async)(?![\w])|@)/;
const CONTINUES = /^(?:else|elif|except|finally)(?![\w])/;

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * The tests' top-level statements in order, each with its role and, for an assert of a shape
 * the host can decide, its parts.
 *
 * @example
 * splitPythonTests("import math\nassert f(1) == 2; assert g()").map((s) => s.shape?.kind ?? s.role);
 * // ["setup", "compare", "truthy"]
 */
export function splitPythonTests(text: string): PythonTestStep[] {
  const s = scan(text);
  const lines = logicalLines(text, s);
  const spans: { start: number; end: number }[] = [];
  for (let n = 0; n < lines.length; n++) {
    const first = lines[n]!;
    const head = s.masked.slice(first.start, first.end);
    const compound = COMPOUND.test(head) || (/^match(?![\w])/.test(head) && head.trimEnd().endsWith(":"));
    if (first.indent > 0 || (CONTINUES.test(head) && spans.length > 0)) {
      // A line of the statement before (a body, an `else:`): joined to it.
      if (spans.length > 0) spans[spans.length - 1]!.end = first.end;
      else spans.push({ start: first.start, end: first.end });
      continue;
    }
    if (compound) {
      spans.push({ start: first.start, end: first.end });
      // A decorator belongs to the statement it decorates.
      while (s.masked.slice(lines[n]!.start, lines[n]!.end).startsWith("@") && n + 1 < lines.length && lines[n + 1]!.indent === 0) {
        n++;
        spans[spans.length - 1]!.end = lines[n]!.end;
      }
      continue;
    }
    // Simple statements, split at `;` outside brackets.
    let from = first.start;
    for (let i = first.start; i <= first.end; i++) {
      if (i < first.end && (s.masked[i] !== ";" || s.depth[i]! > 0)) continue;
      const part = s.masked.slice(from, i);
      if (part.trim() !== "") {
        const lead = part.length - part.replace(/^\s+/, "").length;
        spans.push({ start: from + lead, end: i });
      }
      from = i + 1;
    }
  }
  if (spans.length > MAX_TEST_STEPS) {
    const rest = spans.splice(MAX_TEST_STEPS - 1);
    spans.push({ start: rest[0]!.start, end: rest[rest.length - 1]!.end });
  }
  return spans.map(({ start, end: spanEnd }) => {
    // A trailing comment is not part of the statement (comments are blank in the masked text).
    let end = spanEnd;
    while (end > start && /\s/.test(s.masked[end - 1]!)) end--;
    const source = text.slice(start, end);
    const masked = s.masked.slice(start, start + source.length);
    const line = lineOf(text, start);
    const isAssert = /^assert(?![\w])/.test(masked);
    // A statement that asserts or raises checks something: a test (an `if ...: raise` is one).
    const hasAssert = /(?<![\w.])(?:assert|raise)(?![\w])/.test(masked);
    const step: PythonTestStep = { role: isAssert || hasAssert ? "test" : "setup", line, source };
    if (isAssert) {
      const shaped = assertShape(source, masked, s.depth.subarray(start, start + source.length));
      if (shaped) {
        step.shape = shaped.shape;
        step.partLines = shaped.offsets.map((o) => line + lineOf(source, o) - 1);
      }
    }
    return step;
  });
}

/** Words that bind looser than a comparison (or make the assert something else): no shape. */
const LOOSE = /(?<![\w.])(?:and|or|if|else|lambda|for|yield)(?![\w])|:=/;

interface Shaped {
  shape: PythonTestShape;
  /** Offsets (in the statement) of the parts, in evaluation order. */
  offsets: number[];
}

function assertShape(source: string, masked: string, depth: Int32Array): Shaped | undefined {
  let from = "assert".length;
  while (from < masked.length && /\s/.test(masked[from]!)) from++;
  // The message after a top-level comma is not part of what is checked.
  let to = masked.length;
  for (let i = from; i < masked.length; i++) {
    if (masked[i] === "," && depth[i] === 0) {
      to = i;
      break;
    }
  }
  let negate = false;
  const exprMasked = masked.slice(0, to);
  let at = from;
  const notWord = /^not(?![\w])\s*/.exec(exprMasked.slice(at));
  if (notWord) {
    negate = true;
    at += notWord[0].length;
  }
  const body = exprMasked.slice(at);
  if (body.trim() === "") return undefined;
  // `assert (a == b)`: parentheses around the whole expression (not a tuple's) are looked through.
  let base = 0;
  for (;;) {
    const first = at + (body.length - body.trimStart().length);
    let last = to - 1;
    while (last > first && /\s/.test(exprMasked[last]!)) last--;
    if (exprMasked[first] !== "(" || exprMasked[last] !== ")" || depth[first] !== base) break;
    let encloses = true;
    let tuple = false;
    for (let i = first + 1; i < last; i++) {
      if (depth[i]! <= base) encloses = false;
      if (depth[i] === base + 1 && exprMasked[i] === ",") tuple = true;
    }
    if (!encloses || tuple || last === first + 1) break;
    base++;
    at = first + 1;
    to = last;
    break;
  }
  // Loose words only count outside brackets.
  let flat = "";
  for (let i = at; i < to; i++) flat += depth[i] === base ? exprMasked[i] : " ";
  if (LOOSE.test(flat) || /(?<![\w.])not(?![\w])/.test(flat.replace(/(?<![\w.])(?:not\s+in|is\s+not)(?![\w])/g, (m) => " ".repeat(m.length)))) return undefined;
  const ops = topLevelComparisons(flat);
  const text = (a: number, b: number) => source.slice(at + a, at + b).trim();
  const lead = (a: number) => {
    let k = at + a;
    while (k < source.length && /\s/.test(source[k]!)) k++;
    return k;
  };
  if (ops.length > 1) return undefined;
  if (ops.length === 1) {
    const op = ops[0]!;
    const left = text(0, op.at);
    const right = text(op.at + op.length, flat.length);
    if (left === "" || right === "") return undefined;
    return { shape: { kind: "compare", op: op.op, negate, left, right }, offsets: [lead(0), lead(op.at + op.length)] };
  }
  const close = base === 0 ? /^math\s*\.\s*isclose\s*\(/.exec(flat.trimStart()) : null;
  const callText = exprMasked.slice(at, to);
  if (close && callText.trimEnd().endsWith(")")) {
    const open = flat.indexOf("(");
    const end = callText.trimEnd().length - 1;
    // The call's parentheses must enclose the rest: depth 1 from `(` to the last `)`.
    let ok = true;
    const commas: number[] = [];
    for (let i = at + open + 1; i < at + end; i++) {
      if (depth[i]! < 1) ok = false;
      if (depth[i] === 1 && masked[i] === ",") commas.push(i - at);
    }
    if (ok) {
      const args: { name?: string; text: string; offset: number }[] = [];
      let prev = open + 1;
      for (const c of [...commas, end]) {
        const raw = source.slice(at + prev, at + c);
        if (raw.trim() !== "") {
          const kw = /^\s*(\w+)\s*=(?!=)/.exec(raw);
          args.push(kw ? { name: kw[1]!, text: raw.slice(kw[0].length).trim(), offset: prev + kw[0].length } : { text: raw.trim(), offset: prev });
        }
        prev = c + 1;
      }
      const positional = args.filter((a) => a.name === undefined);
      const named = new Map(args.filter((a) => a.name !== undefined).map((a) => [a.name!, a]));
      const known = [...named.keys()].every((k) => k === "rel_tol" || k === "abs_tol");
      if (positional.length === 2 && known && args.slice(0, 2).every((a) => a.name === undefined)) {
        const shape: PythonTestShape = { kind: "isclose", negate, a: positional[0]!.text, b: positional[1]!.text };
        const offsets = [lead(positional[0]!.offset), lead(positional[1]!.offset)];
        const rel = named.get("rel_tol");
        const abs = named.get("abs_tol");
        if (rel) {
          shape.relTol = rel.text;
          offsets.push(lead(rel.offset));
        }
        if (abs) {
          shape.absTol = abs.text;
          offsets.push(lead(abs.offset));
        }
        return { shape, offsets };
      }
    }
  }
  return { shape: { kind: "truthy", negate, operand: text(0, flat.length) }, offsets: [lead(0)] };
}

/** Comparison operators outside brackets in masked text (`not in`, `is not` as one). */
function topLevelComparisons(flat: string): { op: PythonCompareOp; at: number; length: number }[] {
  const found: { op: PythonCompareOp; at: number; length: number }[] = [];
  const re = /(?<![\w.])not\s+in(?![\w])|(?<![\w.])is\s+not(?![\w])|(?<![\w.])(?:in|is)(?![\w])|==|!=|<=|>=|<<|>>|->|<|>/g;
  for (let m = re.exec(flat); m; m = re.exec(flat)) {
    const word = m[0];
    if (word === "<<" || word === ">>" || word === "->") continue;
    // `a <<= b`, `x >= y` are handled by the alternatives' order; a lone `=` is not a comparison.
    const op = (/^not\s+in$/.test(word) ? "not in" : /^is\s+not$/.test(word) ? "is not" : word) as PythonCompareOp;
    found.push({ op, at: m.index, length: word.length });
  }
  return found;
}
