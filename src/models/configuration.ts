/**
 * Model settings from the environment. The only module of `src/models` that sees environment
 * variables; callers pass `process.env` (or a test's own object) in.
 */

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
  const timeout = Number(value("CODEGEN_MODEL_TIMEOUT_MS"));
  const settings: ModelSettings = {
    model: model ?? DEFAULT_MODEL,
    modelIsDefault: model === undefined,
    requestTimeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : 60_000,
  };
  const apiKey = value("OPENAI_API_KEY");
  if (apiKey !== undefined) settings.openAIApiKey = apiKey;
  const baseURL = value("OPENAI_BASE_URL");
  if (baseURL !== undefined) settings.openAIBaseURL = baseURL;
  const ollama = value("OLLAMA_BASE_URL");
  if (ollama !== undefined) settings.ollamaBaseURL = ollama;
  return settings;
}
