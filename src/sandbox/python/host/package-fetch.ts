/**
 * Makes the packages of `python.packages` ready on the host: resolves the names in the lock,
 * gets each file once from the package index (Node's `fetch` for http(s), a read for a folder),
 * checks its sha256 against the lock, and keeps it in the package cache beside the interpreter
 * snapshot. The Deno process never fetches: it has no network permission and reads only the
 * files named here. Pure-Python wheels are unpacked here (wheels.ts) and go into the snapshot;
 * packages with native code are loaded in the interpreter by Pyodide's own loader.
 */
import { createRequire } from "node:module";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { isAbsolute, join, resolve as resolvePath } from "node:path";
import { fileURLToPath } from "node:url";
import { InvalidOptionError, PythonPackageError } from "../../../errors.js";
import { installedPyodideLock, isNativeEntry, lockImports, MAX_LOCK_BYTES, parseLock, resolvePackages, UnresolvedPackage, type LockEntry, type PackageLock } from "./package-lock.js";
import { unpackWheels, type PackageSet } from "./wheels.js";

// node:crypto loads with the first package set: the sandbox front imports this module to check
// names at creation, and loading it costs milliseconds of every root import (wheels.ts does the same).
const require = createRequire(import.meta.url);
const createHash = (algorithm: string) => (require("node:crypto") as typeof import("node:crypto")).createHash(algorithm);

/** Time one file (or the lock) may take to download. */
export const PACKAGE_DOWNLOAD_TIMEOUT_MS = 120_000;
/** Largest package file accepted from an index (Pyodide 314's largest wheels are tens of MB). */
export const MAX_PACKAGE_FILE_BYTES = 256 * 1024 * 1024;

/**
 * The package index Pyodide itself uses for its version: its CDN's `full/` folder (the URL
 * pyodide.mjs builds as `cdn.jsdelivr.net/pyodide/v${version}/full/`).
 *
 * @example
 * defaultPackageIndex("314.0.7"); // "https://cdn.jsdelivr.net/pyodide/v314.0.7/full/"
 */
export function defaultPackageIndex(pyodideVersion: string): string {
  return `https://cdn.jsdelivr.net/pyodide/v${pyodideVersion}/full/`;
}

/** Where package files come from: a URL (ending in `/`) or an absolute folder. */
export type PackageIndex = { kind: "url"; url: string } | { kind: "folder"; dir: string };

/**
 * Reads `python.packageIndex`: an http(s) URL, a `file:` URL or a folder path.
 *
 * @throws InvalidOptionError naming `python.packageIndex`.
 * @example
 * parsePackageIndex("https://mirror.example/pyodide/"); // { kind: "url", url: "https://mirror.example/pyodide/" }
 */
export function parsePackageIndex(value: string): PackageIndex {
  if (/^https?:\/\//i.test(value)) {
    try {
      const url = new URL(value);
      return { kind: "url", url: url.href.endsWith("/") ? url.href : `${url.href}/` };
    } catch {
      // Falls through to the refusal.
    }
  } else if (value.startsWith("file:")) {
    return { kind: "folder", dir: fileURLToPath(value) };
  } else if (value !== "" && !value.includes("\0") && !/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    return { kind: "folder", dir: isAbsolute(value) ? value : resolvePath(value) };
  }
  throw new InvalidOptionError("python.packageIndex", value, "an http(s) URL of a Pyodide package index, or a folder holding a copy of one (its wheels and pyodide-lock.json)");
}

/** What `preparePackages` needs. */
export interface PreparePackagesOptions {
  names: readonly string[];
  index: PackageIndex | undefined;
  pyodideDir: string;
  pyodideVersion: string;
  /** The snapshot cache folder; files go into its `packages/` folder. */
  cacheDir: string;
  /** Tests: a fetch to count downloads with. */
  fetch?: typeof fetch;
  timeoutMs?: number;
  maxFileBytes?: number;
}

/**
 * The lock a package set is resolved in: a local index's own `pyodide-lock.json` when it has
 * one, else the installed Pyodide's. Synchronous, so `createSandbox` refuses unknown names at
 * once; an http(s) index other than the default is asked for its lock by `preparePackages`.
 *
 * @example
 * localLock(undefined, pyodideDir, "314.0.7").source; // "Pyodide 314.0.7's lock"
 */
