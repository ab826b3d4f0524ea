/**
 * The CommonJS build (`npm run build:cjs`): a `.cjs` and a `.d.cts` beside every `.js` and
 * `.d.ts` that tsc emits (`npm run build:esm`), for each entry point in package.json's
 * `exports` that has a `require` condition, and every module those entries import (unbundled,
 * so the file layout, and with it every path computed from `import.meta.url`, is the ESM
 * build's). This is how the `@langchain/*` packages ship (tsdown, `.cjs` + `.d.cts`).
 *
 * The QuickJS worker script is started by path (`new Worker`): it is bundled on its own, as one
 * CommonJS file (`dist/src/sandbox/js/worker/engine-worker.cjs`), because a worker thread starts
 * a CommonJS entry ~15 ms sooner than an ES module and loads one file sooner than ~40 (the
 * imports took 35-45 ms, bundled ~10-20; measured on this machine, docs/performance.md). Its
 * packages (quickjs-emscripten, acorn, sucrase) stay `require`s of the user's copies: the
 * engine's JavaScript must be the one its WASM file was built with. The Deno runner stays ESM.
 */
import { readFileSync } from "node:fs";
import { defineConfig } from "tsdown";

interface ExportConditions {
  require?: { default: string };
}

const manifest = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as {
  exports: Record<string, string | ExportConditions>;
};

/** `./dist/src/tools/index.cjs` (or `entry.cjs`) -> `src/tools/index.ts`, for every entry that can be required. */
const entry = Object.values(manifest.exports).flatMap((conditions) =>
  typeof conditions === "object" && conditions.require
    ? // `entry.cjs` (the peer check, written by scripts/peer-entries.mjs) loads the entry's index.
      [conditions.require.default.replace(/^\.\/dist\//, "").replace(/\/entry\.cjs$/, "/index.cjs").replace(/\.cjs$/, ".ts")]
    : [],
);

const shared = {
  format: "cjs",
  platform: "node",
  target: "node20",
  sourcemap: true,
  // tsc's ESM files live in the same folders.
  clean: false,
  // Nothing from node_modules is copied in: every package stays a `require` of the user's copy
  // (one @langchain/core for the whole program).
  deps: { skipNodeModulesBundle: true },
  // Timing notes about plugins are not actionable on a loaded CI machine.
  inputOptions: { checks: { pluginTimings: false } },
  logLevel: "warn",
} as const;

export default defineConfig([
  {
    ...shared,
    entry,
    unbundle: true,
    root: "src",
    outDir: "dist/src",
    dts: true,
    outputOptions: {
      // `await import("langchain/...")` becomes `require(...)` too, so the CommonJS build never
      // loads the ESM copy of a LangChain package next to the CommonJS one.
      dynamicImportInCjs: false,
    },
  },
  {
    ...shared,
    entry: { "engine-worker": "src/sandbox/js/worker/main.ts" },
    outDir: "dist/src/sandbox/js/worker",
    // `import.meta.url` (where the worker finds its packages) becomes this file's URL.
    shims: true,
    // One file: sucrase and acorn are required lazily, like the rest of the packages.
    outputOptions: { codeSplitting: false },
    outExtensions: () => ({ js: ".cjs" }),
    dts: false,
  },
]);
