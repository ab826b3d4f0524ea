/**
 * The CommonJS build (`npm run build:cjs`): a `.cjs` and a `.d.cts` beside every `.js` and
 * `.d.ts` that tsc emits (`npm run build:esm`), for each entry point in package.json's
 * `exports` that has a `require` condition, and every module those entries import (unbundled,
 * so the file layout, and with it every path computed from `import.meta.url`, is the ESM
 * build's). This is how the `@langchain/*` packages ship (tsdown, `.cjs` + `.d.cts`).
 *
 * The QuickJS worker script and the Deno runner are started by path and stay ESM only.
 */
import { readFileSync } from "node:fs";
import { defineConfig } from "tsdown";

interface ExportConditions {
  require?: { default: string };
}

const manifest = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as {
  exports: Record<string, string | ExportConditions>;
};

/** `./dist/src/tools/index.cjs` -> `src/tools/index.ts`, for every entry that can be required. */
const entry = Object.values(manifest.exports).flatMap((conditions) =>
  typeof conditions === "object" && conditions.require
    ? [conditions.require.default.replace(/^\.\/dist\//, "").replace(/\.cjs$/, ".ts")]
    : [],
);

export default defineConfig({
  entry,
  format: "cjs",
  unbundle: true,
  root: "src",
  outDir: "dist/src",
  // tsc's ESM files live in the same folders.
  clean: false,
  platform: "node",
  target: "node20",
  sourcemap: true,
  dts: true,
  // Nothing from node_modules is copied in: every package stays a `require` of the user's copy
  // (one @langchain/core for the whole program).
  deps: { skipNodeModulesBundle: true },
  outputOptions: {
    // `await import("langchain/...")` becomes `require(...)` too, so the CommonJS build never
    // loads the ESM copy of a LangChain package next to the CommonJS one.
    dynamicImportInCjs: false,
  },
  // Timing notes about plugins are not actionable on a loaded CI machine.
  inputOptions: { checks: { pluginTimings: false } },
  logLevel: "warn",
});
