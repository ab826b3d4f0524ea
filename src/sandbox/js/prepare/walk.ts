/**
 * A small iterative walk over an acorn AST (hostile code may nest deeply enough to overflow a
 * recursive walker), shared by the checks of program preparation.
 */
import type { Node } from "acorn";

/** An AST node with its fields readable by name. */
export type AnyNode = Node & Record<string, unknown>;

/** True for values that are AST nodes (objects with a string `type`). */
export function isNode(value: unknown): value is AnyNode {
  return typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";
}

/**
 * Calls `visit` on every node of `root` in source order; stops early when `visit` returns true.
 * Returns whether it stopped early.
 *
 * @example
 * ```ts
 * const usesAwait = walkNodes(ast, (n) => n.type === "Identifier" && n.name === "await");
 * ```
 */
export function walkNodes(root: Node, visit: (node: AnyNode) => boolean | void): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const current = stack.pop();
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push(current[i]);
      continue;
    }
    if (!isNode(current)) continue;
    if (visit(current) === true) return true;
    const keys = Object.keys(current);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      if (key === "loc") continue;
      const child = current[key];
      if (typeof child === "object" && child !== null) stack.push(child);
    }
  }
  return false;
}
