/**
 * What a block of a reply is, read as Python on the host without starting Python: whether it
 * plausibly parses, the names it defines and uses, and whether it is a program or only a value.
 *
 * A light tokenizer (strings, comments, brackets, logical lines, indentation), not a parser:
 * the sandbox's own compile still checks the program that is chosen. Its limits: it accepts
 * some code CPython rejects (it does not know the grammar beyond brackets, indentation, adjacent
 * atoms and `return`/`yield` outside a function); names bound only through `global`, `exec` or
 * `from m import *` are not seen; a name used only as a default value of a parameter counts as
 * bound when the same name is also a parameter somewhere.
 */
import type { SourceFacts } from "./source-facts.js";

const KEYWORDS = new Set([
  "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except", "finally",
  "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
  "while", "with", "yield",
]);
/** Keywords that are also values: they end an expression like a name does. */
const VALUE_KEYWORDS = new Set(["True", "False", "None"]);
/** Soft keywords: keywords only at the start of a statement. */
const SOFT_KEYWORDS = new Set(["match", "case", "type"]);
const STATEMENT_KEYWORDS = new Set(["def", "class", "import", "from", "for", "while", "if", "with", "try", "assert", "raise", "del", "return", "global", "async", "match"]);
const OUTPUT_CALLS = new Set(["print", "pprint"]);
const STRING_PREFIX = /^(?:[rRbBuUfFtT]|[rR][bBfFtT]|[bBfFtT][rR])$/;
const OPERATORS = [
  "**=", "//=", ">>=", "<<=", "...", "->", ":=", "==", "!=", "<=", ">=", "**", "//", "<<", ">>", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=",
  "+", "-", "*", "/", "%", "@", "&", "|", "^", "~", "<", ">", "(", ")", "[", "]", "{", "}", ",", ":", ";", ".", "=",
];
const CLOSERS: Record<string, string> = { ")": "(", "]": "[", "}": "{" };
const NUMBER = /^(?:0[xXoObB][\da-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?)/;
const NAME = /^[A-Za-z_\u00C0-\uFFFF][\w\u00C0-\uFFFF]*/;

interface Token {
  kind: "name" | "number" | "string" | "op";
  text: string;
  /** Names read inside an f-string's `{...}` parts. */
  names?: string[];
}

interface LogicalLine {
  indent: number;
  tokens: Token[];
}

interface Tokenized {
  lines: LogicalLine[];
  error?: string;
}

/**
 * Facts about `code` as Python.
 *
 * @example
 * ```ts
 * scanPython("def f(n):\n    return n\n").defines; // Set { "f" }
 * scanPython("print(f(3))").uses; // Set { "print", "f" }
 * ```
 */
export function scanPython(code: string): SourceFacts {
  const { lines, error } = tokenize(code);
  const facts: SourceFacts = {
    parses: error === undefined,
    defines: new Set(),
    uses: new Set(),
    empty: lines.length === 0,
    literalOnly: lines.length > 0,
    acts: false,
    definitionsOnly: lines.length > 0,
    looksLikeOtherLanguage: false,
  };
  if (error !== undefined) facts.reason = error;
  const bound = new Set<string>();
  const mentioned = new Set<string>();
  // Indentation stack with what each level belongs to: a function or class body is not module scope.
  const levels: { indent: number; scope: "module" | "local" }[] = [{ indent: 0, scope: "module" }];
  let opensBlock: "module" | "local" | undefined;
  for (const [index, line] of lines.entries()) {
    const { indent, tokens } = line;
    const top = levels.at(-1)!;
    if (index === 0 && indent > 0) fail(facts, "the first line is indented");
    if (opensBlock !== undefined) {
      if (indent > top.indent) levels.push({ indent, scope: opensBlock });
      else fail(facts, "a block header (ending with ':') has no indented body");
    } else if (indent > top.indent) {
      if (index > 0) fail(facts, "a line is indented without a block header before it");
    }
    while (levels.length > 1 && levels.at(-1)!.indent > indent) levels.pop();
    if (levels.at(-1)!.indent !== indent && index > 0) fail(facts, "a line's indentation matches no outer block");
    const moduleScope = levels.every((level) => level.scope === "module");
    const first = tokens[0]!;
    const header = tokens.at(-1)!.kind === "op" && tokens.at(-1)!.text === ":";
    const startsDefinition = first.text === "def" || first.text === "class" || (first.text === "async" && tokens[1]?.text === "def");
    opensBlock = header ? (startsDefinition || !moduleScope ? "local" : "module") : undefined;
    if (facts.parses) checkLine(facts, tokens, moduleScope);
    readNames(tokens, moduleScope ? facts.defines : undefined, bound, mentioned);
    classify(facts, tokens, moduleScope && levels.length === 1);
  }
  if (facts.parses && opensBlock !== undefined) fail(facts, "the code ends with a block header (ending with ':') and no body");
  for (const name of mentioned) if (!bound.has(name)) facts.uses.add(name);
  facts.looksLikeOtherLanguage = /^[ \t]*(?:function\s|const\s|let\s|var\s|console\.log\b|\}[ \t]*$)|;[ \t]*$|^[ \t]*\/\//m.test(code);
  return facts;
}

