/**
 * `createSandbox`: a long-lived pool of engines. JavaScript and TypeScript run on a pool of
 * QuickJS worker threads; Python is handed to the Python engine, loaded on first use.
 */
import { availableParallelism } from "node:os";
import { EngineUnavailableError, InvalidOptionError, SandboxDisposedError } from "../errors.js";
import { WorkerPool } from "./js/worker-pool.js";
import { prepareJavaScript } from "./js/prepare.js";
import { JavaScriptSession } from "./js/session.js";
import { runRequest } from "./js/run-request.js";
import { resolveLanguage, resolveLimit, resolveRunOptions, DEFAULT_MEMORY_LIMIT_BYTES } from "./options.js";
import { loadWheels } from "./python/wheels.js";
import type {
  CheckResult,
  ExecutionResult,
  Language,
  LanguageEngine,
  RunOptions,
  Sandbox,
  SandboxOptions,
  SandboxSession,
} from "./types.js";

/**
 * A sandbox with diagnostics that tests and benchmarks use.
 *
 * @example
 * const sandbox = createSandbox({ poolSize: 2 });
 * await sandbox.warm();
 * sandbox.liveWorkerCount(); // 2
 */
export interface SandboxWithStats extends Sandbox {
  /** Live QuickJS threads: pool workers plus one per open JavaScript/TypeScript session. */
  liveWorkerCount(): number;
}

/**
 * Creates a sandbox: a pool of warm engines that runs code until `dispose()`.
 * Workers start on first use (or `warm()`), are not kept alive while idle, and every run
 * gets a fresh engine context.
 *
 * @throws InvalidOptionError for a bad `poolSize` or bad `defaults`.
 * @example
 * const sandbox = createSandbox({ poolSize: 2, defaults: { timeoutMs: 1000 } });
 * const r = await sandbox.run("console.log('hi'); 6 * 7");
 * r.result; // 42
 * await sandbox.dispose();
 */
export function createSandbox(options: SandboxOptions = {}): SandboxWithStats {
  const poolSize = options.poolSize ?? availableParallelism();
  if (!Number.isInteger(poolSize) || poolSize < 1) {
    throw new InvalidOptionError("poolSize", options.poolSize, "a whole number of worker threads, at least 1");
  }
  const defaults = { ...options.defaults };
  // Validate the defaults once, up front, so misuse shows at creation rather than first run.
  resolveRunOptions(undefined, defaults);
  // Python wheels are checked here, so a bad one is refused at creation (the engine loads later).
  const wheels = options.python?.wheels;
  if (wheels !== undefined) loadWheels(wheels);

  const pool = new WorkerPool(poolSize);
  const sessions = new Set<SandboxSession>();
  let python: Promise<LanguageEngine> | undefined;
  let disposed = false;

  function assertUsable(): void {
    if (disposed) throw new SandboxDisposedError("This sandbox");
  }

  function pythonEngine(): Promise<LanguageEngine> {
    python ??= loadPythonEngine(wheels);
    // A failed load is not cached: the next use tries again and reports the same clear error.
    python.catch(() => {
      python = undefined;
    });
    return python;
  }

  return {
    get disposed() {
      return disposed;
    },

    async run(code: string, runOptions?: RunOptions): Promise<ExecutionResult> {
      assertUsable();
      if (typeof code !== "string") throw new InvalidOptionError("code", code, "a string of source code");
      const o = resolveRunOptions(runOptions, defaults);
      if (o.language === "python") return (await pythonEngine()).run(code, o);
      return pool.run(
        runRequest(code, o.language, o),
        o.language,
        o.hostFunctions,
      );
    },

    async check(code: string, checkOptions?: Pick<RunOptions, "language">): Promise<CheckResult> {
      assertUsable();
      if (typeof code !== "string") throw new InvalidOptionError("code", code, "a string of source code");
      const language = resolveLanguage(checkOptions?.language ?? defaults.language ?? "javascript");
      if (language === "python") return (await pythonEngine()).check(code, language);
      const prepared = prepareJavaScript(code, language);
      return prepared.ok ? { ok: true, language } : { ok: false, language, status: prepared.status, error: prepared.error };
    },

    async createSession(sessionOptions?: { language?: Language; memoryLimitBytes?: number }): Promise<SandboxSession> {
      assertUsable();
      const language = resolveLanguage(sessionOptions?.language ?? defaults.language ?? "javascript");
      const memoryLimitBytes = resolveLimit(
        "memoryLimitBytes",
        sessionOptions?.memoryLimitBytes ?? defaults.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES,
      );
      let session: SandboxSession;
      if (language === "python") {
        const engine = await pythonEngine();
        session = await engine.createSession({ language, memoryLimitBytes, defaults });
      } else {
        session = await JavaScriptSession.open(language, memoryLimitBytes, defaults, (s) => sessions.delete(s));
      }
      if (disposed) {
        await session.dispose();
        throw new SandboxDisposedError("This sandbox");
      }
      sessions.add(session);
      return session;
    },

    async warm(languages: Language[] = [defaults.language ?? "javascript"]): Promise<void> {
      assertUsable();
      const wanted = languages.map((l, i) => resolveLanguage(l, `languages[${i}]`));
      const work: Promise<void>[] = [];
      if (wanted.some((l) => l !== "python")) work.push(pool.warm());
      if (wanted.includes("python")) work.push(pythonEngine().then((e) => e.warm()));
      await Promise.all(work);
    },

    async dispose(): Promise<void> {
      if (disposed) return;
      disposed = true;
      const pending: Promise<void>[] = [pool.dispose()];
      for (const s of [...sessions]) pending.push(s.dispose());
      sessions.clear();
      if (python) pending.push(python.then((e) => e.dispose(), () => undefined));
      await Promise.all(pending);
    },

    liveWorkerCount(): number {
      let count = pool.liveWorkers;
      for (const s of sessions) if (s instanceof JavaScriptSession && s.alive) count++;
      return count;
    },
  };
}

async function loadPythonEngine(wheels: string[] | undefined): Promise<LanguageEngine> {
  // Loaded on first use only: JavaScript-only users never pay for (or need) the Python engine.
  // `poolSize` sizes the JavaScript threads; Python processes are far heavier (~180 MB each)
  // and keep the Python engine's own default.
  try {
    const { createPythonEngine } = await import("./python/engine.js");
    return createPythonEngine(wheels !== undefined ? { wheels } : {});
  } catch (error) {
    throw new EngineUnavailableError("python", `its module could not be loaded (${(error as Error).message})`, { cause: error });
  }
}
