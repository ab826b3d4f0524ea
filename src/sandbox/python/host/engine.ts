/**
 * The Python engine: real CPython (Pyodide) in Deno processes whose permissions deny files,
 * network, environment, subprocesses and FFI. Nothing starts at import time; the first
 * `run`/`check`/`warm` starts the pool.
 */
import { InvalidOptionError, SandboxDisposedError } from "../../../errors.js";
import type { CheckResult, EngineSessionOptions, ExecutionResult, LanguageEngine, ResolvedRunOptions, SandboxSession } from "../../types.js";
import { resolvePythonPaths, type PythonPaths } from "./deno-paths.js";
import { runLimits } from "./limits.js";
import { PythonPool } from "./pool.js";
import { extrasOfRun } from "./run-extras.js";
import { loadWheels, snapshotFileFor, type PackageSet } from "./wheels.js";
import { checkPackageNames, localLock, mergePackageSets, parsePackageIndex, preparePackages } from "./package-fetch.js";
import { installedPyodideLock, lockImports } from "./package-lock.js";
import { resolvePyodide, snapshotCacheDir } from "./deno-paths.js";
import { createPythonSession } from "./session.js";
import { DenoProcess } from "./deno-process.js";
import { cancelledResult } from "../../cancelled.js";

/** Options of the Python engine. */
export interface PythonEngineOptions {
  /** Deno processes kept with a ready interpreter (each far heavier than a JavaScript thread: `npm run bench -- python`, row "memory per ready interpreter (Deno process RSS)"). Default 1. */
  poolSize?: number;
  /**
   * Paths of pure-Python wheels (`.whl`, platform tag `any`) to install before user code runs,
   * e.g. fetched beforehand with `pip download --no-deps`. Checked and unpacked at creation;
   * installed once into the memory snapshot (whose file name carries a hash of the set).
   */
  wheels?: string[];
  /**
   * Names of packages in Pyodide's lock (`numpy`, `pandas`, `matplotlib`), loaded with their
   * dependencies before user code runs. The host downloads each file once from `packageIndex`,
   * checks its sha256 against the lock and caches it beside the snapshot (package-fetch.ts).
   */
  packages?: string[];
  /** Where package files come from: an http(s) URL or a folder. Default: Pyodide's own CDN for the installed version. */
  packageIndex?: string;
}

/** Default number of ready interpreters: memory matters more than parallelism here. */
export const DEFAULT_PYTHON_POOL_SIZE = 1;

/**
 * Creates the Python engine. Every run gets a fresh interpreter (nothing leaks between runs);
 * `createSession` keeps one interpreter for a sequence of calls.
 *
 * @throws InvalidOptionError for a bad `poolSize`, or a wheel that is not a pure-Python wheel.
 * @example
 * const engine = createPythonEngine();
 * const result = await engine.run("print('hi')\n6 * 7", {
 *   language: "python", timeoutMs: 5000, memoryLimitBytes: 64 << 20, maxOutputBytes: 1 << 20,
 *   globals: {}, hostFunctions: {},
 * });
 * // result.stdout === "hi\n", result.result === 42
 * await engine.dispose();
 */
