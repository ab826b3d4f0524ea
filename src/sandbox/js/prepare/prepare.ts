/**
 * Turns the source a caller passed into a program QuickJS can run, before anything runs:
 * strips TypeScript types, finds syntax errors and forbidden imports, decides between script
 * and module, and makes a module's last expression its result. Every line keeps its number,
 * so errors QuickJS reports point into the caller's source.
 */
import type { Comment, Options, Program } from "acorn";
import { parse } from "./acorn.js";
import { sucrase } from "./sucrase.js";
import type { ExecutionError } from "../../types.js";
import { addDefaultExport } from "./default-export.js";
import { findModuleRequests, forbiddenImportMessage } from "./imports.js";
import { walkNodes } from "./walk.js";
import { explainUnsupportedSyntax, findUnsupportedJavaScript, findUnsupportedTypeScript, STRIP_OPTIONS } from "./unsupported.js";

/** A program ready to evaluate, or the reason it must not run. */
export type PreparedProgram =
  | { ok: true; code: string; kind: "script" | "module" }
  | { ok: false; status: "syntax_error" | "forbidden"; error: ExecutionError };

/**
 * Prepares JavaScript or TypeScript for the sandbox. Pure and synchronous (no I/O), so it
 * runs on the host or inside a worker thread.
 *
 * - TypeScript is stripped of types with sucrase; types are not checked. Lines keep their
 *   numbers; columns are exact in JavaScript and approximate after stripped types. What the
 *   stripper cannot keep (namespaces with values, `export =`, decorators, ...; see
 *   unsupported.ts) is a `syntax_error` that says what to write instead.
 * - The code parses as a script if it can, else as a module (import/export, top-level await).
 * - `import`, `export ... from`, `import(...)` and `require(...)` are `forbidden`: the sandbox
 *   has no modules. `grantedNames` (globals and host functions) are listed in the message as
 *   what is available; granting a global named `require` lets calls to it through.
 * - A module without `export default` whose last statement is an expression gets that
 *   expression as its default export, so it has a result like a script does.
 *
 * @example
 * ```ts
 * prepareJavaScript("const x: number = 2;\nx * 21", "typescript");
 * // { ok: true, kind: "script", code: "const x = 2;\nx * 21" }
 * prepareJavaScript('import fs from "node:fs";', "javascript").ok; // false (status "forbidden")
 * ```
 */
export function prepareJavaScript(
  source: string,
  language: "javascript" | "typescript",
  options?: { grantedNames?: string[] },
): PreparedProgram {
  const grantedNames = options?.grantedNames ?? [];
  // A "#!" line is a comment to Node; QuickJS may not skip it, and "//" keeps its length.
  let code = source.startsWith("#!") ? `//${source.slice(2)}` : source;

  if (language === "typescript") {
    const stripped = stripTypes(code);
    if (!stripped.ok) return stripped;
    code = stripped.code;
  }

  const parsed = parseScriptOrModule(code);
  if (!parsed.ok) return parsed;
  const unsupported = findUnsupportedJavaScript(parsed.ast, code);
  if (unsupported) return { ok: false, status: "syntax_error", error: unsupported };

  const requests = findModuleRequests(parsed.ast, grantedNames);
  if (requests.length > 0) {
    const first = requests[0]!;
    return {
      ok: false,
      status: "forbidden",
      error: {
        name: "ImportError",
        message: forbiddenImportMessage(requests, grantedNames),
        line: first.line,
        column: first.column,
      },
    };
  }

  if (parsed.kind === "script") return { ok: true, code, kind: "script" };
  return { ok: true, code: addDefaultExport(code, parsed.ast, parsed.comments), kind: "module" };
}

const TOO_DEEP = "The program is nested too deeply to parse.";

type Stripped = { ok: true; code: string } | { ok: false; status: "syntax_error"; error: ExecutionError };