export function localLock(index: PackageIndex | undefined, pyodideDir: string, pyodideVersion: string): PackageLock | undefined {
  if (index?.kind === "folder") {
    const file = join(index.dir, "pyodide-lock.json");
    if (existsSync(file)) return readLockFile(file);
    return installedPyodideLock(pyodideDir, pyodideVersion);
  }
  if (index === undefined || index.url === defaultPackageIndex(pyodideVersion)) return installedPyodideLock(pyodideDir, pyodideVersion);
  return undefined;
}

/**
 * Checks names against a lock at creation.
 *
 * @throws InvalidOptionError naming `python.packages[i]` and the lock.
 */
export function checkPackageNames(lock: PackageLock, names: readonly string[]): void {
  names.forEach((name, i) => {
    const resolved = resolvePackages(lock, [name]);
    if (resolved instanceof UnresolvedPackage) {
      throw new InvalidOptionError(`python.packages[${i}]`, name, `the name of a package in ${lock.source}; ${resolved.reason}`);
    }
  });
}

/**
 * Resolves, fetches, checks and caches the set; returns it as a package set for the engine.
 *
 * @throws PythonPackageError naming the package: not in the lock, missing from the index, a
 *   sha256 mismatch, or an index that cannot be reached.
 * @example
 * const set = await preparePackages({ names: ["python-dateutil"], index, pyodideDir, pyodideVersion, cacheDir });
 */
export async function preparePackages(options: PreparePackagesOptions): Promise<PackageSet> {
  const fetchImpl = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? PACKAGE_DOWNLOAD_TIMEOUT_MS;
  const maxFileBytes = options.maxFileBytes ?? MAX_PACKAGE_FILE_BYTES;
  const index = options.index ?? { kind: "url", url: defaultPackageIndex(options.pyodideVersion) };
  const first = options.names[0] ?? "";
  const lock =
    localLock(options.index, options.pyodideDir, options.pyodideVersion) ??
    (await remoteLock(index as { kind: "url"; url: string }, first, fetchImpl, timeoutMs, options.pyodideDir, options.pyodideVersion));
  const resolved = resolvePackages(lock, options.names);
  if (resolved instanceof UnresolvedPackage) {
    throw new PythonPackageError(resolved.name, "unknown_name", `${resolved.reason}; pass names of that lock (python.packages)`);
  }
  const pure: Array<{ entry: LockEntry; bytes: Uint8Array }> = [];
  const native: Array<{ name: string; path: string }> = [];
  const setHash = createHash("sha256");
  for (const entry of resolved) {
    const { path, bytes } = await obtain(entry, index, options.cacheDir, fetchImpl, timeoutMs, maxFileBytes);
    setHash.update(`${entry.name}\0${entry.sha256}\n`);
    if (isNativeEntry(entry)) native.push({ name: entry.name, path });
    else pure.push({ entry, bytes });
  }
  const set = unpackWheels(pure.map(({ entry, bytes }) => ({ option: "python.packages", label: entry.name, fileName: entry.file_name, bytes })));
  const topLevel = new Set(set.topLevel);
  for (const entry of resolved) for (const name of entry.imports) if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) topLevel.add(name);
  return {
    ...set,
    hash: setHash.digest("hex"),
    topLevel: [...topLevel].sort(),
    distributions: resolved.map((e) => `${e.name}==${e.version}`),
    ...(native.length > 0 ? { native } : {}),
    // The refusal of an unconfigured package knows the installed Pyodide's packages and the index's.
    lockImports: { ...lockImports(installedPyodideLock(options.pyodideDir, options.pyodideVersion)), ...lockImports(lock) },
  };
}

/**
 * Joins a package set made from the lock with one made from the caller's wheels: one set, one
 * snapshot; a name both hold is refused.
 *
 * @example
 * const both = mergePackageSets(fromLock, fromWheels);
 */
export function mergePackageSets(a: PackageSet, b: PackageSet | undefined): PackageSet {
  if (!b) return a;
  for (const path of Object.keys(b.files)) {
    if (a.files[path] !== undefined) throw new InvalidOptionError("python.wheels", path, `wheels that do not overlap python.packages (${path} is in both)`);
  }
  return {
    ...a,
    hash: createHash("sha256").update(`${a.hash}\n${b.hash}`).digest("hex"),
    files: { ...a.files, ...b.files },
    topLevel: [...new Set([...a.topLevel, ...b.topLevel])].sort(),
    distributions: [...a.distributions, ...b.distributions],
  };
}

function readLockFile(file: string): PackageLock {
  try {
    return parseLock(readFileSync(file, "utf8"), file);
  } catch (error) {
    throw new InvalidOptionError("python.packageIndex", file, `a folder whose pyodide-lock.json is a Pyodide lock (${(error as Error).message})`);
  }
}

