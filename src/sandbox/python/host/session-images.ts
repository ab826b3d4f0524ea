/**
 * What Python session images (code mode's snapshots, deno/session-image.ts) are valid for, and
 * the fresh interpreter's JavaScript hash the host keeps beside the Pyodide snapshot.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { PythonPaths } from "./deno-paths.js";

const builds = new Map<string, string>();

/**
 * The hash of a fresh session interpreter's JavaScript side, per build: every fresh session
 * interpreter of a build walks alike (its clock and seed are fixed), so the first restore's walk
 * is kept beside the Pyodide snapshot and given to later restores, which then skip it.
 * The hash names the install's paths too: another install walks differently (its images are refused).
 */
function freshJavascriptFile(paths: PythonPaths, build: string): string {
  return `${paths.snapshotFile}.${build}.fresh-javascript`;
}
const freshJavascripts = new Map<string, string>();

export function freshJavascriptOf(paths: PythonPaths, build: string): string | undefined {
  const file = freshJavascriptFile(paths, build);
  const known = freshJavascripts.get(file);
  if (known !== undefined) return known;
  try {
    const text = readFileSync(file, "utf8").trim();
    if (!/^[0-9a-f]{64}$/.test(text)) return undefined;
    freshJavascripts.set(file, text);
    return text;
  } catch {
    return undefined;
  }
}

export function keepFreshJavascript(paths: PythonPaths, build: string, hash: string): void {
  const file = freshJavascriptFile(paths, build);
  freshJavascripts.set(file, hash);
  try {
    mkdirSync(dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, hash);
    renameSync(temporary, file);
  } catch {
    // A read-only install: each process walks once.
  }
}

/**
 * What a Python session image is valid for: Pyodide's and Deno's versions, the snapshot file the
 * interpreters start from (its name carries the package set; its contents are checked by the
 * runner) and every file of the runner and the modules it shares (the prelude, the worker): a
 * fresh interpreter of another build is laid out differently.
 */
export function pythonEngineBuild(paths: PythonPaths): string {
  const key = `${paths.runnerDir}\0${paths.sharedDir}\0${paths.snapshotFile}`;
  const known = builds.get(key);
  if (known !== undefined) return known;
  const hash = createHash("sha256");
  hash.update(`codegen-sandbox python image 1\0${paths.pyodideVersion}\0${paths.denoVersion}\0${basename(paths.snapshotFile)}`);
  for (const dir of [paths.runnerDir, paths.sharedDir]) {
    for (const name of readdirSync(dir).filter((n) => n.endsWith(".js")).sort()) hash.update(`\0${name}\0`).update(readFileSync(join(dir, name)));
  }
  const build = `pyodide-${paths.pyodideVersion}-${hash.digest("hex").slice(0, 32)}`;
  builds.set(key, build);
  return build;
}