function stripTypes(source: string): Stripped {
  const unsupported = findUnsupportedTypeScript(source);
  if (unsupported) return { ok: false, status: "syntax_error", error: unsupported };
  try {
    const { code } = sucrase().transform(source, STRIP_OPTIONS);
    return { ok: true, code };
  } catch (error) {
    if (error instanceof RangeError) {
      return { ok: false, status: "syntax_error", error: { name: "SyntaxError", message: TOO_DEEP } };
    }
    // sucrase reports 1-based line and column in `loc`, and repeats them in the message.
    const { loc, pos } = error as { loc?: { line: number; column: number }; pos?: number };
    const explained = pos === undefined ? undefined : explainUnsupportedSyntax(source, pos);
    return {
      ok: false,
      status: "syntax_error",
      error: {
        name: "SyntaxError",
        message: explained ?? withoutPosition(error instanceof Error ? error.message : String(error)),
        ...(loc ? { line: loc.line, column: loc.column } : {}),
      },
    };
  }
}

type Parsed =
  | { ok: true; kind: "script" | "module"; ast: Program; comments: Comment[] }
  | { ok: false; status: "syntax_error"; error: ExecutionError };

interface AcornFailure {
  error: ExecutionError;
  /** Offset where the parser gave up: the attempt that got further explains the code better. */
  pos: number;
}

function parseScriptOrModule(code: string): Parsed {
  const asScript = tryParse(code, { sourceType: "script" });
  // In a script, `await (p)` and `await (f)()` parse as calls of a function named `await`:
  // code that uses that name almost surely means top-level await, so it runs as a module
  // whenever it parses as one.
  if ("ast" in asScript && !walkNodes(asScript.ast, (n) => n.type === "Identifier" && n.name === "await")) {
    return { ok: true, kind: "script", ...asScript };
  }
  const asModule = tryParse(code, { sourceType: "module", allowAwaitOutsideFunction: true });
  if ("ast" in asModule) return { ok: true, kind: "module", ...asModule };
  if ("ast" in asScript) return { ok: true, kind: "script", ...asScript };
  // Both failed. Code that is meant as a module (import/export) fails as a script at its
  // first import and gets further as a module; plain scripts fail at the same place or
  // sooner as a module (strict mode), so the script's error wins ties.
  const better = asModule.pos > asScript.pos ? asModule : asScript;
  return { ok: false, status: "syntax_error", error: better.error };
}

function tryParse(
  code: string,
  options: Pick<Options, "sourceType" | "allowAwaitOutsideFunction">,
): { ast: Program; comments: Comment[] } | AcornFailure {
  const comments: Comment[] = [];
  try {
    const ast = parse(code, { ecmaVersion: "latest", locations: true, onComment: comments, ...options });
    return { ast, comments };
  } catch (error) {
    if (error instanceof SyntaxError) {
      const { loc, pos } = error as SyntaxError & { loc?: { line: number; column: number }; pos?: number };
      return {
        pos: pos ?? 0,
        error: {
          name: "SyntaxError",
          message: (pos === undefined ? undefined : explainUnsupportedSyntax(code, pos)) ?? withoutPosition(error.message),
          // acorn's column is 0-based; ours is 1-based.
          ...(loc ? { line: loc.line, column: loc.column + 1 } : {}),
        },
      };
    }
    // acorn recurses; absurdly nested code overflows the host's stack while parsing.
    if (error instanceof RangeError) {
      return { pos: 0, error: { name: "SyntaxError", message: TOO_DEEP } };
    }
    // Anything else would be a parser bug; the code still cannot run, and the worker must not die.
    return { pos: 0, error: { name: "SyntaxError", message: `The program could not be parsed: ${String(error)}` } };
  }
}

/** acorn and sucrase end messages with " (line:column)"; the fields carry that already. */
function withoutPosition(message: string): string {
  return message.replace(/\s*\(\d+:\d+\)$/, "");
}
