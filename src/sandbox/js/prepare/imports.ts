/**
 * Finds every way a program tries to load a module, so that a forbidden import is reported
 * before the code runs, with a message that says what the sandbox does offer instead.
 */
import type { Node } from "acorn";
import { isNode, walkNodes, type AnyNode } from "./walk.js";

/** One attempt of the program to load a module. */
export interface ModuleRequest {
  /** The module specifier as written, or `undefined` when it is computed at run time. */
  specifier: string | undefined;
  /** How the module was requested, for the message. */
  form: "import" | "export-from" | "dynamic-import" | "require";
  /** 1-based line and column of the request in the parsed code. */
  line: number;
  column: number;
}

function literalString(node: unknown): string | undefined {
  if (!isNode(node)) return undefined;
  if (node.type === "Literal" && typeof node.value === "string") return node.value;
  // A template without substitutions names its module as plainly as a string literal does.
  if (node.type === "TemplateLiteral" && (node.expressions as unknown[]).length === 0) {
    const quasi = (node.quasis as Array<{ value: { cooked: string | null } }>)[0];
    return quasi?.value.cooked ?? undefined;
  }
  return undefined;
}

/**
 * Walks an acorn AST (iteratively: hostile code may nest deeply) and lists every module
 * request: static `import`, `export ... from`, `import(...)` and calls of `require(...)`.
 * `require` is not reported when the caller granted a global of that name.
 *
 * @example
 * ```ts
 * const ast = acorn.parse('import fs from "fs"', { ecmaVersion: "latest", sourceType: "module", locations: true });
 * findModuleRequests(ast, []); // [{ specifier: "fs", form: "import", line: 1, column: 1 }]
 * ```
 */
export function findModuleRequests(ast: Node, grantedNames: readonly string[]): ModuleRequest[] {
  const requireGranted = grantedNames.includes("require");
  const found: ModuleRequest[] = [];
  walkNodes(ast, (node) => {
    const request = asModuleRequest(node, requireGranted);
    if (request) found.push(request);
  });
  return found.sort((a, b) => a.line - b.line || a.column - b.column);
}

function asModuleRequest(node: AnyNode, requireGranted: boolean): ModuleRequest | undefined {
  const where = { line: node.loc!.start.line, column: node.loc!.start.column + 1 };
  switch (node.type) {
    case "ImportDeclaration":
      return { specifier: literalString(node.source), form: "import", ...where };
    case "ExportNamedDeclaration":
    case "ExportAllDeclaration":
      return node.source ? { specifier: literalString(node.source), form: "export-from", ...where } : undefined;
    case "ImportExpression":
      return { specifier: literalString(node.source), form: "dynamic-import", ...where };
    case "CallExpression": {
      const callee = node.callee as AnyNode;
      if (requireGranted || callee.type !== "Identifier" || callee.name !== "require") return undefined;
      const args = node.arguments as unknown[];
      return { specifier: literalString(args[0]), form: "require", ...where };
    }
    default:
      return undefined;
  }
}

/**
 * The message of a `forbidden` result: names the module(s), says why they are missing and
 * what the code can use instead (built-ins, `console`, and what the caller granted).
 *
 * @example
 * ```ts
 * forbiddenImportMessage([{ specifier: "fs", form: "import", line: 1, column: 1 }], ["data"]);
 * // 'Module "fs" is not available in the sandbox: ... functions: data. (line 1)'
 * ```
 */
export function forbiddenImportMessage(requests: readonly ModuleRequest[], grantedNames: readonly string[]): string {
  const named = [...new Set(requests.map((r) => r.specifier).filter((s): s is string => s !== undefined))];
  const computed = requests.some((r) => r.specifier === undefined);
  let subject: string;
  if (named.length === 0) {
    subject = `A computed ${requests[0]!.form === "require" ? "require(...)" : "import(...)"} is not available in the sandbox`;
  } else {
    const list = named.map((n) => `"${n}"`).join(", ");
    subject = named.length === 1 && !computed ? `Module ${list} is not available in the sandbox` : `Modules ${list}${computed ? " (and a computed one)" : ""} are not available in the sandbox`;
  }
  // A name that starts with "__" is a caller's plumbing (a tool bridge, a shell's setup), not an
  // API to offer the model.
  const shown = grantedNames.filter((name) => !name.startsWith("__"));
  const available =
    shown.length > 0
      ? `, console, and the granted globals and functions: ${shown.join(", ")}.`
      : shown.length < grantedNames.length
        ? " and console."
        : " and console; the caller granted no other globals or functions.";
  const first = requests[0]!;
  return (
    `${subject}: it has no file system, network, process, module loader or npm packages. ` +
    `Available: ECMAScript built-ins (Math, JSON, Date, Map, Set, Promise, ...)${available} ` +
    `Remove the ${first.form === "require" ? "require" : "import"} on line ${first.line} and write the code with what is available.`
  );
}
