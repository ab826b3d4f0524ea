/**
 * Pyodide's package lock (`pyodide-lock.json`): what packages exist for the installed Pyodide,
 * their files, sha256 and dependencies. Names are resolved here, with their dependencies in load
 * order; nothing is fetched (package-fetch.ts does that).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** One package of the lock (the fields we use). */
export interface LockEntry {
  name: string;
  version: string;
  /** A file name relative to the package index (checked: no folder, no URL). */
  file_name: string;
  /** Hex SHA-256 of that file. */
  sha256: string;
  depends: string[];
  /** Top-level modules the package provides. */
  imports: string[];
  /** `package` or `shared_library`. */
  package_type?: string;
}

/** A parsed lock: entries by normalised name. */
export interface PackageLock {
  packages: Map<string, LockEntry>;
  /** Where the lock came from, for messages (`Pyodide 314.0.7's lock`, a path, a URL). */
  source: string;
}

/** Largest lock file read (Pyodide 314's is ~200 KB). */
export const MAX_LOCK_BYTES = 16 * 1024 * 1024;

const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]*\.(whl|zip|tar|tar\.gz|tgz)$/;
const SHA256 = /^[0-9a-f]{64}$/;

/**
 * A package name as PEP 503 compares them: `Python_Dateutil` and `python-dateutil` are one.
 *
 * @example
 * normalizePackageName("Python_Dateutil"); // "python-dateutil"
 */
export function normalizePackageName(name: string): string {
  return name.trim().toLowerCase().replace(/[-_.]+/g, "-");
}

/**
 * Parses a lock's text. Entries whose file name or sha256 are not well-formed are dropped (a
 * lock from an index is not trusted to name paths: a file name is one plain name).
 *
 * @throws Error when the text is not a lock at all.
 * @example
 * const lock = parseLock(readFileSync("pyodide-lock.json", "utf8"), "pyodide-lock.json");
 */
export function parseLock(text: string, source: string): PackageLock {
  const raw = JSON.parse(text) as { packages?: Record<string, Partial<LockEntry>> };
  if (raw === null || typeof raw !== "object" || raw.packages === null || typeof raw.packages !== "object") {
    throw new Error(`${source} is not a Pyodide lock (no "packages" object)`);
  }
  const packages = new Map<string, LockEntry>();
  for (const [key, entry] of Object.entries(raw.packages)) {
    if (entry === null || typeof entry !== "object") continue;
    const { file_name: fileName, sha256 } = entry;
    if (typeof fileName !== "string" || !FILE_NAME.test(fileName) || typeof sha256 !== "string" || !SHA256.test(sha256)) continue;
    const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []);
    packages.set(normalizePackageName(key), {
      name: typeof entry.name === "string" ? entry.name : key,
      version: typeof entry.version === "string" ? entry.version : "",
      file_name: fileName,
      sha256,
      depends: strings(entry.depends),
      imports: strings(entry.imports),
      ...(typeof entry.package_type === "string" ? { package_type: entry.package_type } : {}),
    });
  }
  return { packages, source };
}

let installedLock: PackageLock | undefined;

/**
 * The lock shipped with the installed Pyodide (`node_modules/pyodide/pyodide-lock.json`), read once.
 *
 * @example
 * installedPyodideLock("/app/node_modules/pyodide/", "314.0.7").packages.get("numpy")?.version; // "2.4.6"
 */
export function installedPyodideLock(pyodideDir: string, pyodideVersion: string): PackageLock {
  installedLock ??= parseLock(readFileSync(join(pyodideDir, "pyodide-lock.json"), "utf8"), `Pyodide ${pyodideVersion}'s lock`);
  return installedLock;
}

/** A name the lock cannot resolve: which name, and why. */
export class UnresolvedPackage {
  constructor(
    readonly name: string,
    readonly reason: string,
  ) {}
}

/**
 * The packages to load for `names`, each after its dependencies (depth first, in the lock's
 * order of `depends`), each once.
 *
 * @returns the entries in load order, or the first name that cannot be resolved.
 * @example
 * resolvePackages(lock, ["python-dateutil"]).map((e) => e.name); // ["six", "python-dateutil"]
 */
export function resolvePackages(lock: PackageLock, names: readonly string[]): LockEntry[] | UnresolvedPackage {
  const order: LockEntry[] = [];
  const done = new Set<string>();
  const visiting = new Set<string>();
  const visit = (name: string, neededBy: string | undefined): UnresolvedPackage | undefined => {
    const key = normalizePackageName(name);
    if (done.has(key) || visiting.has(key)) return undefined;
    const entry = lock.packages.get(key);
    if (!entry) {
      if (neededBy !== undefined) return new UnresolvedPackage(neededBy, `${lock.source} names "${name}" among its dependencies but has no entry for it`);
      const near = closestName(lock, key);
      return new UnresolvedPackage(name, `${lock.source} has no package of this name${near ? ` (did you mean "${near}"?)` : ""}`);
    }
    visiting.add(key);
    for (const dependency of entry.depends) {
      const failed = visit(dependency, entry.name);
      if (failed) return failed;
    }
    visiting.delete(key);
    done.add(key);
    order.push(entry);
    return undefined;
  };
  for (const name of names) {
    const failed = visit(name, undefined);
    if (failed) return failed;
  }
  return order;
}

/**
 * Import name → package name for every package of the lock (`dateutil` → `python-dateutil`),
 * for the refusal of an import whose package is not configured.
 *
 * @example
 * lockImports(lock).numpy; // "numpy"
 */
export function lockImports(lock: PackageLock): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of lock.packages.values()) {
    if (entry.package_type === "shared_library") continue;
    for (const name of entry.imports) if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) out[name] ??= entry.name;
  }
  return out;
}

/** True when a lock entry's file holds native code (a shared library, or a wheel not tagged for every platform). */
export function isNativeEntry(entry: LockEntry): boolean {
  if (entry.package_type === "shared_library" || !entry.file_name.endsWith(".whl")) return true;
  return !/-none-any\.whl$/.test(entry.file_name);
}

function closestName(lock: PackageLock, key: string): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const [candidate, entry] of lock.packages) {
    if (Math.abs(candidate.length - key.length) > 3) continue;
    const distance = editDistance(candidate, key);
    if (distance <= 2 && (!best || distance < best.distance)) best = { name: entry.name, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