function fail(facts: SourceFacts, reason: string): void {
  facts.parses = false;
  facts.reason ??= reason;
}

/** Grammar checks a tokenizer can make: adjacent atoms (prose, Python 2 `print x`), `return` outside a function, assigning to a call. */
function checkLine(facts: SourceFacts, tokens: Token[], moduleScope: boolean): void {
  for (let i = 1; i < tokens.length; i++) {
    const before = tokens[i - 1]!;
    const token = tokens[i]!;
    if (i === 1 && SOFT_KEYWORDS.has(before.text)) continue;
    if (endsAtom(before) && startsAtom(token) && !(before.kind === "string" && token.kind === "string")) {
      fail(facts, `\`${before.text} ${token.text}\` is not Python (two values side by side)`);
      return;
    }
  }
  const first = tokens[0]!.text;
  if (moduleScope && (first === "return" || first === "yield")) fail(facts, `\`${first}\` outside a function`);
  const equals = depthZeroIndexes(tokens, "=");
  for (const at of equals) {
    const target = tokens[at - 1];
    if (target?.text === ")" && !tokens.slice(0, at).some((t) => t.text === "lambda" || t.text === "def")) {
      fail(facts, "an assignment to a call");
      return;
    }
  }
}

function endsAtom(token: Token): boolean {
  if (token.kind === "number" || token.kind === "string") return true;
  if (token.kind === "name") return !KEYWORDS.has(token.text) || VALUE_KEYWORDS.has(token.text);
  return token.text === ")" || token.text === "]" || token.text === "}";
}

function startsAtom(token: Token): boolean {
  if (token.kind === "number" || token.kind === "string") return true;
  return token.kind === "name" && (!KEYWORDS.has(token.text) || VALUE_KEYWORDS.has(token.text));
}

function depthZeroIndexes(tokens: Token[], text: string): number[] {
  const found: number[] = [];
  let depth = 0;
  for (const [i, token] of tokens.entries()) {
    if (token.kind !== "op") continue;
    if (token.text === "(" || token.text === "[" || token.text === "{") depth++;
    else if (token.text === ")" || token.text === "]" || token.text === "}") depth--;
    else if (depth === 0 && token.text === text) found.push(i);
  }
  return found;
}

/**
 * Names a logical line binds (into `defines` too when it is a module-level statement) and
 * mentions. Bindings: `def`/`class` names, parameters, assignment and `for` targets, `as`
 * names, imports, walrus targets, lambda and comprehension variables.
 */
