/**
 * Syntax that the sandbox cannot keep, found before anything runs, so that `check` and a run
 * both answer `syntax_error` with what is unsupported and what to write instead, rather than
 * passing a check and failing (or silently doing something else) at run time.
 *
 * The TypeScript stripper (sucrase 3.35.1, types only, no compilation) was tried against every
 * construct below and compared with `tsc`'s output (see test/sandbox/js/prepare.test.ts):
 * - dropped silently: `namespace`/`module` blocks that hold values (sucrase treats every
 *   namespace as a type), so `NS.f()` fails with a ReferenceError;
 * - mistranslated: `export = value` becomes `module.exports = value` (no `module` here), and an
 *   enum member with its enum's own name becomes a `const` that shadows the enum;
 * - left as written for QuickJS, which does not implement them: decorators, `accessor` fields,
 *   `export as namespace` (declaration files only), and in JavaScript too, `using` declarations.
 * Everything else tried (enums, `const enum`, `declare` forms, types-only namespaces, parameter
 * properties, `abstract`, `satisfies`, overloads, `import x = a.b`, instantiation expressions)
 * runs as `tsc` would run it.
 */
import type { Node } from "acorn";
import { parse as parseJs } from "./acorn.js";
import { sucrase, type SucraseToken } from "./sucrase.js";
import type { ExecutionError } from "../../types.js";
import { walkNodes } from "./walk.js";

// sucrase's token types and keywords, set by findUnsupportedTypeScript from the lazily loaded
// sucrase (see sucrase.ts) before any function below reads them; only TypeScript needs them.
let tt: Record<string, number> = {};
let kw: Record<string, number> = {};

/** Sucrase options of the sandbox, shared with prepare.ts so both strip alike. */
export const STRIP_OPTIONS = {
  transforms: ["typescript"] as ["typescript"],
  // Keep import/export and modern syntax as written: QuickJS runs it natively, and the
  // import check must still see `import fs from "fs"` even when fs is unused.
  disableESTransforms: true,
  keepUnusedImports: true,
  preserveDynamicImport: true,
};

/** What to write instead, one message per unsupported construct. */
export const UNSUPPORTED = {
  namespace: (name: string) =>
    `TypeScript namespaces that hold values are not supported here (namespace ${name}): the sandbox strips types ` +
    `without compiling namespaces, so ${name} would not exist at run time. Use a plain object instead, ` +
    `e.g. \`const ${name} = { ... };\`, or top-level declarations.`,
  exportEquals:
    "`export = value` is not supported: the sandbox has no modules, and it would become `module.exports`, which " +
    "does not exist here. Make the value the last expression of the program (or write `export default value;`).",
  enumMemberNamedLikeEnum: (name: string) =>
    `An enum member named like its enum (${name}.${name}) is not supported: the TypeScript stripper compiles it ` +
    `wrongly. Rename the member or the enum.`,
  decorator:
    "Decorators (`@name`) are not supported: QuickJS does not implement them and the sandbox does not compile " +
    "them. Call the function yourself instead, e.g. `const C = decorate(class { ... });` or wrap the method.",
  accessor:
    "`accessor` fields are not supported by QuickJS. Write a private field with a getter and a setter instead: " +
    "`#x = 0; get x() { return this.#x; } set x(v) { this.#x = v; }`.",
  tooManyNamespaces: (count: number) =>
    `This program has ${count} namespace blocks; the sandbox checks at most ${MAX_NAMESPACE_BLOCKS} (namespaces are ` +
    "stripped, not compiled, so each must be checked for values). Use plain objects or fewer namespaces.",
  exportAsNamespace:
    "`export as namespace` belongs in declaration files (.d.ts) only; remove it: the program runs as it is.",
  using:
    "`using` declarations are not supported by QuickJS. Dispose explicitly instead: " +
    "`const r = open(); try { ... } finally { r[Symbol.dispose]?.(); }`.",
} as const;

