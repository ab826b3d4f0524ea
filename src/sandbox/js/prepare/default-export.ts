/**
 * Gives a module the same "last expression is the result" rule as a script, by turning its
 * last expression statement into `export default (EXPR);` — without moving any line.
 */
import type { Comment, ExpressionStatement, Program } from "acorn";

const PREFIX = "export default (";

/**
 * Rewrites the last top-level statement of a module to `export default (EXPR);` when the
 * module has no default export of its own and that statement is an expression.
 * Returns the code unchanged otherwise.
 *
 * Line numbers never change: no newline is added or removed. When it is safe, the prefix goes
 * at the end of the line before the statement, so the statement's own columns stay exact too;
 * otherwise (first line, a line comment or a string spanning that line break) it goes right
 * before the expression and only columns on that line shift.
 *
 * @example
 * ```ts
 * // for `const a = await f();\na * 2`
 * addDefaultExport(code, ast, comments); // 'const a = await f(); ;export default (\na * 2);'
 * ```
 */
export function addDefaultExport(code: string, ast: Program, comments: readonly Comment[]): string {
  if (hasDefaultExport(ast)) return code;
  const last = ast.body[ast.body.length - 1];
  if (!last || last.type !== "ExpressionStatement") return code;
  const statement = last as ExpressionStatement;
  // The statement's own text, not just the expression's: it keeps parentheses around the
  // expression and any line breaks or comments before its ";".
  const statementText = code.slice(statement.start, statement.end);
  const exprText = statementText.endsWith(";") ? statementText.slice(0, -1) : statementText;
  const before = code.slice(0, statement.start);
  const after = code.slice(statement.end);

  const previous = ast.body[ast.body.length - 2];
  const newlineAt = code.lastIndexOf("\n", statement.start - 1);
  // A "\r" before the newline belongs to the line break; the prefix goes before it.
  const at = newlineAt > 0 && code[newlineAt - 1] === "\r" ? newlineAt - 1 : newlineAt;
  const lineBreakIsFree =
    newlineAt >= 0 &&
    at >= (previous?.end ?? 0) &&
    // Inside or right at the end of a comment the prefix would be commented out.
    !comments.some((c) => c.start <= at && at <= c.end) &&
    code.slice(newlineAt + 1, statement.start).trim() === "";

  if (lineBreakIsFree) {
    // The ";" ends the previous statement explicitly: with ASI it would have ended only at
    // the line break we are writing before.
    return `${code.slice(0, at)} ;${PREFIX}${code.slice(at, statement.start)}${exprText});${after}`;
  }
  return `${before}${PREFIX}${exprText});${after}`;
}

function hasDefaultExport(ast: Program): boolean {
  return ast.body.some((node) => {
    if (node.type === "ExportDefaultDeclaration") return true;
    if (node.type === "ExportNamedDeclaration") {
      return node.specifiers.some((s) => {
        const exported = s.exported;
        return exported.type === "Identifier" ? exported.name === "default" : exported.value === "default";
      });
    }
    return false;
  });
}