function readNames(tokens: Token[], defines: Set<string> | undefined, bound: Set<string>, mentioned: Set<string>): void {
  const bind = (name: string, topLevel: boolean) => {
    bound.add(name);
    if (topLevel && defines !== undefined) defines.add(name);
  };
  const first = tokens[0]!.text;
  const second = tokens[1];
  if ((first === "def" || first === "class") && second?.kind === "name") bind(second.text, true);
  if (first === "async" && tokens[1]?.text === "def" && tokens[2]?.kind === "name") bind(tokens[2].text, true);
  if (first === "def" || (first === "async" && tokens[1]?.text === "def")) bindParameters(tokens, (name) => bind(name, false));
  if (first === "import") {
    for (const part of splitTopLevel(tokens.slice(1), ",")) {
      const as = part.findIndex((t) => t.text === "as");
      const name = as >= 0 ? part[as + 1] : part[0];
      if (name?.kind === "name") bind(name.text, true);
    }
  }
  if (first === "from") {
    const at = tokens.findIndex((t) => t.text === "import");
    const names = tokens.slice(at + 1).filter((t) => t.text !== "(" && t.text !== ")");
    for (const part of splitTopLevel(names, ",")) {
      const as = part.findIndex((t) => t.text === "as");
      const name = as >= 0 ? part[as + 1] : part[0];
      if (name?.kind === "name") bind(name.text, true);
    }
  }
  // Assignment targets: everything before the last depth-0 "=", read as a target list.
  const equals = depthZeroIndexes(tokens, "=");
  let start = 0;
  for (const at of equals) {
    bindTargets(tokens.slice(start, at), (name) => bind(name, true));
    start = at + 1;
  }
  // An annotation at the start of a statement (`x: int = 5`, `x: int`).
  if (tokens[0]?.kind === "name" && tokens[1]?.text === ":" && !KEYWORDS.has(first) && tokens.length > 2) bind(first, true);
  // The next `in` and `:` after each token, found right to left so a long line stays linear.
  const nextIn = nextIndexes(tokens, "in");
  const nextColon = nextIndexes(tokens, ":");
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.text === "for" && token.kind === "name") {
      const end = nextIn[i]!;
      if (end > i && end - i <= MAX_TARGET_TOKENS) bindTargets(tokens.slice(i + 1, end), (name) => bind(name, i === 0 || (first === "async" && i === 1)));
    }
    if (token.text === "as" && tokens[i + 1]?.kind === "name") bind(tokens[i + 1]!.text, first === "with" || first === "async");
    if (token.text === ":=" && tokens[i - 1]?.kind === "name") bind(tokens[i - 1]!.text, true);
    if (token.text === "lambda") {
      const colon = nextColon[i]!;
      if (colon > i && colon - i <= MAX_TARGET_TOKENS) for (const t of tokens.slice(i + 1, colon)) if (t.kind === "name" && !KEYWORDS.has(t.text)) bind(t.text, false);
    }
    if (token.kind === "string") for (const name of token.names ?? []) mentioned.add(name);
    if (token.kind !== "name" || KEYWORDS.has(token.text) || VALUE_KEYWORDS.has(token.text)) continue;
    if (tokens[i - 1]?.text === ".") continue;
    mentioned.add(token.text);
  }
  if (first === "global" || first === "nonlocal") for (const t of tokens.slice(1)) if (t.kind === "name") bind(t.text, first === "global");
}

/** Targets of `for` and parameters of `lambda` longer than this are not read (they never are that long). */
const MAX_TARGET_TOKENS = 40;

function nextIndexes(tokens: Token[], text: string): number[] {
  const next = new Array<number>(tokens.length);
  let found = -1;
  for (let i = tokens.length - 1; i >= 0; i--) {
    next[i] = found;
    if (tokens[i]!.text === text) found = i;
  }
  return next;
}

function bindParameters(tokens: Token[], bind: (name: string) => void): void {
  const open = tokens.findIndex((t) => t.text === "(");
  if (open < 0) return;
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.text === "(" || token.text === "[" || token.text === "{") depth++;
    else if (token.text === ")" || token.text === "]" || token.text === "}") {
      depth--;
      if (depth === 0) return;
    } else if (depth === 1 && token.kind === "name" && !KEYWORDS.has(token.text)) {
      const before = tokens[i - 1]!.text;
      if (before === "(" || before === "," || before === "*" || before === "**") bind(token.text);
    }
  }
}

