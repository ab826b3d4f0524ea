/**
 * Source rewrites for running `tests` after a program in the same context. Both keep every
 * line where it was, so errors still point at the caller's lines.
 *
 * - `exposeTopLevelNames`: a module program's top-level names are module-scoped, so the tests
 *   could not see them. Every top-level declaration of the module that is not exported under
 *   its own name yet (functions, classes, `const`/`let`/`var`, destructured names) is added to
 *   one `export { ... }` line at the end; the run then defines the module's named exports as
 *   globals before the tests run. (Script programs need nothing: their top-level declarations
 *   live in the global scope, which later evaluations share.)
 * - `markThrows`: a thrown string or plain value has no stack, so nothing says where it was
 *   thrown. Each `throw X` in the tests becomes `throw MARK(line, X)`, where `MARK` records the
 *   line on the host and returns `X` unchanged.
 * - `wrapTests`: the tests become one async function of `MARK`, which the worker calls. Their
 *   declarations are the function's own (a program cannot define or replace the tests' helper
 *   names, nor have the tests' names leak into a session), top-level `await` works in every
 *   test, and their verdict is the state of the function's promise, which only the engine
 *   writes (see GuestContext.evaluate).
 */
import type { Node, Program } from "acorn";
import { parse } from "./acorn.js";
import { walkNodes, type AnyNode } from "./walk.js";

/**
 * Name of the host function the rewritten `throw`s call: the tests' function's parameter, and
 * a global for the program's own marked throws (see worker/main.ts).
 */
export const THROW_MARK_NAME = "__sandboxTestThrowAt";

/** Name of the tests' function's parameter that receives the value of their last expression. */
export const TESTS_VALUE_NAME = "__sandboxTestValue";

function parseAs(code: string, sourceType: "script" | "module"): Program | undefined {
  try {
    return parse(code, { ecmaVersion: "latest", sourceType, allowAwaitOutsideFunction: true, locations: true });
  } catch {
    // The program already parsed once; a failure here only means nothing is rewritten.
    return undefined;
  }
}

/** Names bound by a declaration pattern (`a`, `{ b, c: [d] }`, `...e`, `f = 1`). */
function patternNames(pattern: AnyNode | null | undefined, into: string[]): void {
  if (!pattern) return;
  switch (pattern.type) {
    case "Identifier":
      into.push(pattern.name as string);
      return;
    case "ObjectPattern":
      for (const p of pattern.properties as AnyNode[]) patternNames((p.type === "RestElement" ? p.argument : p.value) as AnyNode, into);
      return;
    case "ArrayPattern":
      for (const e of pattern.elements as (AnyNode | null)[]) patternNames(e, into);
      return;
    case "RestElement":
      patternNames(pattern.argument as AnyNode, into);
      return;
    case "AssignmentPattern":
      patternNames(pattern.left as AnyNode, into);
      return;
  }
}

/** Names a top-level statement declares. */
function declaredNames(statement: AnyNode, into: string[]): void {
  switch (statement.type) {
    case "FunctionDeclaration":
    case "ClassDeclaration":
      if (statement.id) into.push((statement.id as AnyNode).name as string);
      return;
    case "VariableDeclaration":
      for (const d of statement.declarations as AnyNode[]) patternNames(d.id as AnyNode, into);
      return;
  }
}

/**
 * A module program with its top-level names exported (see the module comment). Returns the
 * code unchanged when there is nothing to add.
 *
 * @example
 * exposeTopLevelNames("function add(a, b) { return a + b; }\nexport default add(1, 2);");
 * // "function add(a, b) { return a + b; }\nexport default add(1, 2);\n;export { add };"
 */
export function exposeTopLevelNames(code: string): string {
  const ast = parseAs(code, "module");
  if (!ast) return code;
  const declared: string[] = [];
  const exported = new Set<string>();
  for (const node of ast.body as AnyNode[]) {
    if (node.type === "ExportNamedDeclaration") {
      const inner = node.declaration as AnyNode | null;
      if (inner) {
        const names: string[] = [];
        declaredNames(inner, names);
        for (const n of names) exported.add(n);
      }
      for (const s of (node.specifiers as AnyNode[]) ?? []) {
        const name = s.exported as AnyNode;
        exported.add((name.type === "Identifier" ? name.name : name.value) as string);
      }
      continue;
    }
    declaredNames(node, declared);
  }
  const names = [...new Set(declared)].filter((n) => !exported.has(n) && n !== "default");
  // On the last line, after a newline-free separator: no line moves.
  return names.length === 0 ? code : `${code}\n;export { ${names.join(", ")} };`;
}

