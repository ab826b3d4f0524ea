/**
 * sucrase, loaded on the first TypeScript program rather than at import: it is the largest part
 * of the package root's import graph (`npm run bench -- entry`, row `import("codegen-sandbox")`), and
 * JavaScript-only users never need it. sucrase is CommonJS, so `require` loads it synchronously.
 */
import { createRequire } from "node:module";
import type { Options, TransformResult } from "sucrase";

const require = createRequire(import.meta.url);

/** A token of sucrase's own tokenizer (sucrase exports no types for this path). */
export interface SucraseToken {
  type: number;
  contextualKeyword: number;
  start: number;
  end: number;
  isType: boolean;
}

/** The parts of sucrase the sandbox uses: its transform and its TypeScript tokenizer. */
export interface Sucrase {
  transform(code: string, options: Options): TransformResult;
  tokenize(input: string, isJSX: boolean, isTypeScript: boolean, isFlow: boolean): { tokens: SucraseToken[] };
  /** sucrase's token types, by name. */
  tt: Record<string, number>;
  /** sucrase's contextual keywords, by name. */
  kw: Record<string, number>;
}

let loaded: Sucrase | undefined;

/** sucrase, loaded once on first use (the same CommonJS build that `import "sucrase"` loads). */
export function sucrase(): Sucrase {
  if (!loaded) {
    const { transform } = require("sucrase") as { transform: Sucrase["transform"] };
    const { parse } = require("sucrase/dist/parser") as { parse: Sucrase["tokenize"] };
    const { TokenType } = require("sucrase/dist/parser/tokenizer/types") as { TokenType: Record<string, number> };
    const { ContextualKeyword } = require("sucrase/dist/parser/tokenizer/keywords") as { ContextualKeyword: Record<string, number> };
    loaded = { transform, tokenize: parse, tt: TokenType, kw: ContextualKeyword };
  }
  return loaded;
}
