/**
 * What a block of a reply is, read as JavaScript or TypeScript: whether the sandbox's check
 * parses it, the names it defines and uses (from acorn's tree; for TypeScript also its type
 * names), and whether it is a program or only a value. Also removes CommonJS boilerplate
 * (`module.exports = ...`, `if (require.main === module)`), which is packaging for Node.js and
 * not part of what the program does.
 */
import { createRequire } from "node:module";
import type { Node, Options, Program } from "acorn";
import { prepareJavaScript } from "../../sandbox/js/prepare/prepare.js";
import type { SourceFacts } from "./source-facts.js";

type Script = "javascript" | "typescript";
type AnyNode = Node & Record<string, unknown>;

const require = createRequire(import.meta.url);
let acornParse: ((input: string, options: Options) => Program) | undefined;
let sucraseTransform: ((code: string, options: object) => { code: string }) | undefined;

const STRIP = { transforms: ["typescript"], disableESTransforms: true, keepUnusedImports: true, preserveDynamicImport: true };
const TYPE_DECLARATION = /^[ \t]*(?:export[ \t]+)?(?:declare[ \t]+)?(?:interface|type|enum|const[ \t]+enum|abstract[ \t]+class|namespace)[ \t]+([A-Za-z_$][\w$]*)/gm;
const PYTHON_LINE = /^[ \t]*(?:def |elif\b|except\b|print\(|from \w+ import |import \w+[ \t]*$|(?:if|for|while|else|try|with|class)\b[^\n{]*:[ \t]*$)/m;

/**
 * Facts about `code` as JavaScript or TypeScript.
 *
 * @example
 * ```ts
 * scanJavaScript("class Stack {}\n", "javascript").defines; // Set { "Stack" }
 * scanJavaScript("const s = new Stack();\nconsole.log(s);", "javascript").uses; // Set { "Stack", "console" }
 * ```
 */
export function scanJavaScript(code: string, language: Script): SourceFacts {
  const prepared = prepareJavaScript(code, language);
  const facts: SourceFacts = {
    parses: prepared.ok || prepared.status === "forbidden",
    defines: new Set(),
    uses: new Set(),
    empty: true,
    literalOnly: false,
    acts: false,
    definitionsOnly: false,
    looksLikeOtherLanguage: PYTHON_LINE.test(code),
  };
  if (!prepared.ok && prepared.status === "syntax_error") facts.reason = prepared.error.message;
  const ast = parseTree(code, language);
  const typeNames = language === "typescript" ? [...code.matchAll(TYPE_DECLARATION)].map((m) => m[1]!) : [];
  for (const name of typeNames) facts.defines.add(name);
  if (ast === undefined) {
    facts.empty = withoutCommentsAndStrings(code).trim() === "";
    return facts;
  }
  const statements = ast.body as AnyNode[];
  facts.empty = statements.length === 0 && typeNames.length === 0;
  facts.definitionsOnly = (statements.length > 0 || typeNames.length > 0) && statements.every(isDefinition);
  for (const statement of statements) for (const name of topLevelNames(statement)) facts.defines.add(name);
  try {
    facts.literalOnly = statements.length > 0 && statements.every(isValueStatement);
    facts.acts = typeNames.length > 0 || statements.some(acts);
    const bound = new Set<string>(typeNames);
    const mentioned = new Set<string>();
    visit(ast as unknown as AnyNode, undefined, undefined, bound, mentioned);
    if (language === "typescript") for (const name of typeReferences(code)) mentioned.add(name);
    for (const name of mentioned) if (!bound.has(name)) facts.uses.add(name);
  } catch (error) {
    // A tree acorn could build but too deep to walk recursively (`1+1+...+1`, thousands deep):
    // read it as code that does something and uses nothing from other blocks.
    if (!(error instanceof RangeError)) throw error;
    facts.literalOnly = false;
    facts.acts = true;
    facts.uses.clear();
  }
  return facts;
}

/**
 * Top-level names `code` defines that hold functions (function declarations,
 * `const f = () => ...`, `let g = function () {}`), in order. Empty when it does not parse.
 *
 * @example
 * ```ts
 * callableNames("const add = (a, b) => a + b;\nfunction sub(a, b) { return a - b; }", "javascript"); // ["add", "sub"]
 * ```
 */
export function callableNames(code: string, language: Script): string[] {
  const ast = parseTree(code, language);
  if (ast === undefined) return [];
  const names: string[] = [];
  for (const node of ast.body as AnyNode[]) {
    const statement = (node.type === "ExportNamedDeclaration" || node.type === "ExportDefaultDeclaration") && node.declaration ? (node.declaration as AnyNode) : node;
    if (statement.type === "FunctionDeclaration" && statement.id) names.push((statement.id as AnyNode).name as string);
    if (statement.type === "VariableDeclaration") {
      for (const declarator of statement.declarations as AnyNode[]) {
        const init = declarator.init as AnyNode | null;
        const id = declarator.id as AnyNode;
        if (id.type === "Identifier" && init && /^(?:ArrowFunctionExpression|FunctionExpression)$/.test(init.type)) names.push(id.name as string);
      }
    }
  }
  return names;
}

/**
 * `code` without its CommonJS boilerplate: export statements (`module.exports = ...`,
 * `exports.name = ...` on lines of their own) become a comment, and the test of a top-level
 * `if (require.main === module)` becomes `true`. The sandbox runs one program as the main one
 * and has no `module` or `require`, so that boilerplate could only fail after (or instead of)
 * the program's work. Line numbers stay the same.
 *
 * @example
 * ```ts
 * withoutCommonJsBoilerplate("function f() {}\nmodule.exports = { f };", "javascript");
 * // "function f() {}\n// module.exports removed: the sandbox runs the program without modules"
 * ```
 */
export function withoutCommonJsBoilerplate(code: string, language: Script): string {
  const ast = parseTree(code, language, true);
  // Only top-level statements are looked at (no recursion), so any tree acorn builds is fine.
  if (ast === undefined) return code;
  const lines = code.split("\n");
  const statements = ast.body as (AnyNode & { loc: { start: { line: number }; end: { line: number } } })[];
  let changed = false;
  for (const [index, statement] of statements.entries()) {
    if (isMainModuleGuard(statement)) {
      const line = (statement.test as AnyNode & { loc: { start: { line: number } } }).loc.start.line;
      const replaced = lines[line - 1]!.replace(MAIN_GUARD, "true /* require.main === module: the sandbox runs this as the main program */");
      changed ||= replaced !== lines[line - 1];
      lines[line - 1] = replaced;
      continue;
    }
    if (!isCommonJsExport(statement)) continue;
    const { start, end } = { start: statement.loc.start.line, end: statement.loc.end.line };
    // Only statements alone on their lines: a neighbour on the same line would be cut too.
    const sharesLine = (other: (typeof statements)[number] | undefined) => other !== undefined && other.loc.end.line >= start && other.loc.start.line <= end;
    if (sharesLine(statements[index - 1]) || sharesLine(statements[index + 1])) continue;
    const indent = /^\s*/.exec(lines[start - 1] ?? "")![0];
    lines[start - 1] = `${indent}// module.exports removed: the sandbox runs the program without modules`;
    for (let line = start + 1; line <= end; line++) lines[line - 1] = "";
    changed = true;
  }
  return changed ? lines.join("\n") : code;
}

const MAIN_GUARD = /require\.main\s*===?\s*module\b|\bmodule\s*===?\s*require\.main\b/;

function isMainModuleGuard(statement: AnyNode): boolean {
  if (statement.type !== "IfStatement") return false;
  const test = statement.test as AnyNode;
  if (test.type !== "BinaryExpression" || (test.operator !== "===" && test.operator !== "==")) return false;
  const isRequireMain = (n: AnyNode) => n.type === "MemberExpression" && (n.object as AnyNode).type === "Identifier" && (n.object as AnyNode).name === "require" && (n.property as AnyNode).name === "main";
  const isModule = (n: AnyNode) => n.type === "Identifier" && n.name === "module";
  const [left, right] = [test.left as AnyNode, test.right as AnyNode];
  return (isRequireMain(left) && isModule(right)) || (isModule(left) && isRequireMain(right));
}

function isCommonJsExport(statement: AnyNode): boolean {
  if (statement.type !== "ExpressionStatement") return false;
  const expression = statement.expression as AnyNode;
  if (expression.type !== "AssignmentExpression") return false;
  let target = expression.left as AnyNode;
  while (target.type === "MemberExpression") {
    const object = target.object as AnyNode;
    const property = target.property as AnyNode;
    if (object.type === "Identifier" && object.name === "module" && property.type === "Identifier" && property.name === "exports") return true;
    if (object.type === "Identifier" && object.name === "exports") return true;
    target = object;
  }
  return false;
}

function parseTree(code: string, language: Script, locations = false): Program | undefined {
  let js = code.startsWith("#!") ? `//${code.slice(2)}` : code;
  if (language === "typescript") {
    try {
      sucraseTransform ??= (require("sucrase") as { transform: NonNullable<typeof sucraseTransform> }).transform;
      js = sucraseTransform(js, STRIP).code;
    } catch {
      return undefined;
    }
  }
  acornParse ??= (require("acorn") as { parse: NonNullable<typeof acornParse> }).parse;
  for (const sourceType of ["module", "script"] as const) {
    try {
      return acornParse(js, { ecmaVersion: "latest", sourceType, allowAwaitOutsideFunction: true, locations });
    } catch {
      // try the other source type
    }
  }
  return undefined;
}

/** A statement that is only a value: `42;`, `[1, 2]`, `"text"`, or a printed `label: value` line. */
function isValueStatement(statement: AnyNode): boolean {
  if (statement.type === "ExpressionStatement") return isLiteralTree(statement.expression as AnyNode);
  if (statement.type === "LabeledStatement") return isValueStatement(statement.body as AnyNode);
  if (statement.type === "BlockStatement") return (statement.body as AnyNode[]).length > 0 && (statement.body as AnyNode[]).every(isValueStatement);
  return false;
}

function isLiteralTree(node: AnyNode): boolean {
  switch (node.type) {
    case "Literal":
      return true;
    case "TemplateLiteral":
      return (node.expressions as AnyNode[]).length === 0;
    case "Identifier":
      return node.name === "undefined" || node.name === "NaN" || node.name === "Infinity";
    case "UnaryExpression":
      return node.operator === "-" && isLiteralTree(node.argument as AnyNode);
    case "ArrayExpression":
      return (node.elements as (AnyNode | null)[]).every((e) => e === null || isLiteralTree(e));
    case "ObjectExpression":
      return (node.properties as AnyNode[]).every((p) => p.type === "Property" && !p.computed && isLiteralTree(p.value as AnyNode));
    case "SequenceExpression":
      return (node.expressions as AnyNode[]).every(isLiteralTree);
    default:
      return false;
  }
}

/** A program signal: a declaration, control flow, an assignment or a `console` call (a bare call is not one: `main()` alone could be a sample). */
function acts(statement: AnyNode): boolean {
  if (statement.type === "EmptyStatement") return false;
  if (statement.type === "LabeledStatement") return acts(statement.body as AnyNode);
  if (statement.type !== "ExpressionStatement") return true;
  let found = false;
  visitAll(statement.expression as AnyNode, (node) => {
    if (node.type === "AssignmentExpression" || node.type === "UpdateExpression") found = true;
    if (node.type === "CallExpression") {
      const callee = node.callee as AnyNode;
      if (callee.type === "MemberExpression" && (callee.object as AnyNode).type === "Identifier" && (callee.object as AnyNode).name === "console") found = true;
    }
  });
  return found;
}

function isDefinition(statement: AnyNode): boolean {
  switch (statement.type) {
    case "FunctionDeclaration":
    case "ClassDeclaration":
    case "ImportDeclaration":
    case "EmptyStatement":
      return true;
    case "ExportNamedDeclaration":
    case "ExportDefaultDeclaration":
      return statement.declaration == null || isDefinition(statement.declaration as AnyNode);
    case "VariableDeclaration":
      return (statement.declarations as AnyNode[]).every((d) => {
        const init = d.init as AnyNode | null;
        return init !== null && /^(?:ArrowFunctionExpression|FunctionExpression|ClassExpression)$/.test(init.type);
      });
    default:
      return false;
  }
}

function topLevelNames(statement: AnyNode): string[] {
  switch (statement.type) {
    case "FunctionDeclaration":
    case "ClassDeclaration":
      return statement.id ? [(statement.id as AnyNode).name as string] : [];
    case "VariableDeclaration":
      return (statement.declarations as AnyNode[]).flatMap((d) => patternNames(d.id as AnyNode));
    case "ImportDeclaration":
      return (statement.specifiers as AnyNode[]).map((s) => (s.local as AnyNode).name as string);
    case "ExportNamedDeclaration":
    case "ExportDefaultDeclaration":
      return statement.declaration ? topLevelNames(statement.declaration as AnyNode) : [];
    case "ExpressionStatement": {
      // `counter = 0` at the top level of a script creates a global.
      const expression = statement.expression as AnyNode;
      if (expression.type === "AssignmentExpression" && (expression.left as AnyNode).type === "Identifier") return [(expression.left as AnyNode).name as string];
      return [];
    }
    default:
      return [];
  }
}

function patternNames(pattern: AnyNode | null): string[] {
  if (pattern === null) return [];
  switch (pattern.type) {
    case "Identifier":
      return [pattern.name as string];
    case "ObjectPattern":
      return (pattern.properties as AnyNode[]).flatMap((p) => patternNames((p.type === "RestElement" ? p.argument : p.value) as AnyNode));
    case "ArrayPattern":
      return (pattern.elements as (AnyNode | null)[]).flatMap((e) => patternNames(e));
    case "AssignmentPattern":
      return patternNames(pattern.left as AnyNode);
    case "RestElement":
      return patternNames(pattern.argument as AnyNode);
    default:
      return [];
  }
}

const BINDING_PARENTS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression", "ClassDeclaration", "ClassExpression", "CatchClause"]);

/** Collects every name the tree binds (in any scope) and every name it reads. */
function visit(node: AnyNode, parent: AnyNode | undefined, key: string | undefined, bound: Set<string>, mentioned: Set<string>): void {
  if (node.type === "Identifier") {
    if (parent !== undefined && isReference(parent, key!)) mentioned.add(node.name as string);
    return;
  }
  if (node.type === "VariableDeclarator") for (const name of patternNames(node.id as AnyNode)) bound.add(name);
  if (BINDING_PARENTS.has(node.type)) {
    if (node.id) bound.add((node.id as AnyNode).name as string);
    for (const param of (node.params as AnyNode[] | undefined) ?? []) for (const name of patternNames(param)) bound.add(name);
    if (node.param) for (const name of patternNames(node.param as AnyNode)) bound.add(name);
  }
  if (node.type === "ImportSpecifier" || node.type === "ImportDefaultSpecifier" || node.type === "ImportNamespaceSpecifier") bound.add((node.local as AnyNode).name as string);
  for (const [childKey, value] of Object.entries(node)) {
    if (childKey === "type" || childKey === "loc" || childKey === "start" || childKey === "end") continue;
    if (Array.isArray(value)) {
      for (const child of value) if (isNode(child)) visit(child, node, childKey, bound, mentioned);
    } else if (isNode(value)) visit(value, node, childKey, bound, mentioned);
  }
}

/** Whether an Identifier under `parent.key` reads a variable (not a property name, label or binding). */
function isReference(parent: AnyNode, key: string): boolean {
  switch (parent.type) {
    case "MemberExpression":
      return key === "object" || parent.computed === true;
    case "Property":
    case "PropertyDefinition":
    case "MethodDefinition":
      return key === "value" || parent.computed === true;
    case "LabeledStatement":
    case "BreakStatement":
    case "ContinueStatement":
    case "MetaProperty":
      return false;
    case "ImportSpecifier":
    case "ImportDefaultSpecifier":
    case "ImportNamespaceSpecifier":
    case "ExportSpecifier":
      return parent.type === "ExportSpecifier" && key === "local";
    default:
      return true;
  }
}

function visitAll(node: AnyNode, see: (node: AnyNode) => void): void {
  see(node);
  for (const [key, value] of Object.entries(node)) {
    if (key === "loc") continue;
    if (Array.isArray(value)) {
      for (const child of value) if (isNode(child)) visitAll(child, see);
    } else if (isNode(value)) visitAll(value, see);
  }
}

function isNode(value: unknown): value is AnyNode {
  return value !== null && typeof value === "object" && typeof (value as { type?: unknown }).type === "string";
}

/** Names TypeScript code reads in type positions (sucrase removes them): capitalised identifiers outside strings and comments that are not property names. */
function typeReferences(code: string): string[] {
  const text = withoutCommentsAndStrings(code);
  const names: string[] = [];
  for (const match of text.matchAll(/(?<![.\w$])([A-Z][\w$]*)(?!\s*\??:)/g)) names.push(match[1]!);
  return names;
}

/**
 * `code` with comments removed and string literals emptied. Every pattern may run to the end of
 * the text when unclosed, so each unclosed opener is consumed once (linear, not quadratic).
 */
function withoutCommentsAndStrings(code: string): string {
  return code
    .replace(/\/\*[\s\S]*?(?:\*\/|$(?![\s\S]))|\/\/[^\n]*/g, " ")
    .replace(/`(?:\\[\s\S]|[^`\\])*`?|"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?/g, '""');
}
