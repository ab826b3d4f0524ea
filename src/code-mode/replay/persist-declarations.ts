/**
 * Makes a cell's top-level declarations outlive the cell. A cell that awaits at top level runs
 * as a module, whose `const`/`let`/`class`/`function` would vanish when it ends; and scripts
 * forbid declaring the same `let`/`const` twice across cells. So every JavaScript/TypeScript cell
 * of a thread is rewritten, in place, to keep its top-level bindings as properties of the global
 * object, where functions defined in any cell (closures included) find them:
 *
 * - `const a = 1, { b } = o;` → `void (globalThis.a = 1, { b: globalThis.b } = o);`
 * - `class C {}` → `globalThis.C = class C {};`
 * - `function f() {}` stays (hoisted) and line 1 gets `globalThis.f = f;` in front.
 *
 * Every edit stays on its line, so error line numbers remain the user's. Code that does not
 * parse is returned as it is (the engine reports the syntax error).
 */
import { parse, type Node, type Pattern, type Program } from "acorn";
import { transform } from "sucrase";
import { findUnsupportedTypeScript, STRIP_OPTIONS } from "../../sandbox/js/prepare/unsupported.js";

interface Edit {
  at: number;
  /** Characters removed at `at`. */
  remove: number;
  insert: string;
}

function applyEdits(code: string, edits: Edit[]): string {
  let out = code;
  // From the end backwards; at one position, the edit made last goes in first, so the text
  // reads in the order the edits were made.
  const ordered = edits.map((e, i) => ({ e, i })).sort((a, b) => b.e.at - a.e.at || b.i - a.i);
  for (const { e } of ordered) {
    out = out.slice(0, e.at) + e.insert + out.slice(e.at + e.remove);
  }
  return out;
}

function parseCell(code: string): Program | undefined {
  for (const sourceType of ["script", "module"] as const) {
    try {
      return parse(code, { ecmaVersion: "latest", sourceType, allowAwaitOutsideFunction: true });
    } catch {
      // try the next way, or give up
    }
  }
  return undefined;
}

/** Edits that turn the binding names of a pattern into `globalThis.<name>` targets. */
function patternEdits(pattern: Pattern, edits: Edit[]): void {
  switch (pattern.type) {
    case "Identifier":
      edits.push({ at: pattern.start, remove: 0, insert: "globalThis." });
      return;
    case "ObjectPattern":
      for (const property of pattern.properties) {
        if (property.type === "RestElement") {
          patternEdits(property.argument, edits);
        } else if (property.shorthand) {
          // `{ a }` / `{ a = 1 }` → `{ a: globalThis.a }` / `{ a: globalThis.a = 1 }`
          const key = property.key as Node & { name: string };
          edits.push({ at: key.start, remove: 0, insert: `${key.name}: globalThis.` });
        } else {
          patternEdits(property.value, edits);
        }
      }
      return;
    case "ArrayPattern":
      for (const element of pattern.elements) if (element) patternEdits(element, edits);
      return;
    case "RestElement":
      patternEdits(pattern.argument, edits);
      return;
    case "AssignmentPattern":
      patternEdits(pattern.left, edits);
      return;
    default:
      return;
  }
}

/** Rewrites a JavaScript cell so its top-level bindings persist on the global object. */
export function persistTopLevelJavaScript(code: string): string {
  const program = parseCell(code);
  if (!program) return code;
  const edits: Edit[] = [];
  const hoisted = program.body.flatMap((s) => (s.type === "FunctionDeclaration" && s.id ? [s.id.name] : []));
  // First, so that it stays in front of any edit of the first statement.
  if (hoisted.length > 0) edits.push({ at: 0, remove: 0, insert: hoisted.map((n) => `globalThis.${n} = ${n}; `).join("") });
  for (const statement of program.body) {
    if (statement.type === "ClassDeclaration" && statement.id) {
      edits.push({ at: statement.start, remove: 0, insert: `globalThis.${statement.id.name} = ` });
      edits.push({ at: statement.end, remove: 0, insert: ";" });
    } else if (statement.type === "VariableDeclaration") {
      edits.push({ at: statement.start, remove: statement.kind.length, insert: "void (" });
      for (const declarator of statement.declarations) {
        patternEdits(declarator.id, edits);
        // `let x;` is `x = undefined`; a bare `var x;` declares x and leaves an existing value alone.
        if (!declarator.init && declarator.id.type === "Identifier") {
          edits.push({ at: declarator.id.end, remove: 0, insert: statement.kind === "var" ? ` = globalThis.${declarator.id.name}` : " = undefined" });
        }
      }
      const endsWithSemicolon = code[statement.end - 1] === ";";
      edits.push({ at: endsWithSemicolon ? statement.end - 1 : statement.end, remove: 0, insert: ")" });
    }
  }
  return edits.length === 0 ? code : applyEdits(code, edits);
}

/**
 * The same for TypeScript: types are stripped first (sucrase, lines kept), then the JavaScript
 * is rewritten. Code sucrase cannot read is returned as it is.
 */
export function persistTopLevel(code: string, language: "javascript" | "typescript"): string {
  if (language === "javascript") return persistTopLevelJavaScript(code);
  // What the engine refuses with a message (a namespace that holds values) it must see as written.
  if (findUnsupportedTypeScript(code)) return code;
  try {
    const { code: stripped } = transform(code, STRIP_OPTIONS);
    return persistTopLevelJavaScript(stripped);
  } catch {
    return code;
  }
}
