/**
 * `createSandbox`: the front of the sandbox. It validates options, then routes by language to
 * one of its engines (JavaScript/TypeScript on QuickJS worker threads; Python in Deno, loaded
 * on first use). It never special-cases an engine, and no engine imports it.
 */
import { availableParallelism } from "node:os";
import { InvalidOptionError, SandboxDisposedError } from "../errors.js";
import { createJavaScriptEngine } from "./js/host/engine.js";
import { lazyEngine } from "./lazy-engine.js";
import { resolveLanguage, resolveLimit, resolveRunOptions, DEFAULT_MEMORY_LIMIT_BYTES } from "./options.js";
import { loadWheels } from "./python/host/wheels.js";
import type {
  CheckResult,
  EngineSessionOptions,
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
  const { signal: _signal, tests: _tests, files: _files, ...sessionDefaults } = defaults;
  // Python wheels are checked here, so a bad one is refused at creation (the engine loads later).
  const wheels = options.python?.wheels;
  if (wheels !== undefined) loadWheels(wheels);

  const isolation = options.isolation ?? "context";
  if (isolation !== "context" && isolation !== "module") {
    throw new InvalidOptionError("isolation", options.isolation, '"context" (a fresh QuickJS context per run) or "module" (a fresh WASM instance per run)');
  }
  const javascript = createJavaScriptEngine({ poolSize, isolation });
  // `poolSize` sizes the JavaScript threads; Python processes are far heavier (~240 MiB each, docs/python.md)
  // and keep the Python engine's own default.
  const python = lazyEngine(["python"], async () =>
    (await import("./python/host/engine.js")).createPythonEngine(wheels !== undefined ? { wheels } : {}),
  );
  const engines: readonly LanguageEngine[] = [javascript, python];
  let disposed = false;

  function assertUsable(): void {
    if (disposed) throw new SandboxDisposedError("This sandbox");
  }

  function engineFor(language: Language): LanguageEngine {
    const engine = engines.find((e) => e.languages.includes(language));
    // Unreachable for a resolved language: every language in LANGUAGES has an engine.
    if (!engine) throw new InvalidOptionError("language", language, "a language with an engine");
    return engine;
  }

  return {
    get disposed() {
      return disposed;
    },

    async run(code: string, runOptions?: RunOptions): Promise<ExecutionResult> {
      assertUsable();
      if (typeof code !== "string") throw new InvalidOptionError("code", code, "a string of source code");
      const o = resolveRunOptions(runOptions, defaults);
      return engineFor(o.language).run(code, o);
    },

    async check(code: string, checkOptions?: Pick<RunOptions, "language">): Promise<CheckResult> {
      assertUsable();
      if (typeof code !== "string") throw new InvalidOptionError("code", code, "a string of source code");
      const language = resolveLanguage(checkOptions?.language ?? defaults.language ?? "javascript");
      return engineFor(language).check(code, language);
    },

    async createSession(sessionOptions?: { language?: Language; memoryLimitBytes?: number }): Promise<SandboxSession> {
      assertUsable();
      const language = resolveLanguage(sessionOptions?.language ?? defaults.language ?? "javascript");
      const memoryLimitBytes = resolveLimit(
        "memoryLimitBytes",
        sessionOptions?.memoryLimitBytes ?? defaults.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES,
      );
      const engineOptions: EngineSessionOptions = { language, memoryLimitBytes, defaults: sessionDefaults };
      const session = await engineFor(language).createSession(engineOptions);
      if (disposed) {
        await session.dispose();
        throw new SandboxDisposedError("This sandbox");
      }
      return session;
    },

    async warm(languages: Language[] = [defaults.language ?? "javascript"]): Promise<void> {
      assertUsable();
      const wanted = new Set(languages.map((l, i) => engineFor(resolveLanguage(l, `languages[${i}]`))));
      await Promise.all([...wanted].map((e) => e.warm()));
    },

    async dispose(): Promise<void> {
      if (disposed) return;
      disposed = true;
      await Promise.all(engines.map((e) => e.dispose()));
    },

    liveWorkerCount(): number {
      return javascript.liveWorkerCount();
    },
  };
}