export function createPythonEngine(options: PythonEngineOptions = {}): LanguageEngine {
  const poolSize = options.poolSize ?? DEFAULT_PYTHON_POOL_SIZE;
  if (!Number.isInteger(poolSize) || poolSize < 1) {
    throw new InvalidOptionError("poolSize", options.poolSize, "a whole number of Python processes, at least 1");
  }
  const wheels = options.wheels !== undefined && options.wheels.length > 0 ? loadWheels(options.wheels) : undefined;
  const names = options.packages ?? [];
  const index = options.packageIndex !== undefined ? parsePackageIndex(options.packageIndex) : undefined;
  if (names.length > 0) {
    const { pyodideDir, pyodideVersion } = resolvePyodide();
    const lock = localLock(index, pyodideDir, pyodideVersion);
    if (lock) checkPackageNames(lock, names);
  }
  let paths: Promise<PythonPaths> | undefined;
  let pool: PythonPool | undefined;
  /** A session process started ahead (`prestartSession`), until a session takes it. */
  let spare: DenoProcess | undefined;
  const sessions = new Set<SandboxSession>();
  let disposed = false;

  const assertAlive = () => {
    if (disposed) throw new SandboxDisposedError("The Python engine");
  };
  const withPackages = async (base: PythonPaths): Promise<PythonPaths> => {
    let packages: PackageSet | undefined = wheels;
    if (names.length > 0) {
      const fromLock = await preparePackages({ names, index, pyodideDir: base.pyodideDir, pyodideVersion: base.pyodideVersion, cacheDir: snapshotCacheDir(base.pyodideDir) });
      packages = mergePackageSets(fromLock, wheels);
    }
    const imports = packages?.lockImports ?? installedLockImports(base);
    return packages ? { ...base, snapshotFile: snapshotFileFor(base.snapshotFile, packages), packages, lockImports: imports } : { ...base, lockImports: imports };
  };
  // A failed preparation (an index that cannot be reached) is not kept: the next use tries again.
  const getPaths = (): Promise<PythonPaths> => {
    if (!paths) {
      const attempt = withPackages(resolvePythonPaths());
      attempt.catch(() => {
        if (paths === attempt) paths = undefined;
      });
      paths = attempt;
    }
    return paths;
  };
  // Concurrent first uses wait for one preparation and share one pool.
  const getPool = async (): Promise<PythonPool> => {
    const resolved = await getPaths();
    assertAlive();
    return (pool ??= new PythonPool(resolved, poolSize));
  };

  return {
    languages: ["python"],

    async run(code: string, resolved: ResolvedRunOptions): Promise<ExecutionResult> {
      assertAlive();
      const extras = extrasOfRun(resolved);
      const p = await getPool();
      const startedAt = performance.now();
      const process = await p.acquire(resolved.signal);
      if (!process) return cancelledResult("python", resolved.signal, false, performance.now() - startedAt);
      try {
        const { interpreterLost: _lost, ...result } = await process.run(code, resolved.globals, runLimits(resolved), resolved.signal, extras);
        // After a memory limit the host replaces the whole process rather than trust the
        // runner's worker kill: measured, a worker terminated mid JS-side bomb (a loop of
        // 8 MB typed arrays reached through the realm) went on growing the idle process.
        if (result.status === "memory_limit") process.dispose();
        return result;
      } finally {
        p.release(process);
      }
    },

    async check(code: string): Promise<CheckResult> {
      assertAlive();
      const p = await getPool();
      const process = (await p.acquire())!;
      try {
        const outcome = await process.check(code);
        if (outcome.status === "syntax_error" || outcome.status === "forbidden") {
          return { ok: false, language: "python", status: outcome.status, error: outcome.error ?? { name: "SyntaxError", message: "invalid code" } };
        }
        return { ok: true, language: "python" };
      } finally {
        p.release(process);
      }
    },

    async warm(): Promise<void> {
      assertAlive();
      await (await getPool()).warm();
    },

    async createSession(sessionOptions: EngineSessionOptions): Promise<SandboxSession> {
      assertAlive();
      const ahead = spare;
      spare = undefined;
      const session = await createPythonSession(await getPaths(), sessionOptions, ahead);
      sessions.add(session);
      return session;
    },

    async prestartSession(): Promise<void> {
      assertAlive();
      if (!spare || !spare.alive) spare = new DenoProcess(await getPaths(), true);
      await spare.whenReady();
      // A session started ahead is most often taken by a restore: it hashes its fresh memory and
      // walks its JavaScript in idle time, so that the restore does not.
      spare.prepareImages(false);
    },

    async dispose(): Promise<void> {
      if (disposed) return;
      disposed = true;
      spare?.dispose();
      spare = undefined;
      await Promise.all([pool?.dispose(), ...[...sessions].map((s) => s.dispose())]);
    },
  };
}

/** Import names of the installed Pyodide's lock (the refusal of an unconfigured package names its option); none when the lock cannot be read. */
function installedLockImports(paths: PythonPaths): Record<string, string> {
  try {
    return lockImports(installedPyodideLock(paths.pyodideDir, paths.pyodideVersion));
  } catch {
    return {};
  }
}