function bindTargets(target: Token[], bind: (name: string) => void): void {
  for (let i = 0; i < target.length; i++) {
    const token = target[i]!;
    if (token.kind !== "name" || KEYWORDS.has(token.text)) continue;
    const before = target[i - 1]?.text;
    const after = target[i + 1]?.text;
    // `x.attr = ...`, `x[0] = ...` and `f(x) = ...` bind nothing new; `a, b = ...` and `(a, b) = ...` bind both.
    if (before === "." || after === "." || after === "[" || after === "(") continue;
    if (before !== undefined && before !== "," && before !== "(" && before !== "[" && before !== "*") continue;
    bind(token.text);
  }
}

function splitTopLevel(tokens: Token[], separator: string): Token[][] {
  const parts: Token[][] = [[]];
  for (const token of tokens) {
    if (token.text === separator && token.kind === "op") parts.push([]);
    else parts.at(-1)!.push(token);
  }
  return parts.filter((part) => part.length > 0);
}

/** Updates whether the code acts (defines, assigns, prints, branches) or is only values. */
function classify(facts: SourceFacts, tokens: Token[], outermost: boolean): void {
  const first = tokens[0]!;
  const definition = first.text === "def" || first.text === "class" || first.text === "@" || first.text === "import" || first.text === "from" || (first.text === "async" && tokens[1]?.text === "def");
  if (outermost && !definition) facts.definitionsOnly = false;
  if (first.kind === "name" && STATEMENT_KEYWORDS.has(first.text)) facts.acts = true;
  if (depthZeroIndexes(tokens, "=").length > 0 || tokens.some((t) => t.kind === "op" && /^(?:[-+*/%&|^@]|\*\*|\/\/|<<|>>)=$|^:=$/.test(t.text))) facts.acts = true;
  for (const [i, token] of tokens.entries()) {
    if (token.kind === "name" && OUTPUT_CALLS.has(token.text) && tokens[i + 1]?.text === "(" && tokens[i - 1]?.text !== ".") facts.acts = true;
  }
  if (!isLiteralLine(tokens)) facts.literalOnly = false;
}

/** A line that is only a value: literals in brackets, or `word: value` (how printed key-value output reads). */
function isLiteralLine(tokens: Token[]): boolean {
  let rest = tokens;
  if (rest.length > 2 && rest[0]!.kind === "name" && rest[1]!.text === ":") rest = rest.slice(2);
  if (rest.length === 0) return false;
  return rest.every(
    (t, i) =>
      t.kind === "number" ||
      (t.kind === "string" && (t.names ?? []).length === 0) ||
      VALUE_KEYWORDS.has(t.text) ||
      (t.kind === "op" && ["(", ")", "[", "]", "{", "}", ",", ":", "..."].includes(t.text)) ||
      // A sign, not a subtraction: `-1`, `[-1, 2]`.
      (t.text === "-" && (i === 0 || ["(", "[", "{", ",", ":"].includes(rest[i - 1]!.text))),
  );
}