/**
 * Namespace blocks checked per program. Each costs one strip of its own statements (a fraction
 * of a millisecond), and `check` runs on the host's thread: the bound keeps a hostile program
 * of thousands of namespaces from holding it for seconds.
 */
export const MAX_NAMESPACE_BLOCKS = 100;

/** Quick filter: most TypeScript never reaches the tokenizer pass below. */
const TS_SUSPECTS = /\b(?:namespace|module|enum)\b|\bexport\s*=(?!=)|@/;

/**
 * Finds TypeScript that the stripper would drop or mistranslate (namespaces with values,
 * `export =`, enum members named like their enum, decorators). Returns undefined when there is
 * none, or when the source does not tokenize (the stripper then reports the syntax error).
 *
 * @example
 * ```ts
 * findUnsupportedTypeScript("namespace NS { export const a = 1; }\nNS.a")?.message; // "TypeScript namespaces that hold values ..."
 * ```
 */
export function findUnsupportedTypeScript(source: string): ExecutionError | undefined {
  if (!TS_SUSPECTS.test(source)) return undefined;
  let tokens: SucraseToken[];
  const loaded = sucrase();
  ({ tt, kw } = loaded);
  try {
    tokens = loaded.tokenize(source, false, true, false).tokens;
  } catch {
    return undefined;
  }
  const match = pairBraces(tokens);
  const blocks = namespaceBlocks(source, tokens, match);
  if (blocks.length > MAX_NAMESPACE_BLOCKS) {
    return errorAt(source, tokens[blocks[MAX_NAMESPACE_BLOCKS]!.keyword]!.start, UNSUPPORTED.tooManyNamespaces(blocks.length));
  }
  const ambientAt = new Map(blocks.filter((b) => b.ambient).map((b) => [b.keyword, b.close]));
  let found: ExecutionError | undefined;
  for (let i = 0; i < tokens.length && !found; i++) {
    // Ambient blocks (`declare ...`, `module "x"`, `declare global`) describe code elsewhere:
    // nothing in them runs, so nothing in them is checked.
    const ambientClose = ambientAt.get(i);
    if (ambientClose !== undefined) {
      i = ambientClose;
      continue;
    }
    const token = tokens[i]!;
    if (token.type === tt.at) found = errorAt(source, token.start, UNSUPPORTED.decorator);
    else if (token.type === tt._export && tokens[i + 1]?.type === tt.eq) found = errorAt(source, token.start, UNSUPPORTED.exportEquals);
    else if (token.type === tt._enum && !token.isType) found = enumMemberNamedLikeEnum(source, tokens, i, match);
  }
  const namespace = namespaceWithValues(source, tokens, blocks);
  if (namespace && (!found || namespace.offset < offsetOf(source, found))) return errorAt(source, namespace.offset, UNSUPPORTED.namespace(namespace.name));
  return found;
}

/** Index of the matching closing brace for every opening one, in one pass. */
function pairBraces(tokens: SucraseToken[]): Map<number, number> {
  const match = new Map<number, number>();
  const open: number[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const type = tokens[k]!.type;
    if (type === tt.braceL || type === tt.dollarBraceL || type === tt.braceBarL) open.push(k);
    else if (type === tt.braceR || type === tt.braceBarR) {
      const from = open.pop();
      if (from !== undefined) match.set(from, k);
    }
  }
  return match;
}

interface NamespaceBlock {
  name: string;
  ambient: boolean;
  /** Token index of the `namespace`/`module`/`global` keyword. */
  keyword: number;
  /** Token index where its statement starts (`export`/`declare` before the keyword). */
  start: number;
  /** Token indexes of the block's braces. */
  open: number;
  close: number;
  children: NamespaceBlock[];
  parent: NamespaceBlock | undefined;
}

/**
 * Every namespace, module and `declare global` block, outermost first, with its nested blocks;
 * a block inside an ambient one is ambient too.
 */
