/**
 * The pool reset, proven by difference: after each of more than 100 hostile programs, run back
 * to back in one process, the interpreter the next run gets fingerprints exactly like a fresh
 * one: the whole WebAssembly memory (every Python object, module, builtin, the random state,
 * os.environ), globals and tables, the file tree with content hashes, the descriptor table,
 * Emscripten's environment and cwd, and every JavaScript property reachable from what Python can
 * reach (deno/fingerprint.ts). Programs that only change memory must be reset in place (so the
 * fast path is what is tested); programs that reach JavaScript or files must get a new worker.
 * The same holds with a package set loaded (the local index fixture: pure wheels from the
 * snapshot and one package through Pyodide's own loader).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolvePythonPaths, snapshotCacheDir, type PythonPaths } from "../../../src/sandbox/python/host/deno-paths.js";
import { parsePackageIndex, preparePackages } from "../../../src/sandbox/python/host/package-fetch.js";
import { snapshotFileFor } from "../../../src/sandbox/python/host/wheels.js";
import { writePackageIndex } from "../../../bench/fixtures/python-index.js";
import { DenoProcess } from "../../../src/sandbox/python/host/deno-process.js";
import type { RunLimits } from "../../../src/sandbox/python/shared/protocol.js";
import { HOSTILE_PROGRAMS } from "./hostile-programs.js";

const limits: RunLimits = { timeoutMs: 10_000, memoryLimitBytes: 64 * 1024 * 1024, maxOutputBytes: 1024 * 1024, maxResultBytes: 1024 * 1024 };

/** The engine's paths with the fixture's package set (what createPythonEngine({ packages }) makes). */
async function withFixturePackages(): Promise<PythonPaths> {
  const dir = mkdtempSync(join(tmpdir(), "cs-reset-index-"));
  try {
    writePackageIndex(dir);
    const base = resolvePythonPaths();
    const packages = await preparePackages({ names: ["cs-native"], index: parsePackageIndex(dir), pyodideDir: base.pyodideDir, pyodideVersion: base.pyodideVersion, cacheDir: snapshotCacheDir(base.pyodideDir) });
    return { ...base, packages, snapshotFile: snapshotFileFor(base.snapshotFile, packages), lockImports: packages.lockImports ?? {} };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.each([
  ["the standard library", async () => resolvePythonPaths()],
  ["a package set loaded", withFixturePackages],
] as const)("the pool reset restores everything a run can observe, with %s", (_what, paths) => {
  let proc: DenoProcess;

  beforeAll(async () => {
    proc = new DenoProcess(await paths(), false, true);
    await proc.whenReady();
  }, 180_000);

  afterAll(async () => {
    proc?.dispose();
    await proc?.exited;
  });

  it("a fresh interpreter's fingerprint is stable", async () => {
    const first = await proc.fingerprint();
    expect(first.now).toEqual(first.baseline);
    expect((await proc.fingerprint()).now).toEqual(first.baseline);
  }, 60_000);

  it("from js, Python reaches neither Pyodide's API, its module, its internal API nor the WebAssembly memory", async () => {
    const { baseline } = await proc.fingerprint();
    // The walk names those values "<...>" when it meets them (worker.ts reachableFromPython).
    expect(baseline.reachable).toBeDefined();
    expect(baseline.reachable).not.toMatch(/</);
    expect(baseline.reachable).toMatch(/\bFunction\b/);
  }, 60_000);

  it(`after each of ${HOSTILE_PROGRAMS.length} hostile programs, the next run sees a fresh interpreter`, async () => {
    expect(HOSTILE_PROGRAMS.length).toBeGreaterThanOrEqual(100);
    const problems: string[] = [];
    let inPlace = 0;
    for (const program of HOSTILE_PROGRAMS) {
      await proc.whenReady();
      await proc.run(program.code, {}, { ...limits, ...(program.timeoutMs ? { timeoutMs: program.timeoutMs } : {}) });
      await proc.whenReady();
      const why = proc.lastReplaced;
      if (program.reset === "in place" && why !== "") problems.push(`${program.name}: expected a reset in place, the worker was replaced (${why})`);
      if (program.reset === "replaced" && why === "") problems.push(`${program.name}: expected a new worker, it was reset in place`);
      if (why === "") inPlace += 1;
      const { baseline, now } = await proc.fingerprint();
      for (const section of Object.keys({ ...baseline, ...now })) {
        if (baseline[section] !== now[section]) problems.push(`${program.name}: ${section} differs (${String(now[section]).slice(0, 600)})`);
      }
    }
    expect(problems).toEqual([]);
    expect(inPlace).toBeGreaterThanOrEqual(70);
  }, 600_000);
});
