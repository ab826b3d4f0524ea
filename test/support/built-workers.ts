/**
 * Built workers for tests that run the TypeScript sources. Vitest runs `src/**.ts` directly, but
 * a worker thread (QuickJS, the deepagents shell, the type checker) or the Deno runner (Python)
 * is started from the compiled JavaScript. Runtime code computes only its built layout: each of
 * the modules below finds its worker relative to its own `import.meta.url`. In a test run this
 * plugin makes `import.meta.url` in exactly these modules the URL of the module's compiled copy
 * in `dist/` (which `npm test` builds first), so those paths land on the built workers.
 *
 * A module that starts another worker joins the list (its tests fail to find the worker until it does).
 */
import { join, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Plugin } from "vite";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** Modules (from the repository's root) that start a worker from a path next to their built copy. */
export const MODULES_STARTING_WORKERS = [
  "src/sandbox/js/host/worker-client.ts",
  "src/deepagents/shell-host.ts",
  "src/deepagents/type-check-thread.ts",
  "src/sandbox/python/host/deno-paths.ts",
] as const;

/** The Vite plugin (vitest.config.ts, bench/walk/walk.config.ts). */
export function builtWorkers(): Plugin {
  const built = new Map<string, string>(
    MODULES_STARTING_WORKERS.map((file) => [join(root, file), pathToFileURL(join(root, "dist", file.replace(/\.ts$/, ".js"))).href]),
  );
  return {
    name: "codegen-sandbox:built-workers",
    enforce: "pre",
    transform(code, id) {
      const url = built.get(id.split("?")[0]!.split("/").join(sep));
      if (url === undefined) return null;
      return { code: code.replace(/\bimport\.meta\.url\b/g, JSON.stringify(url)), map: null };
    },
  };
}