function namespaceBlocks(source: string, tokens: SucraseToken[], match: Map<number, number>): NamespaceBlock[] {
  const all: NamespaceBlock[] = [];
  const stack: NamespaceBlock[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const block = blockAt(source, tokens, i, match);
    if (!block) continue;
    while (stack.length > 0 && stack[stack.length - 1]!.close < i) stack.pop();
    const parent = stack[stack.length - 1];
    if (parent) {
      block.ambient ||= parent.ambient;
      block.parent = parent;
      parent.children.push(block);
    }
    all.push(block);
    stack.push(block);
  }
  return all;
}

/** The namespace, module or `declare global` block whose keyword is token `i`, if it is one. */
function blockAt(source: string, tokens: SucraseToken[], i: number, match: Map<number, number>): NamespaceBlock | undefined {
  const token = tokens[i]!;
  if (!token.isType) return undefined;
  const declared = tokens[i - 1]?.contextualKeyword === kw._declare;
  let j = i + 1;
  const nameParts: string[] = [];
  let ambient = declared;
  if (token.contextualKeyword === kw._global) {
    if (!declared) return undefined;
    nameParts.push("global");
  } else if (token.contextualKeyword === kw._namespace || token.contextualKeyword === kw._module) {
    // `namespace A.B.C {`; a string name (`module "x" {`) is an ambient module declaration.
    while (tokens[j]?.type === tt.name) {
      nameParts.push(source.slice(tokens[j]!.start, tokens[j]!.end));
      if (tokens[j + 1]?.type !== tt.dot) break;
      j += 2;
    }
    if (nameParts.length > 0) j++;
    else if (tokens[j]?.type === tt.string) {
      ambient = true;
      nameParts.push("module");
      j++;
    } else return undefined;
  } else return undefined;
  if (tokens[j]?.type !== tt.braceL) return undefined;
  const close = match.get(j);
  if (close === undefined) return undefined;
  let start = i;
  while (start > 0 && (tokens[start - 1]!.type === tt._export || tokens[start - 1]!.contextualKeyword === kw._declare)) start--;
  return { name: nameParts.join("."), ambient, keyword: i, start, open: j, close, children: [], parent: undefined };
}

/**
 * The first top-level namespace (outermost, not ambient) that holds values anywhere inside it.
 * Each block's own statements are stripped once, with its nested blocks blanked out, so the
 * work is linear in the source however deeply namespaces nest.
 */
function namespaceWithValues(source: string, tokens: SucraseToken[], blocks: NamespaceBlock[]): { name: string; offset: number } | undefined {
  const holds = new Map<NamespaceBlock, boolean>();
  // Innermost blocks come after their parents: walk backwards so children are judged first.
  for (let b = blocks.length - 1; b >= 0; b--) {
    const block = blocks[b]!;
    if (block.ambient) continue;
    let values = block.children.some((child) => holds.get(child) === true);
    if (!values) {
      const from = tokens[block.open]!.end;
      let own = "";
      let at = from;
      for (const child of block.children) {
        const childStart = tokens[child.start]!.start;
        const childEnd = tokens[child.close]!.end;
        own += source.slice(at, childStart) + ";";
        at = childEnd;
      }
      own += source.slice(at, tokens[block.close]!.start);
      values = statementsHoldValues(own);
    }
    holds.set(block, values);
  }
  // A nested block is reported through its outermost namespace, the name the program uses.
  const top = blocks.find((block) => block.parent === undefined && holds.get(block) === true);
  return top && { name: top.name, offset: tokens[top.keyword]!.start };
}

