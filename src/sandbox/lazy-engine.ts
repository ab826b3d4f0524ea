/**
 * An engine that loads its module on first use. The sandbox front holds one for Python, so
 * JavaScript-only users never import (or need) the Python engine.
 */
import { EngineUnavailableError } from "../errors.js";
import type {
  CheckResult,
  EngineSessionOptions,
  ExecutionResult,
  Language,
  LanguageEngine,
  ResolvedRunOptions,
  SandboxSession,
} from "./types.js";

/**
 * Wraps `load` as a `LanguageEngine` for `languages`. The first call that needs the engine
 * loads it; a failed load is not cached (the next use tries again and reports the same clear
 * error). `dispose()` never loads it.
 *
 * @example
 * const python = lazyEngine(["python"], async () => (await import("./python/host/engine.js")).createPythonEngine());
 */
export function lazyEngine(languages: readonly Language[], load: () => Promise<LanguageEngine>): LanguageEngine {
  let loading: Promise<LanguageEngine> | undefined;
  const engine = (): Promise<LanguageEngine> => {
    if (!loading) {
      const attempt = load().catch((error: unknown) => {
        if (loading === attempt) loading = undefined;
        const detail = error instanceof Error ? error.message : String(error);
        throw error instanceof EngineUnavailableError
          ? error
          : new EngineUnavailableError(languages.join("/"), `its module could not be loaded (${detail})`, { cause: error });
      });
      loading = attempt;
    }
    return loading;
  };

  return {
    languages,
    async run(code: string, options: ResolvedRunOptions): Promise<ExecutionResult> {
      return (await engine()).run(code, options);
    },
    async check(code: string, language: Language): Promise<CheckResult> {
      return (await engine()).check(code, language);
    },
    async warm(): Promise<void> {
      await (await engine()).warm();
    },
    async createSession(options: EngineSessionOptions): Promise<SandboxSession> {
      return (await engine()).createSession(options);
    },
    async prestartSession(language: Language): Promise<void> {
      await (await engine()).prestartSession(language);
    },
    async dispose(): Promise<void> {
      const pending = loading;
      if (!pending) return;
      await pending.then((e) => e.dispose(), () => undefined);
    },
  };
}
