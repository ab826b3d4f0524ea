/**
 * `createSandbox`: the front of the sandbox. It validates options, then routes by language to
 * one of its engines (JavaScript/TypeScript on QuickJS worker threads; Python in Deno, loaded
 * on first use). It never special-cases an engine, and no engine imports it.
 */
import { availableParallelism } from "node:os";
import { InvalidOptionError, SandboxDisposedError } from "../errors.js";
import { createJavaScriptEngine } from "./js/host/engine.js";
import { lazyEngine } from "./lazy-engine.js";
import { arrayRule, checkOptions, integerRule, oneOfRule, rule, textRule, type OptionRules } from "../options/index.js";
import { checkRunDefaults, resolveLanguage, resolveLimit, resolveRunOptions, DEFAULT_MEMORY_LIMIT_BYTES, RUN_OPTION_RULES } from "./options.js";
import { loadWheels } from "./python/host/wheels.js";
import { checkPackageNames, localLock, parsePackageIndex } from "./python/host/package-fetch.js";
import { resolvePyodide } from "./python/host/deno-paths.js";
import { LANGUAGES } from "./types.js";
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
  SequencedRun,
  SessionOptions,
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
  prestartSession(language: Language): Promise<void>;
  /** Live QuickJS threads: pool workers, one per open JavaScript/TypeScript session, and one per worker started ahead. */
  liveWorkerCount(): number;
}

/** The most worker threads a sandbox may run for JavaScript/TypeScript (each a thread with its own memory: `npm run bench -- js`, row "memory per live session"). */
export const MAX_POOL_SIZE = 256;

const PYTHON_OPTION_RULES = {
  wheels: arrayRule(textRule({ what: "a path to a .whl file" }), { what: "an array of paths to pure-Python wheels" }),
  packages: arrayRule(textRule({ what: "a package name of Pyodide's lock (numpy, pandas, matplotlib, ...)" }), { what: "an array of package names of Pyodide's lock" }),
  packageIndex: textRule({ what: "an http(s) URL of a Pyodide package index, or a folder holding a copy of one" }),
} satisfies OptionRules<NonNullable<SandboxOptions["python"]>>;

/** The options of `createSandbox` and their rules (keys from `SandboxOptions` itself). */
const SANDBOX_OPTION_RULES = {
  poolSize: integerRule({ min: 1, max: MAX_POOL_SIZE, unit: "worker threads" }),
  defaults: rule("an object of run options (timeoutMs, memoryLimitBytes, ...)", (v) => typeof v === "object" && v !== null && !Array.isArray(v)),
  isolation: oneOfRule(["context", "module"] as const, '"context": a fresh QuickJS context per run; "module": also the WASM memory restored after every run'),
  python: { expected: "an object of Python engine options ({ wheels, packages, packageIndex })", check: (v) => checkOptions<NonNullable<SandboxOptions["python"]>>(v, PYTHON_OPTION_RULES, "createSandbox's python options", "python.") },
} satisfies OptionRules<SandboxOptions>;

/** The options of `sandbox.createSession`. */
const SESSION_OPTION_RULES = {
  language: oneOfRule(LANGUAGES),
  memoryLimitBytes: { expected: "a whole number of bytes", check: (v, name) => resolveLimit("memoryLimitBytes", v, name) },
  snapshottable: rule("true or false", (v) => typeof v === "boolean"),
} satisfies OptionRules<NonNullable<Parameters<Sandbox["createSession"]>[0]>>;

/**
 * The session an engine opened, with its options checked at the front. A session's language and
 * memory limit are fixed when it opens: a run or call may repeat them, not change them.
 */
function checkedSession(session: SandboxSession, memoryLimitBytes: number): SandboxSession {
  const fixed = (name: string, value: number | string) => ({
    expected: `${JSON.stringify(value)} (the session's own; it is set when the session opens: sandbox.createSession({ ${name} }))`,
    check(v: unknown, option: string) {
      if (v !== value) throw new InvalidOptionError(option, v, this.expected);
      return v;
    },
  });
  const { globals, ...callRules } = { ...RUN_OPTION_RULES, language: fixed("language", session.language), memoryLimitBytes: fixed("memoryLimitBytes", memoryLimitBytes) };
  const runRules = { ...callRules, globals };
  return {
    get language() {
      return session.language;
    },
    get disposed() {
      return session.disposed;
    },
    run(code, options) {
      return session.run(code, checkOptions<RunOptions>(options, runRules, "session.run"));
    },
    call(name, args, options) {
      return session.call(name, args, checkOptions<Omit<RunOptions, "globals">>(options, callRules, "session.call"));
    },
    functionNames: () => session.functionNames(),
    ...(session.runSequence ? { runSequence: (runs) => checkedSequence(session, runs, runRules) } : {}),
    ...(session.snapshot ? { snapshot: () => session.snapshot!() } : {}),
    ...(session.restoreSnapshot ? { restoreSnapshot: (snapshot) => session.restoreSnapshot!(snapshot) } : {}),
    dispose: () => session.dispose(),
  };
}

