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
 */
import type { Node, Program } from "acorn";
import { parse } from "./acorn.js";
import { walkNodes, type AnyNode } from "./walk.js";

/** Name of the host function the rewritten `throw`s call; defined only while tests run. */
export const THROW_MARK_NAME = "__sandboxTestThrowAt";

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
 * Tests with every `throw X` turned into `throw MARK(line, X)` (see the module comment).
 *
 * @example
 * markThrows("if (x) throw 'bad';", "script"); // "if (x) throw __sandboxTestThrowAt(1, 'bad');"
 */
export function markThrows(code: string, kind: "script" | "module"): string {
  const ast = parseAs(code, kind);
  if (!ast) return code;
  const edits: { at: number; text: string }[] = [];
  walkNodes(ast as Node, (node) => {
    if (node.type !== "ThrowStatement") return;
    const argument = node.argument as AnyNode;
    const line = (node.loc as { start: { line: number } }).start.line;
    edits.push({ at: argument.start, text: `${THROW_MARK_NAME}(${line}, ` }, { at: argument.end, text: ")" });
  });
  if (edits.length === 0) return code;
  edits.sort((a, b) => b.at - a.at);
  let out = code;
  for (const e of edits) out = out.slice(0, e.at) + e.text + out.slice(e.at);
  return out;
}
