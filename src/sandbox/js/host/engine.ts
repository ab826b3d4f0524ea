/**
 * The JavaScript/TypeScript engine: QuickJS on a pool of worker threads for runs, one worker
 * thread per session. It implements the same `LanguageEngine` contract as the Python engine,
 * so the sandbox front routes to it by language and never special-cases it.
 */
import { SandboxDisposedError } from "../../../errors.js";
import type {
  CheckResult,
  EngineSessionOptions,
  ExecutionResult,
  Language,
  LanguageEngine,
  ResolvedRunOptions,
  SandboxSession,
} from "../../types.js";
import type { JavaScriptSession } from "./session.js";
import { runRequest } from "./run-request.js";
import { WorkerPool } from "./worker-pool.js";
import { EngineWorker } from "./worker-client.js";

/** Options of the JavaScript engine. */
export interface JavaScriptEngineOptions {
  /** Worker threads of the run pool (sessions have their own threads). */
  poolSize: number;
  /** `"module"`: the WASM memory restored after every pool run (see `SandboxOptions.isolation`). Default `"context"`. */
  isolation?: "context" | "module";
  /**
   * How a pool worker serves fresh runs: `"image"` (default) from one context put back in place
   * after each run (see worker/fresh-image.ts), `"context"` with a new runtime + context each. An
   * internal switch for the A/B bench and tests, not a sandbox option.
   */
  freshRuns?: "image" | "context";
}

/** The JavaScript engine, with the diagnostics that tests and benchmarks read. */
export interface JavaScriptEngine extends LanguageEngine {
  /** Live QuickJS threads: pool workers plus one per open session. */
  liveWorkerCount(): number;
  /** How each ready pool worker serves fresh runs (see `JavaScriptEngineOptions.freshRuns`). */
  freshRunModes(): ("image" | "context")[];
}

/**
 * Creates the JavaScript/TypeScript engine. Workers start on first use (or `warm()`); every
 * pool run gets a QuickJS context no earlier run has touched (see worker/fresh-image.ts).
 *
 * @example
 * const engine = createJavaScriptEngine({ poolSize: 2 });
 * const r = await engine.run("6 * 7", resolveRunOptions({}));
 * r.result; // 42
 * await engine.dispose();
 */
export function createJavaScriptEngine(options: JavaScriptEngineOptions): JavaScriptEngine {
  const pool = new WorkerPool(options.poolSize, options.isolation ?? "context", options.freshRuns);
  const sessions = new Set<JavaScriptSession>();
  /** A session worker started ahead (`prestartSession`), per language, until a session takes it. */
  const spares = new Map<"javascript" | "typescript", EngineWorker>();
  let disposed = false;

  const assertAlive = (): void => {
    if (disposed) throw new SandboxDisposedError("The JavaScript engine");
  };

  return {
    languages: ["javascript", "typescript"],

    async run(code: string, o: ResolvedRunOptions): Promise<ExecutionResult> {
      assertAlive();
      const language = scriptLanguage(o.language);
      return pool.run(runRequest(code, language, o), language, o);
    },

    async check(code: string, language: Language): Promise<CheckResult> {
      assertAlive();
      const lang = scriptLanguage(language);
      // Loaded on first use, like sessions below: a run prepares its code in the worker, so the
      // root import does not pay for the parser modules (docs/performance.md, "Entry points").
      const { prepareJavaScript } = await import("../prepare/prepare.js");
      const prepared = prepareJavaScript(code, lang);
      return prepared.ok ? { ok: true, language: lang } : { ok: false, language: lang, status: prepared.status, error: prepared.error };
    },

    async warm(): Promise<void> {
      assertAlive();
      await pool.warm();
    },

    async createSession(sessionOptions: EngineSessionOptions): Promise<SandboxSession> {
      assertAlive();
      const { JavaScriptSession } = await import("./session.js");
      const language = scriptLanguage(sessionOptions.language);
      const spare = spares.get(language);
      spares.delete(language);
      const session = await JavaScriptSession.open(
        language,
        sessionOptions.memoryLimitBytes,
        sessionOptions.defaults,
        (s) => sessions.delete(s),
        spare,
      );
      if (disposed) {
        await session.dispose();
        throw new SandboxDisposedError("The JavaScript engine");
      }
      sessions.add(session);
      return session;
    },

    async prestartSession(language: Language): Promise<void> {
      assertAlive();
      const lang = scriptLanguage(language);
      let spare = spares.get(lang);
      if (!spare || spare.dead) {
        spare = new EngineWorker(() => undefined, "context", lang);
        spares.set(lang, spare);
      }
      await spare.ready;
    },

    async dispose(): Promise<void> {
      if (disposed) return;
      disposed = true;
      const held = [...spares.values()];
      spares.clear();
      await Promise.all([pool.dispose(), ...[...sessions].map((s) => s.dispose()), ...held.map((w) => w.terminate())]);
      sessions.clear();
    },

    freshRunModes(): ("image" | "context")[] {
      return pool.freshRunModes();
    },

    liveWorkerCount(): number {
      let count = pool.liveWorkers;
      for (const s of sessions) if (s.alive) count++;
      for (const w of spares.values()) if (!w.dead) count++;
      return count;
    },
  };
}

function scriptLanguage(language: Language): "javascript" | "typescript" {
  if (language === "javascript" || language === "typescript") return language;
  throw new Error(`the JavaScript engine was asked to run ${language}`);
}
