/**
 * Model settings from the environment. The only module of `src/models` that sees environment
 * variables; callers pass `process.env` (or a test's own object) in.
 */

import { InvalidOptionError } from "../errors.js";
import { MAX_TIMER_MS } from "../options/index.js";

/** Model used when neither the caller nor `CODEGEN_MODEL` names one. */
export const DEFAULT_MODEL = "openai:gpt-4o-mini";

/** Key sent to OpenAI-compatible servers that need none (vLLM, llama.cpp, Ollama). */
export const PLACEHOLDER_API_KEY = "not-needed";

/** Settings that decide which model is built and where it is called. */
export interface ModelSettings {
  /** `provider:model`, e.g. `openai:gpt-4o-mini`. */
  model: string;
  /** Whether `model` came from the default rather than the caller or `CODEGEN_MODEL`. */
  modelIsDefault: boolean;
  /** `OPENAI_API_KEY`, when set. */
  openAIApiKey?: string;
  /** `OPENAI_BASE_URL`: an OpenAI-compatible server (vLLM, llama.cpp, Ollama's `/v1`). */
  openAIBaseURL?: string;
  /** `OLLAMA_BASE_URL` for `ollama:` models; default `http://127.0.0.1:11434`. */
  ollamaBaseURL?: string;
  /** `CODEGEN_MODEL_TIMEOUT_MS`: per-call timeout of models this package builds. Default 60000. */
  requestTimeoutMs: number;
}

/**
 * Reads model settings from environment variables: `CODEGEN_MODEL`, `OPENAI_API_KEY`,
 * `OPENAI_BASE_URL`, `OLLAMA_BASE_URL`, `CODEGEN_MODEL_TIMEOUT_MS`. Empty values count as unset.
 *
 * @example
 * ```ts
 * const settings = readModelSettings(process.env);
 * // { model: "openai:gpt-4o-mini", modelIsDefault: true, requestTimeoutMs: 60000, ... }
 * ```
 */
export function readModelSettings(env: Record<string, string | undefined>): ModelSettings {
  const value = (name: string) => {
    const text = env[name]?.trim();
    return text === undefined || text === "" ? undefined : text;
  };
  const model = value("CODEGEN_MODEL");
  const settings: ModelSettings = {
    model: model ?? DEFAULT_MODEL,
    modelIsDefault: model === undefined,
    requestTimeoutMs: timeoutSetting(value("CODEGEN_MODEL_TIMEOUT_MS")),
  };
  const apiKey = value("OPENAI_API_KEY");
  if (apiKey !== undefined) settings.openAIApiKey = apiKey;
  const baseURL = value("OPENAI_BASE_URL");
  if (baseURL !== undefined) settings.openAIBaseURL = baseURL;
  const ollama = value("OLLAMA_BASE_URL");
  if (ollama !== undefined) settings.ollamaBaseURL = ollama;
  return settings;
}

/** `CODEGEN_MODEL_TIMEOUT_MS`: a bad value is refused, never replaced by the default in silence. */
function timeoutSetting(text: string | undefined): number {
  if (text === undefined) return 60_000;
  const timeout = Number(text);
  if (!Number.isFinite(timeout) || timeout <= 0 || timeout > MAX_TIMER_MS) {
    throw new InvalidOptionError("CODEGEN_MODEL_TIMEOUT_MS", text, `a number of milliseconds greater than 0 and at most ${MAX_TIMER_MS} (timers cannot wait longer)`);
  }
  return timeout;
}
