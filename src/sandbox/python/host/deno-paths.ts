/**
 * Where the pieces of the Python engine live on disk: the Deno binary shipped by the `deno`
 * npm package, the Pyodide files, the runner scripts, and the snapshot cache.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { EngineSetupError } from "./errors.js";
import type { PackageSet } from "./wheels.js";

const require = createRequire(import.meta.url);

/** Paths the engine needs; resolved once per engine. */
export interface PythonPaths {
  denoBinary: string;
  /** Directory of the `pyodide` package, with a trailing separator. */
  pyodideDir: string;
  pyodideVersion: string;
  denoVersion: string;
  /** Directory holding `runner.js` and `worker.js` (the only code Deno may read besides Pyodide). */
  runnerDir: string;
  /** Directory of the modules the runner shares with the host (bounds both sides check); Deno may read it too. */
  sharedDir: string;
  /** Where a Pyodide memory snapshot is cached between processes. */
  snapshotFile: string;
  /** Pure-Python packages installed before user code (wheels.ts); the snapshot file name carries their hash. */
  packages?: PackageSet;
  /** Import name → package name of the lock's packages, for the refusal of an unconfigured one. */
  lockImports?: Record<string, string>;
}

/**
 * Resolves every path, or throws `EngineSetupError` saying which package is missing.
 *
 * @example
 * const { denoBinary, pyodideDir } = resolvePythonPaths();
 */
export function resolvePythonPaths(): PythonPaths {
  const { pyodideDir, pyodideVersion } = resolvePyodide();
  const { binary, version } = resolveDeno();
  const runnerDir = runnerDirectory();
  const cacheDir = snapshotCacheDir(pyodideDir);
  const paths: PythonPaths = {
    denoBinary: binary,
    pyodideDir: pyodideDir.endsWith("/") ? pyodideDir : `${pyodideDir}/`,
    pyodideVersion,
    denoVersion: version,
    runnerDir,
    sharedDir: join(dirname(runnerDir), "shared"),
    // "-h0": made with a fixed hash seed (older snapshots carry a random one). "-i1": holds the
    // standard-library modules built on forbidden ones, imported before the seal (import-seal.ts).
    snapshotFile: join(cacheDir, `pyodide-${pyodideVersion}-deno-${version}-h0-i1.snapshot`),
  };
  checkDenoReadPaths(paths);
  return paths;
}

/**
 * The installed Pyodide's folder and version, or `EngineSetupError` when it is missing.
 *
 * @example
 * resolvePyodide().pyodideVersion; // "314.0.7"
 */
export function resolvePyodide(): { pyodideDir: string; pyodideVersion: string } {
  try {
    const pyodideDir = dirname(require.resolve("pyodide"));
    const pyodideVersion = (require(join(pyodideDir, "package.json")) as { version: string }).version;
    return { pyodideDir, pyodideVersion };
  } catch (error) {
    throw new EngineSetupError("the `pyodide` package is not installed; run `npm install pyodide@314.0.7`", error);
  }
}

/**
 * Refuses paths that Deno's `--allow-read=a,b,c` list would misread: it splits on commas, so
 * `/srv/x,/etc` would grant `/etc` too (or a path that does not exist, and the engine fails
 * later with a permission error nobody can place). Every path of that list is checked, with
 * what to do about the one that failed.
 *
 * @throws EngineSetupError naming the path.
 * @example
 * checkDenoReadPaths(resolvePythonPaths()); // nothing: no commas
 */
export function checkDenoReadPaths(paths: Pick<PythonPaths, "pyodideDir" | "runnerDir" | "sharedDir" | "snapshotFile" | "packages">): void {
  const entries: Array<[string, string, string]> = [
    ...(paths.packages?.native ?? []).map(({ name, path }): [string, string, string] => [`the cached file of package ${name}`, path, `set ${CACHE_DIR_VARIABLE} to an absolute folder whose path has no commas`]),
    ["the Pyodide package folder", paths.pyodideDir, "install the project in a folder whose path has no commas"],
    ["the runner's folder", paths.runnerDir, "install codegen-sandbox in a folder whose path has no commas"],
    ["the runner's shared folder", paths.sharedDir, "install codegen-sandbox in a folder whose path has no commas"],
    ["the snapshot file", paths.snapshotFile, `set ${CACHE_DIR_VARIABLE} to an absolute folder whose path has no commas`],
  ];
  for (const [what, path, fix] of entries) {
    if (path.includes(",") || path.includes("\0")) {
      throw new EngineSetupError(
        `${what} is ${JSON.stringify(path)}: Deno's --allow-read list is comma-separated, so a path with a comma (or a NUL byte) cannot be granted exactly; ${fix}`,
      );
    }
  }
}

/** The environment variable that moves the snapshot cache (docs/python.md, "The snapshot cache"). */
export const CACHE_DIR_VARIABLE = "CODEGEN_SANDBOX_CACHE_DIR";

/**
 * Folder of the interpreter snapshot (~31 MB per Pyodide/Deno/wheel set) and Deno's own cache:
 * `$CODEGEN_SANDBOX_CACHE_DIR` when set, else `.cache/codegen-sandbox` beside the other tools'
 * caches in the node_modules that holds pyodide. Read from the environment here, not passed in:
 * the shared sandbox behind `runCode`, the tools and the CLI has no options of its own, and
 * where a machine keeps caches is a property of the machine (like TMPDIR).
 *
 * @example
 * snapshotCacheDir("/app/node_modules/pyodide", { CODEGEN_SANDBOX_CACHE_DIR: "/var/cache/cgs" }); // "/var/cache/cgs"
 */
export function snapshotCacheDir(pyodideDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = env[CACHE_DIR_VARIABLE];
  if (chosen === undefined || chosen === "") return join(dirname(pyodideDir), ".cache", "codegen-sandbox");
  if (!isAbsolute(chosen) || chosen.includes("\0") || chosen.includes(",")) {
    // Deno's --allow-read list is comma-separated: a comma would grant a second path.
    throw new EngineSetupError(
      `${CACHE_DIR_VARIABLE} must be an absolute folder path without commas (got ${JSON.stringify(chosen)}); unset it to use node_modules/.cache/codegen-sandbox`,
    );
  }
  return chosen;
}

function resolveDeno(): { binary: string; version: string } {
  let packageDir: string;
  let version: string;
  try {
    const manifest = require.resolve("deno/package.json");
    packageDir = dirname(manifest);
    version = (require(manifest) as { version: string }).version;
  } catch (error) {
    throw new EngineSetupError("the `deno` package is not installed; run `npm install deno@2.9.6`", error);
  }
  const binary = join(packageDir, process.platform === "win32" ? "deno.exe" : "deno");
  if (existsSync(binary)) return { binary, version };
  // npm may skip deno's install script (which copies the binary); its own helper finds the
  // binary in the platform package instead.
  try {
    const installer = require(join(packageDir, "install_api.cjs")) as { runInstall(): string };
    return { binary: installer.runInstall(), version };
  } catch (error) {
    throw new EngineSetupError(`no Deno binary for ${process.platform}-${process.arch} in the \`deno\` package`, error);
  }
}

/** Directory of the compiled runner, next to this module's built copy (tests of the sources: test/support/built-workers.ts). */
function runnerDirectory(): string {
  return join(dirname(fileURLToPath(import.meta.url)), "..", "deno");
}