async function remoteLock(index: { url: string }, first: string, fetchImpl: typeof fetch, timeoutMs: number, pyodideDir: string, pyodideVersion: string): Promise<PackageLock> {
  const url = `${index.url}pyodide-lock.json`;
  const got = await download(url, first, fetchImpl, timeoutMs, MAX_LOCK_BYTES);
  // An index without a lock of its own serves the installed Pyodide's packages.
  if (got === "missing") return installedPyodideLock(pyodideDir, pyodideVersion);
  try {
    return parseLock(new TextDecoder().decode(got), url);
  } catch (error) {
    throw new PythonPackageError(first, "index_unreachable", `the index's lock ${url} is not a Pyodide lock (${(error as Error).message})`);
  }
}

/** The file of one entry: from the cache when its sha256 still matches, else from the index. */
async function obtain(entry: LockEntry, index: PackageIndex, cacheDir: string, fetchImpl: typeof fetch, timeoutMs: number, maxFileBytes: number): Promise<{ path: string; bytes: Uint8Array }> {
  const folder = join(cacheDir, "packages", entry.sha256);
  const path = join(folder, entry.file_name);
  if (existsSync(path)) {
    const cached = readFileSync(path);
    if (sha256(cached) === entry.sha256) return { path, bytes: cached };
    // A damaged cache entry is fetched again.
    rmSync(path, { force: true });
  }
  let bytes: Uint8Array;
  let where: string;
  if (index.kind === "folder") {
    where = join(index.dir, entry.file_name);
    try {
      bytes = readFileSync(where);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") throw new PythonPackageError(entry.name, "missing_file", `${entry.file_name} is not in the package folder ${index.dir}; copy the Pyodide distribution's files there (docs/python.md)`);
      throw new PythonPackageError(entry.name, "index_unreachable", `${where} cannot be read (${(error as Error).message})`, { cause: error });
    }
    if (bytes.byteLength > maxFileBytes) throw new PythonPackageError(entry.name, "missing_file", `${where} is larger than ${maxFileBytes} bytes`);
  } else {
    where = `${index.url}${entry.file_name}`;
    const got = await download(where, entry.name, fetchImpl, timeoutMs, maxFileBytes);
    if (got === "missing") throw new PythonPackageError(entry.name, "missing_file", `the index has no ${entry.file_name} (${where} answered 404)`);
    bytes = got;
  }
  const actual = sha256(bytes);
  if (actual !== entry.sha256) {
    throw new PythonPackageError(entry.name, "sha256_mismatch", `${where} has sha256 ${actual}, but the lock says ${entry.sha256}; the file was not used (a damaged or altered copy, or a lock of another Pyodide version)`);
  }
  try {
    mkdirSync(folder, { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, bytes);
    renameSync(temporary, path);
  } catch (error) {
    // The interpreter reads native packages from the cache; pure ones travel as bytes.
    if (isNativeEntry(entry)) throw new PythonPackageError(entry.name, "index_unreachable", `the package cache ${folder} is not writable (${(error as Error).message})`, { cause: error });
  }
  return { path, bytes };
}

/** GET with a time bound and a size bound; "missing" for 404/410. */
async function download(url: string, name: string, fetchImpl: typeof fetch, timeoutMs: number, maxBytes: number): Promise<Uint8Array | "missing"> {
  let response: Response;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    response = await fetchImpl(url, { signal, redirect: "follow" });
  } catch (error) {
    const why = signal.aborted ? `no answer within ${timeoutMs} ms` : (error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message;
    throw new PythonPackageError(name, "index_unreachable", `the package index cannot be reached at ${url} (${why}); check python.packageIndex, or point it at a local copy of the Pyodide distribution`, { cause: error });
  }
  if (response.status === 404 || response.status === 410) {
    await response.body?.cancel().catch(() => undefined);
    return "missing";
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new PythonPackageError(name, "index_unreachable", `the package index answered ${response.status} for ${url}`);
  }
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new PythonPackageError(name, "missing_file", `${url} is ${declared} bytes, more than the ${maxBytes}-byte bound`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      total += chunk.byteLength;
      if (total > maxBytes) {
        await response.body?.cancel().catch(() => undefined);
        throw new PythonPackageError(name, "missing_file", `${url} is larger than the ${maxBytes}-byte bound`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof PythonPackageError) throw error;
    throw new PythonPackageError(name, "index_unreachable", `the download of ${url} broke off (${signal.aborted ? `no end within ${timeoutMs} ms` : (error as Error).message})`, { cause: error });
  }
  return Buffer.concat(chunks);
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
