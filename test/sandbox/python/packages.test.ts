/**
 * Packages by name in the interpreter: a set from the local index fixture is importable (pure
 * wheels from the snapshot, a package tagged for Pyodide's platform through Pyodide's own
 * loader from the package cache), with one snapshot per set; an unconfigured package of the
 * lock is refused with the option that adds it; the Deno process still has no network.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../../src/sandbox/sandbox.js";
import { resolvePythonPaths } from "../../../src/sandbox/python/host/deno-paths.js";
import { denoArgs } from "../../../src/sandbox/python/host/deno-process.js";
import { parsePackageIndex, preparePackages } from "../../../src/sandbox/python/host/package-fetch.js";
import { snapshotCacheDir } from "../../../src/sandbox/python/host/deno-paths.js";
import { snapshotFileFor } from "../../../src/sandbox/python/host/wheels.js";
import type { SandboxWithStats } from "../../../src/sandbox/sandbox.js";
import { serveFolder, writePackageIndex } from "../../../bench/fixtures/python-index.js";

const root = mkdtempSync(join(tmpdir(), "cs-packages-"));
const index = join(root, "index");
writePackageIndex(index);
let http: Awaited<ReturnType<typeof serveFolder>>;
let pure: SandboxWithStats;
let native: SandboxWithStats;

beforeAll(async () => {
  http = await serveFolder(index);
  pure = createSandbox({ poolSize: 1, python: { packages: ["cs-dateutil"], packageIndex: index } });
  native = createSandbox({ poolSize: 1, python: { packages: ["cs-native"], packageIndex: http.url } });
  await Promise.all([pure.warm(["python"]), native.warm(["python"])]);
}, 600_000);

afterAll(async () => {
  await Promise.all([pure?.dispose(), native?.dispose()]);
  await http?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("python.packages in the interpreter", { timeout: 120_000 }, () => {
  it("imports a configured package and its dependency, both imported before the first run", async () => {
    const r = await pure.run("import sys\nbefore = sorted(m for m in ('cs_six', 'cs_dateutil') if m in sys.modules)\nimport cs_dateutil\n[before, str(cs_dateutil.parse('2026-12-03')), cs_dateutil.SIX]", { language: "python" });
    expect(r.status).toBe("success");
    expect(r.result).toEqual([["cs_dateutil", "cs_six"], "2026-12-03", "1.0"]);
  });

  it("loads a package with Pyodide's platform tag through Pyodide's loader, after its dependencies", async () => {
    const r = await native.run("import sys\nbefore = 'cs_native' in sys.modules\nimport cs_native\nfrom importlib.metadata import version\n[before, cs_native.year('2026-12-03'), version('cs_native'), version('cs_six')]", { language: "python" });
    expect(r.status).toBe("success");
    expect(r.result).toEqual([true, 2026, "0.1", "1.0"]);
    // Runs after the first are reset in place and still see the package.
    const again = await native.run("import cs_native\ncs_native.year('1999-01-01')", { language: "python" });
    expect(again.result).toBe(1999);
  });

  it("refuses an unconfigured package of Pyodide's lock, naming the option that adds it", async () => {
    const r = await pure.run("import numpy", { language: "python" });
    expect(r.status).toBe("forbidden");
    expect(r.error?.message).toContain('python.packages: ["numpy"]');
    const dateutil = await pure.run("import dateutil.parser", { language: "python" });
    expect(dateutil.error?.message).toContain('python.packages: ["python-dateutil"]');
    // A name in no lock keeps the plain message.
    const other = await pure.run("import not_a_package_anywhere", { language: "python" });
    expect(other.status).toBe("forbidden");
    expect(other.error?.message).toContain("installed packages: cs_dateutil, cs_six");
    expect(other.error?.message).not.toContain("python.packages");
  });

  it("says the same without any packages configured", async () => {
    const plain = createSandbox({ poolSize: 1 });
    try {
      const r = await plain.run("import pandas as pd", { language: "python" });
      expect(r.status).toBe("forbidden");
      expect(r.error?.message).toContain('python.packages: ["pandas"]');
    } finally {
      await plain.dispose();
    }
  });

  it("keeps one snapshot per package set", async () => {
    const paths = resolvePythonPaths();
    const set = await preparePackages({ names: ["cs-dateutil"], index: parsePackageIndex(index), pyodideDir: paths.pyodideDir, pyodideVersion: paths.pyodideVersion, cacheDir: snapshotCacheDir(paths.pyodideDir) });
    const file = snapshotFileFor(paths.snapshotFile, set);
    expect(file).not.toBe(paths.snapshotFile);
    expect(existsSync(file)).toBe(true);
    const other = await preparePackages({ names: ["cs-six"], index: parsePackageIndex(index), pyodideDir: paths.pyodideDir, pyodideVersion: paths.pyodideVersion, cacheDir: snapshotCacheDir(paths.pyodideDir) });
    expect(snapshotFileFor(paths.snapshotFile, other)).not.toBe(file);
  });

  it("gives the Deno process read access to the cached package files only, and no network", async () => {
    const paths = resolvePythonPaths();
    const set = await preparePackages({ names: ["cs-native"], index: parsePackageIndex(http.url), pyodideDir: paths.pyodideDir, pyodideVersion: paths.pyodideVersion, cacheDir: snapshotCacheDir(paths.pyodideDir) });
    const args = denoArgs({ ...paths, packages: set }, false);
    const read = args.find((a) => a.startsWith("--allow-read="))!.slice("--allow-read=".length).split(",");
    expect(read).toContain(set.native![0]!.path);
    expect(read.some((p) => p.startsWith(index))).toBe(false);
    expect(args).toContain("--deny-net");
    expect(args.some((a) => a.startsWith("--allow-net"))).toBe(false);
    // From the guest: the index that served the packages cannot be reached.
    const r = await native.run(`import urllib.request\ntry:\n    urllib.request.urlopen(${JSON.stringify(http.url + "pyodide-lock.json")}, timeout=2).read()\n    got = 'fetched'\nexcept BaseException as e:\n    got = type(e).__name__\ngot`, { language: "python" });
    expect(r.result === "fetched").toBe(false);
  });

  it("keeps memory limits and session images with the packages loaded", async () => {
    const bomb = await native.run("x = []\nwhile True:\n    x.append(bytearray(4 * 1024 * 1024))", { language: "python", timeoutMs: 30_000, memoryLimitBytes: 32 * 1024 * 1024 });
    expect(bomb.status).toBe("memory_limit");
    const after = await native.run("import cs_native\ncs_native.year('2001-02-03')", { language: "python" });
    expect(after.result).toBe(2001);
    const live = await native.createSession({ language: "python", snapshottable: true });
    const restored = await native.createSession({ language: "python", snapshottable: true });
    try {
      expect((await live.run("import cs_native\nv = cs_native.year('2020-05-05')")).status).toBe("success");
      const taken = await live.snapshot!();
      if (typeof taken === "string") throw new Error(`no image: ${taken}`);
      expect(await restored.restoreSnapshot!(taken)).toBeUndefined();
      const r = await restored.run("import sys\n[v, 'cs_native' in sys.modules, cs_native.year('1990-01-01')]");
      expect(r.result).toEqual([2020, true, 1990]);
    } finally {
      await Promise.all([live.dispose(), restored.dispose()]);
    }
  });
});