/** `session.runSequence` with each run's options checked as `session.run` checks them. */
async function checkedSequence(session: SandboxSession, runs: SequencedRun[], runRules: OptionRules<RunOptions>): Promise<ExecutionResult[]> {
  if (!Array.isArray(runs)) throw new InvalidOptionError("runs", runs, "an array of { code, options?, carryFiles? }");
  const checked = runs.map((r, i) => {
    if (r === null || typeof r !== "object") throw new InvalidOptionError(`runs[${i}]`, r, "{ code, options?, carryFiles? }");
    if (r.carryFiles !== undefined && typeof r.carryFiles !== "boolean") throw new InvalidOptionError(`runs[${i}].carryFiles`, r.carryFiles, "true or false");
    const options = checkOptions<RunOptions>(r.options, runRules, "session.runSequence");
    return { code: r.code, options, ...(r.carryFiles ? { carryFiles: true } : {}) };
  });
  return session.runSequence!(checked);
}

/** The options of `sandbox.check` / `checkCode`. */
const CHECK_OPTION_RULES = { language: SESSION_OPTION_RULES.language } satisfies OptionRules<NonNullable<Parameters<Sandbox["check"]>[1]>>;

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
  const checked = checkOptions<SandboxOptions>(options, SANDBOX_OPTION_RULES, "createSandbox");
  const poolSize = checked.poolSize ?? Math.min(availableParallelism(), MAX_POOL_SIZE);
  // Validate the defaults once, up front, so misuse shows at creation rather than first run.
  const defaults = checkRunDefaults(checked.defaults, "createSandbox");
  const { signal: _signal, tests: _tests, files: _files, ...sessionDefaults } = defaults;
  // Python wheels are checked here, so a bad one is refused at creation (the engine loads later).
  const wheels = checked.python?.wheels;
  if (wheels !== undefined) loadWheels(wheels);
  // Package names are checked against the lock here when it is on this machine (the installed
  // Pyodide's, or a local index's own); files are fetched on first Python use.
  const packages = checked.python?.packages;
  const packageIndex = checked.python?.packageIndex;
  const index = packageIndex !== undefined ? parsePackageIndex(packageIndex) : undefined;
  if (packages !== undefined && packages.length > 0) {
    const { pyodideDir, pyodideVersion } = resolvePyodide();
    const lock = localLock(index, pyodideDir, pyodideVersion);
    if (lock) checkPackageNames(lock, packages);
  }
  const pythonOptions = {
    ...(wheels !== undefined ? { wheels } : {}),
    ...(packages !== undefined ? { packages } : {}),
    ...(packageIndex !== undefined ? { packageIndex } : {}),
  };

  const isolation = checked.isolation ?? "context";
  const javascript = createJavaScriptEngine({ poolSize, isolation });
  // `poolSize` sizes the JavaScript threads; Python processes are far heavier (`npm run bench -- python`,
  // row "memory per ready interpreter (Deno process RSS)") and keep the Python engine's own default.
  const python = lazyEngine(["python"], async () =>
    (await import("./python/host/engine.js")).createPythonEngine(pythonOptions),
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
      const o = resolveRunOptions(runOptions, defaults, "sandbox.run (and runCode)");
      return engineFor(o.language).run(code, o);
    },

    async check(code: string, checkOptions_?: Pick<RunOptions, "language">): Promise<CheckResult> {
      assertUsable();
      if (typeof code !== "string") throw new InvalidOptionError("code", code, "a string of source code");
      const checkedOptions = checkOptions<Pick<RunOptions, "language">>(checkOptions_, CHECK_OPTION_RULES, "sandbox.check (and checkCode)");
      const language = checkedOptions.language ?? defaults.language ?? "javascript";
      return engineFor(language).check(code, language);
    },

    async createSession(sessionOptions?: SessionOptions): Promise<SandboxSession> {
      assertUsable();
      const o = checkOptions<SessionOptions>(sessionOptions, SESSION_OPTION_RULES, "sandbox.createSession");
      const language = o.language ?? defaults.language ?? "javascript";
      const memoryLimitBytes = o.memoryLimitBytes ?? defaults.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES;
      const engineOptions: EngineSessionOptions = { language, memoryLimitBytes, defaults: sessionDefaults, ...(o.snapshottable === true ? { snapshottable: true } : {}) };
      const session = await engineFor(language).createSession(engineOptions);
      if (disposed) {
        await session.dispose();
        throw new SandboxDisposedError("This sandbox");
      }
      return checkedSession(session, memoryLimitBytes);
    },

    async warm(languages: Language[] = [defaults.language ?? "javascript"]): Promise<void> {
      assertUsable();
      if (!Array.isArray(languages)) throw new InvalidOptionError("languages", languages, `an array of languages (${LANGUAGES.join(", ")})`);
      const wanted = new Set(languages.map((l, i) => engineFor(resolveLanguage(l, `languages[${i}]`))));
      await Promise.all([...wanted].map((e) => e.warm()));
    },

    async prestartSession(language: Language): Promise<void> {
      assertUsable();
      const lang = resolveLanguage(language, "language");
      await engineFor(lang).prestartSession(lang);
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