/** Splits `code` into logical lines of tokens; stops at the first lexical error. */
function tokenize(code: string): Tokenized {
  const lines: LogicalLine[] = [];
  const brackets: string[] = [];
  let current: Token[] = [];
  let indent = 0;
  let atLineStart = true;
  let i = 0;
  const endLine = () => {
    if (current.length > 0) lines.push({ indent, tokens: current });
    current = [];
    atLineStart = true;
  };
  while (i < code.length) {
    const char = code[i]!;
    if (atLineStart && brackets.length === 0) {
      // Measure the indentation of a new logical line (tabs to the next multiple of 8, as CPython does).
      let width = 0;
      let j = i;
      while (j < code.length && (code[j] === " " || code[j] === "\t" || code[j] === "\f")) {
        width = code[j] === "\t" ? (Math.floor(width / 8) + 1) * 8 : width + 1;
        j++;
      }
      if (j >= code.length || code[j] === "\n" || code[j] === "#" || code[j] === "\r") {
        // A blank or comment-only line does not start a logical line.
        while (j < code.length && code[j] !== "\n") j++;
        i = j + 1;
        continue;
      }
      if (code.startsWith(">>>", j)) return { lines, error: "a `>>>` prompt: an interpreter session, not a program" };
      indent = width;
      atLineStart = false;
      i = j;
      continue;
    }
    if (char === "\n") {
      i++;
      if (brackets.length === 0) endLine();
      continue;
    }
    if (char === " " || char === "\t" || char === "\r" || char === "\f") {
      i++;
      continue;
    }
    if (char === "#") {
      while (i < code.length && code[i] !== "\n") i++;
      continue;
    }
    if (char === "\\" && (code[i + 1] === "\n" || (code[i + 1] === "\r" && code[i + 2] === "\n"))) {
      i += code[i + 1] === "\n" ? 2 : 3;
      continue;
    }
    const name = NAME.exec(code.slice(i, i + 200));
    if (name) {
      const quote = code[i + name[0].length];
      if ((quote === "'" || quote === '"') && STRING_PREFIX.test(name[0])) {
        const read = readString(code, i + name[0].length, /[fFtT]/.test(name[0]), /[rR]/.test(name[0]));
        if ("error" in read) return { lines, error: read.error };
        current.push(read.token);
        i = read.end;
        continue;
      }
      current.push({ kind: "name", text: name[0] });
      i += name[0].length;
      continue;
    }
    if (char === "'" || char === '"') {
      const read = readString(code, i, false, false);
      if ("error" in read) return { lines, error: read.error };
      current.push(read.token);
      i = read.end;
      continue;
    }
    const number = NUMBER.exec(code.slice(i, i + 100));
    if (number && /[\d.]/.test(char) && !(char === "." && !/\d/.test(code[i + 1] ?? ""))) {
      current.push({ kind: "number", text: number[0] });
      i += number[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => code.startsWith(o, i));
    if (op === undefined) return { lines, error: `the character \`${char}\` is not Python` };
    if (op === "(" || op === "[" || op === "{") brackets.push(op);
    else if (op in CLOSERS) {
      if (brackets.pop() !== CLOSERS[op]) return { lines, error: `an unmatched \`${op}\`` };
    }
    if (op === ";" && brackets.length === 0) {
      // `a = 1; b = 2` is two statements on one line.
      const indentBefore = indent;
      endLine();
      atLineStart = false;
      indent = indentBefore;
      i++;
      continue;
    }
    current.push({ kind: "op", text: op });
    i += op.length;
  }
  if (brackets.length > 0) return { lines, error: `an unclosed \`${brackets.at(-1)}\` (the code is cut off)` };
  endLine();
  return { lines };
}

function readString(code: string, start: number, formatted: boolean, raw: boolean): { token: Token; end: number } | { error: string } {
  const quote = code[start]!;
  const triple = code.startsWith(quote.repeat(3), start);
  const delimiter = triple ? quote.repeat(3) : quote;
  let i = start + delimiter.length;
  while (i < code.length) {
    if (code[i] === "\\" && !(raw && code[i + 1] !== quote && code[i + 1] !== "\\")) {
      i += 2;
      continue;
    }
    if (!triple && code[i] === "\n") return { error: "a string that is not closed on its line" };
    if (code.startsWith(delimiter, i)) {
      const body = code.slice(start + delimiter.length, i);
      const token: Token = { kind: "string", text: code.slice(start, i + delimiter.length) };
      if (formatted) token.names = formattedNames(body);
      return { token, end: i + delimiter.length };
    }
    i++;
  }
  return { error: triple ? "a triple-quoted string that is never closed (the code is cut off)" : "a string that is not closed" };
}

/** Names read inside the `{...}` parts of an f-string body (approximate: no nested strings). */
function formattedNames(body: string): string[] {
  const names: string[] = [];
  for (const part of body.replace(/\{\{|\}\}/g, "").matchAll(/\{([^{}]*)\}/g)) {
    const expression = part[1]!.split(/![rsa]|:(?![=])/)[0]!;
    for (const match of expression.matchAll(/(?<![.\w'"])[A-Za-z_]\w*/g)) {
      if (!KEYWORDS.has(match[0]) && !VALUE_KEYWORDS.has(match[0])) names.push(match[0]);
    }
  }
  return names;
}
