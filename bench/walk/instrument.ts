/**
 * A Vite plugin that records the walk of a call through `src/`: every function of a module
 * under `src/` tells `globalThis.__walk` when it is entered and when it returns (the leaves,
 * `sandbox/`, `options/` and `common/`, are not followed). Used by `walk.config.ts` only.
 */
import ts from "typescript";
import type { Plugin } from "vite";

const SRC = "/src/";
/** Folders below the walk (the engine and the option checks): a call into them is not followed. */
const LEAVES = ["sandbox/", "options/", "common/"];

function wrap(body: ts.ConciseBody, module: string, f: ts.NodeFactory): ts.Block {
  const walk = f.createPropertyAccessChain(f.createIdentifier("globalThis"), undefined, "__walk");
  const call = (method: string, args: ts.Expression[]) =>
    f.createCallChain(f.createPropertyAccessChain(walk, f.createToken(ts.SyntaxKind.QuestionDotToken), method), undefined, undefined, args);
  const statements = ts.isBlock(body) ? [...body.statements] : [f.createReturnStatement(body)];
  return f.createBlock(
    [
      f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration("__walkFrame", undefined, undefined, call("enter", [f.createStringLiteral(module)]))], ts.NodeFlags.Const)),
      f.createTryStatement(f.createBlock(statements, true), undefined, f.createBlock([f.createExpressionStatement(call("exit", [f.createIdentifier("__walkFrame")]))], true)),
    ],
    true,
  );
}

/** Source with every function body wrapped in enter/exit calls naming `module`. */
export function instrument(source: string, module: string): string {
  const file = ts.createSourceFile(module, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const transformer: ts.TransformerFactory<ts.SourceFile> = (context) => {
    const f = context.factory;
    const visit = (node: ts.Node): ts.Node => {
      const next = ts.visitEachChild(node, visit, context);
      if (ts.isFunctionDeclaration(next) && next.body) return f.updateFunctionDeclaration(next, next.modifiers, next.asteriskToken, next.name, next.typeParameters, next.parameters, next.type, wrap(next.body, module, f));
      if (ts.isFunctionExpression(next)) return f.updateFunctionExpression(next, next.modifiers, next.asteriskToken, next.name, next.typeParameters, next.parameters, next.type, wrap(next.body, module, f));
      if (ts.isArrowFunction(next)) return f.updateArrowFunction(next, next.modifiers, next.typeParameters, next.parameters, next.type, next.equalsGreaterThanToken, wrap(next.body, module, f));
      if (ts.isMethodDeclaration(next) && next.body) return f.updateMethodDeclaration(next, next.modifiers, next.asteriskToken, next.name, next.questionToken, next.typeParameters, next.parameters, next.type, wrap(next.body, module, f));
      if (ts.isGetAccessorDeclaration(next) && next.body) return f.updateGetAccessorDeclaration(next, next.modifiers, next.name, next.parameters, next.type, wrap(next.body, module, f));
      return next;
    };
    return (sf) => ts.visitNode(sf, visit) as ts.SourceFile;
  };
  const result = ts.transform(file, [transformer]);
  const out = ts.createPrinter().printFile(result.transformed[0]!);
  result.dispose();
  return out;
}

export function walkPlugin(): Plugin {
  return {
    name: "code-walk",
    enforce: "pre",
    transform(code, id) {
      const at = id.lastIndexOf(SRC);
      if (at < 0 || !id.endsWith(".ts")) return null;
      const module = id.slice(at + SRC.length);
      if (LEAVES.some((leaf) => module.startsWith(leaf))) return null;
      return { code: instrument(code, module), map: null };
    },
  };
}
