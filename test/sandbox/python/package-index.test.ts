/**
 * Packages by name, on the host: names resolved in the lock with their dependencies in order,
 * files fetched once from a folder or an HTTP index on 127.0.0.1, sha256 checked against the
 * lock, kept in the package cache; each failure its own error naming the package.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidOptionError, PythonPackageError } from "../../../src/errors.js";
import { createSandbox } from "../../../src/sandbox/sandbox.js";
import { resolvePyodide } from "../../../src/sandbox/python/host/deno-paths.js";
import { defaultPackageIndex, parsePackageIndex, preparePackages } from "../../../src/sandbox/python/host/package-fetch.js";
import { installedPyodideLock, parseLock, resolvePackages, UnresolvedPackage } from "../../../src/sandbox/python/host/package-lock.js";
import { fixtureLock, serveFolder, writePackageIndex } from "../../../bench/fixtures/python-index.js";

const root = mkdtempSync(join(tmpdir(), "cs-index-"));
const index = join(root, "index");
writePackageIndex(index);
const { pyodideDir, pyodideVersion } = resolvePyodide();
let http: Awaited<ReturnType<typeof serveFolder>>;

beforeAll(async () => {
  http = await serveFolder(index);
});
afterAll(async () => {
  await http?.close();
  rmSync(root, { recursive: true, force: true });
});

let caches = 0;
const freshCache = () => join(root, `cache-${caches++}`);
const prepare = (names: string[], packageIndex: string, cacheDir = freshCache()) =>
  preparePackages({ names, index: parsePackageIndex(packageIndex), pyodideDir, pyodideVersion, cacheDir });

async function failure(promise: Promise<unknown>): Promise<PythonPackageError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PythonPackageError);
  return error as PythonPackageError;
}

describe("the lock", () => {
  it("resolves names with their dependencies first, each once, names compared as PEP 503 does", () => {
    const lock = parseLock(fixtureLock(), "fixture");
    const order = resolvePackages(lock, ["CS_Native", "cs-six"]);
    expect(order).not.toBeInstanceOf(UnresolvedPackage);
    expect((order as Array<{ name: string }>).map((e) => e.name)).toEqual(["cs-six", "cs-dateutil", "cs-native"]);
  });

  it("resolves Pyodide's own data stack from the installed lock", () => {
    const lock = installedPyodideLock(pyodideDir, pyodideVersion);
    const order = resolvePackages(lock, ["matplotlib", "pandas"]) as Array<{ name: string }>;
    const names = order.map((e) => e.name);
    expect(names).toContain("numpy");
    expect(names.indexOf("numpy")).toBeLessThan(names.indexOf("matplotlib"));
    expect(names.indexOf("six")).toBeLessThan(names.indexOf("python-dateutil"));
    expect(names.at(-1)).toBe("pandas");
  });

  it("drops entries whose file name is a path or a URL", () => {
    const lock = parseLock(
      JSON.stringify({ packages: { evil: { name: "evil", version: "1", file_name: "../../etc/passwd.whl", sha256: "a".repeat(64), depends: [], imports: [] } } }),
      "hostile",
    );
    expect(lock.packages.size).toBe(0);
  });

  it("is Pyodide's CDN for the installed version by default", () => {
    expect(defaultPackageIndex(pyodideVersion)).toBe(`https://cdn.jsdelivr.net/pyodide/v${pyodideVersion}/full/`);
  });
});

describe("createSandbox's python.packages", () => {
  it("refuses a name not in the installed lock at creation, naming it and the nearest one", () => {
    expect(() => createSandbox({ python: { packages: ["nump"] } })).toThrow(InvalidOptionError);
    expect(() => createSandbox({ python: { packages: ["numpy", "nump"] } })).toThrow(/python\.packages\[1\].*"nump".*did you mean "numpy"/);
  });

  it("refuses a name not in a local index's own lock", () => {
    expect(() => createSandbox({ python: { packages: ["numpy"], packageIndex: index } })).toThrow(/python\.packages\[0\].*has no package of this name/);
  });

  it("refuses a package index that is neither a URL nor a folder", () => {
    expect(() => createSandbox({ python: { packages: ["cs-six"], packageIndex: "ftp://example.com/x" } })).toThrow(/python\.packageIndex/);
  });
});

describe("fetching from a folder", () => {
  it("returns the set in load order, unpacks pure wheels and keeps native ones as cached files", async () => {
    const set = await prepare(["cs-native"], index);
    expect(set.distributions).toEqual(["cs-six==1.0", "cs-dateutil==2.0", "cs-native==0.1"]);
    expect(Object.keys(set.files).sort()).toContain("cs_dateutil/__init__.py");
    expect(set.native?.map((n) => n.name)).toEqual(["cs-native"]);
    expect(readFileSync(set.native![0]!.path)).toEqual(readFileSync(join(index, "cs_native-0.1-cp314-cp314-pyemscripten_2026_0_wasm32.whl")));
    expect(set.topLevel).toEqual(["cs_dateutil", "cs_native", "cs_six"]);
    expect(set.lockImports).toMatchObject({ cs_six: "cs-six" });
  });

  it("reuses the cache: a second preparation does not read the index", async () => {
    const copy = join(root, "copy");
    writePackageIndex(copy);
    const cacheDir = freshCache();
    const first = await prepare(["cs-dateutil"], copy, cacheDir);
    unlinkSync(join(copy, "cs_six-1.0-py3-none-any.whl"));
    unlinkSync(join(copy, "cs_dateutil-2.0-py3-none-any.whl"));
    const second = await prepare(["cs-dateutil"], copy, cacheDir);
    expect(second.hash).toBe(first.hash);
    expect(second.files).toEqual(first.files);
  });

  it("refuses a tampered file, naming the package and both hashes", async () => {
    const tampered = join(root, "tampered");
    writePackageIndex(tampered);
    const file = join(tampered, "cs_six-1.0-py3-none-any.whl");
    const bytes = readFileSync(file);
    bytes[bytes.length - 30] ^= 1;
    writeFileSync(file, bytes);
    const error = await failure(prepare(["cs-dateutil"], tampered));
    expect(error.problem).toBe("sha256_mismatch");
    expect(error.packageName).toBe("cs-six");
    expect(error.message).toMatch(/package "cs-six": .*has sha256 [0-9a-f]{64}, but the lock says [0-9a-f]{64}/);
  });

  it("says which file is missing from the folder", async () => {
    const partial = join(root, "partial");
    writePackageIndex(partial);
    unlinkSync(join(partial, "cs_dateutil-2.0-py3-none-any.whl"));
    const error = await failure(prepare(["cs-native"], partial));
    expect(error.problem).toBe("missing_file");
    expect(error.packageName).toBe("cs-dateutil");
    expect(error.message).toContain("cs_dateutil-2.0-py3-none-any.whl is not in the package folder");
  });

  it("uses the installed Pyodide's lock for a folder without one", async () => {
    const bare = join(root, "bare");
    writePackageIndex(bare);
    unlinkSync(join(bare, "pyodide-lock.json"));
    // six is in Pyodide's lock, but its file (Pyodide's repack) is not in this folder.
    const error = await failure(prepare(["six"], bare));
    expect(error.problem).toBe("missing_file");
    expect(error.message).toContain("six-1.17.0-py2.py3-none-any.whl");
  });
});

describe("fetching from an HTTP index on 127.0.0.1", () => {
  it("downloads each file once; a second preparation with the same cache downloads none", async () => {
    const cacheDir = freshCache();
    http.requests.clear();
    const first = await prepare(["cs-native"], http.url, cacheDir);
    expect(first.distributions).toEqual(["cs-six==1.0", "cs-dateutil==2.0", "cs-native==0.1"]);
    const wheels = () => [...http.requests].filter(([path]) => path.endsWith(".whl"));
    expect(wheels().map(([, count]) => count)).toEqual([1, 1, 1]);
    await prepare(["cs-native"], http.url, cacheDir);
    expect(wheels().map(([, count]) => count)).toEqual([1, 1, 1]);
    // The index's own lock is asked for (it names the files and their sha256).
    expect(http.requests.get("pyodide-lock.json")).toBe(2);
  });

  it("refuses a name not in the index's lock, naming it", async () => {
    const error = await failure(prepare(["cs-sixx"], http.url));
    expect(error.problem).toBe("unknown_name");
    expect(error.packageName).toBe("cs-sixx");
    expect(error.message).toContain('did you mean "cs-six"');
  });

  it("says which file the index does not have (404)", async () => {
    const holes = join(root, "holes");
    writePackageIndex(holes);
    unlinkSync(join(holes, "cs_six-1.0-py3-none-any.whl"));
    const server = await serveFolder(holes);
    try {
      const error = await failure(prepare(["cs-dateutil"], server.url));
      expect(error.problem).toBe("missing_file");
      expect(error.packageName).toBe("cs-six");
      expect(error.message).toContain("answered 404");
    } finally {
      await server.close();
    }
  });

  it("refuses a tampered download", async () => {
    const bad = join(root, "bad-http");
    writePackageIndex(bad);
    copyFileSync(join(bad, "cs_six-1.0-py3-none-any.whl"), join(bad, "cs_dateutil-2.0-py3-none-any.whl"));
    const server = await serveFolder(bad);
    try {
      const error = await failure(prepare(["cs-dateutil"], server.url));
      expect(error.problem).toBe("sha256_mismatch");
      expect(error.packageName).toBe("cs-dateutil");
    } finally {
      await server.close();
    }
  });

  it("says the index cannot be reached, naming the package asked for", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, "127.0.0.1", () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const error = await failure(prepare(["cs-six"], `http://127.0.0.1:${port}/`));
    expect(error.problem).toBe("index_unreachable");
    expect(error.packageName).toBe("cs-six");
    expect(error.message).toMatch(/cannot be reached at http:\/\/127\.0\.0\.1:\d+\/pyodide-lock\.json/);
  });

  it("bounds a file's size and a download's time", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    // Accepts and never answers.
    const sockets: Array<import("node:net").Socket> = [];
    server.on("connection", (socket) => sockets.push(socket));
    try {
      const slow = await failure(
        preparePackages({ names: ["cs-six"], index: parsePackageIndex(`http://127.0.0.1:${port}/`), pyodideDir, pyodideVersion, cacheDir: freshCache(), timeoutMs: 300 }),
      );
      expect(slow.problem).toBe("index_unreachable");
      expect(slow.message).toContain("no answer within 300 ms");
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    const big = await failure(
      preparePackages({ names: ["cs-dateutil"], index: parsePackageIndex(http.url), pyodideDir, pyodideVersion, cacheDir: freshCache(), maxFileBytes: 100 }),
    );
    expect(big.problem).toBe("missing_file");
    expect(big.message).toMatch(/more than the 100-byte bound|larger than the 100-byte bound/);
  });
});
