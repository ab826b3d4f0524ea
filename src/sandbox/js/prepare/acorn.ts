/**
 * acorn's `parse`, loaded on the first program rather than when the package root is imported
 * (a large part of the root's load: `npm run bench -- entry`, row `import("codegen-sandbox")`). acorn ships a CommonJS build, so
 * `require` loads it synchronously and `prepareJavaScript` stays synchronous.
 */
import { createRequire } from "node:module";
import type { Options, Program } from "acorn";

const require = createRequire(import.meta.url);
let parseFn: ((input: string, options: Options) => Program) | undefined;

/** acorn's `parse`, loaded once on first use. */
export function parse(input: string, options: Options): Program {
  parseFn ??= (require("acorn") as { parse: (input: string, options: Options) => Program }).parse;
  return parseFn(input, options);
}