/**
 * Code with every `throw X` turned into `throw MARK(line, X)` (see the module comment).
 *
 * @example
 * markThrows("if (x) throw 'bad';", "script"); // "if (x) throw __sandboxTestThrowAt(1, 'bad');"
 */
export function markThrows(code: string, kind: "script" | "module"): string {
  const ast = parseAs(code, kind);
  return ast ? applyEdits(code, throwMarks(ast)) : code;
}

type Edit = { at: number; text: string };

function throwMarks(ast: Program): Edit[] {
  const edits: Edit[] = [];
  walkNodes(ast as Node, (node) => {
    if (node.type !== "ThrowStatement") return;
    const argument = node.argument as AnyNode;
    const line = (node.loc as { start: { line: number } }).start.line;
    edits.push({ at: argument.start, text: `${THROW_MARK_NAME}(${line}, ` }, { at: argument.end, text: ")" });
  });
  return edits;
}

function applyEdits(code: string, edits: Edit[]): string {
  if (edits.length === 0) return code;
  edits.sort((a, b) => b.at - a.at);
  let out = code;
  for (const e of edits) out = out.slice(0, e.at) + e.text + out.slice(e.at);
  return out;
}

/**
 * The tests' source as one async arrow function of the throw mark and of a function that
 * receives the value of their last expression (see the module comment), on the same lines:
 * the head goes before the first line, the tail on a line of its own. Prepare it (strip types),
 * then `instrumentTests` it.
 *
 * @example
 * wrapTests("if (add(1, 2) !== 3) throw new Error('add');");
 * // "(async (__sandboxTestThrowAt, __sandboxTestValue, __sandboxTestCase) => {if (add(1, 2) !== 3) throw new Error('add');\n})"
 */
export function wrapTests(source: string): string {
  // A "#!" line would not be the first thing in the source any more; "//" keeps its length.
  const body = source.startsWith("#!") ? `//${source.slice(2)}` : source;
  return `${TESTS_HEAD}${body}\n})`;
}

/** What `wrapTests` puts before the first line: columns on line 1 are this much further right. */
export const TESTS_HEAD = `(async (${THROW_MARK_NAME}, ${TESTS_VALUE_NAME}, __sandboxTestCase) => {`;

/**
 * An error located in wrapped tests, with line 1's columns (in `column` and in the stack's
 * frames) put back where they are in the caller's text.
 *
 * @example
 * unshiftTestsColumns({ name: "Error", message: "m", line: 1, column: 60 }); // column 6
 */
export function unshiftTestsColumns<E extends { line?: number; column?: number; stack?: string }>(error: E): E {
  const out = { ...error };
  if (out.line === 1 && out.column !== undefined) out.column = Math.max(1, out.column - TESTS_HEAD.length);
  if (out.stack !== undefined) out.stack = out.stack.replace(/(tests\.js:1:)(\d+)/g, (_, at: string, col: string) => `${at}${Math.max(1, Number(col) - TESTS_HEAD.length)}`);
  return out;
}

/**
 * Wrapped, prepared tests with their `throw`s marked and their last expression statement
 * handed to `TESTS_VALUE_NAME` (`(async () => { ... })()` as the last line is a common test:
 * the worker awaits that promise itself, by its state, never through the guest's `then`).
 *
 * @example
 * instrumentTests("(async (__sandboxTestThrowAt, __sandboxTestValue, __sandboxTestCase) => {check()\n})");
 * // "(async (__sandboxTestThrowAt, __sandboxTestValue, __sandboxTestCase) => {__sandboxTestValue((check()))\n})"
 */
export function instrumentTests(code: string): string {
  const ast = parseAs(code, "script");
  if (!ast) return code;
  const edits = throwMarks(ast);
  const wrapper = (ast.body[0] as AnyNode | undefined)?.expression as AnyNode | undefined;
  const body = wrapper?.type === "ArrowFunctionExpression" ? (wrapper.body as AnyNode) : undefined;
  const statements = body?.type === "BlockStatement" ? (body.body as AnyNode[]) : [];
  const last = statements[statements.length - 1];
  if (last?.type === "ExpressionStatement" && last.directive === undefined) {
    const expression = last.expression as AnyNode;
    edits.push({ at: expression.start, text: `${TESTS_VALUE_NAME}((` }, { at: expression.end, text: "))" });
  }
  return applyEdits(code, edits);
}