/** True when statements, stripped of types, leave anything but empty statements (and `export {}`). */
function statementsHoldValues(body: string): boolean {
  let stripped: string;
  try {
    stripped = sucrase().transform(body, STRIP_OPTIONS).code;
  } catch {
    return true;
  }
  let program: Node & { body: Array<Node & { declaration?: unknown; specifiers?: unknown[]; source?: unknown }> };
  try {
    program = parseJs(stripped, { ecmaVersion: "latest", sourceType: "module", allowAwaitOutsideFunction: true }) as typeof program;
  } catch {
    return true;
  }
  return !program.body.every(
    (s) =>
      s.type === "EmptyStatement" ||
      (s.type === "ExportNamedDeclaration" && !s.declaration && !s.source && (s.specifiers?.length ?? 0) === 0),
  );
}

function offsetOf(source: string, error: ExecutionError): number {
  let offset = 0;
  for (let line = 1; line < (error.line ?? 1); line++) offset = source.indexOf("\n", offset) + 1;
  return offset + (error.column ?? 1) - 1;
}

function enumMemberNamedLikeEnum(source: string, tokens: SucraseToken[], i: number, match: Map<number, number>): ExecutionError | undefined {
  const nameToken = tokens[i + 1];
  if (nameToken?.type !== tt.name || tokens[i + 2]?.type !== tt.braceL) return undefined;
  const name = source.slice(nameToken.start, nameToken.end);
  const close = match.get(i + 2);
  if (close === undefined) return undefined;
  let depth = 0;
  let expectMember = true;
  for (let k = i + 3; k < close; k++) {
    const token = tokens[k]!;
    if (token.type === tt.braceL || token.type === tt.parenL || token.type === tt.bracketL || token.type === tt.dollarBraceL) depth++;
    else if (token.type === tt.braceR || token.type === tt.parenR || token.type === tt.bracketR) depth--;
    else if (depth === 0 && token.type === tt.comma) {
      expectMember = true;
      continue;
    }
    if (expectMember && depth === 0) {
      const text = source.slice(token.start, token.end);
      const member = token.type === tt.string ? text.slice(1, -1) : text;
      if (member === name) return errorAt(source, token.start, UNSUPPORTED.enumMemberNamedLikeEnum(name));
    }
    expectMember = false;
  }
  return undefined;
}

/**
 * A clearer account of a syntax error that comes from syntax QuickJS does not implement
 * (decorators, `accessor` fields, `export as namespace`), given the code that failed and the
 * offset where the parser stopped. Undefined when the error is an ordinary one.
 */
export function explainUnsupportedSyntax(code: string, pos: number): string | undefined {
  if (code[pos] === "@") return UNSUPPORTED.decorator;
  const before = code.slice(Math.max(0, pos - 40), pos);
  if (/(?:^|[\s;{}])accessor[ \t]+$/.test(before) && /^[#\w$[]/.test(code.slice(pos))) return UNSUPPORTED.accessor;
  if (/(?:^|[\s;])export[ \t]+$/.test(before) && /^as\s+namespace\b/.test(code.slice(pos))) return UNSUPPORTED.exportAsNamespace;
  return undefined;
}

/**
 * Finds JavaScript that parses but that QuickJS cannot run (`using` declarations), in a
 * program acorn has parsed.
 */
export function findUnsupportedJavaScript(ast: Node, code: string): ExecutionError | undefined {
  if (!/\busing\b/.test(code)) return undefined;
  let found: ExecutionError | undefined;
  walkNodes(ast, (node) => {
    if (node.type === "VariableDeclaration" && (node.kind === "using" || node.kind === "await using")) {
      const start = (node.loc as { start: { line: number; column: number } } | undefined)?.start;
      found = { name: "SyntaxError", message: UNSUPPORTED.using, ...(start ? { line: start.line, column: start.column + 1 } : {}) };
      return true;
    }
    return false;
  });
  return found;
}

function errorAt(source: string, offset: number, message: string): ExecutionError {
  let line = 1;
  let lineStart = 0;
  for (let k = source.indexOf("\n"); k !== -1 && k < offset; k = source.indexOf("\n", k + 1)) {
    line++;
    lineStart = k + 1;
  }
  return { name: "SyntaxError", message, line, column: offset - lineStart + 1 };
}
