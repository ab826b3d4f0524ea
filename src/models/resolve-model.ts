/**
 * Turns a model instance, a `provider:model` string, or nothing (then the environment's
 * settings) into a chat model. OpenAI(-compatible) strings become a `ChatOpenAI`; other providers'
 * go through `initChatModel` from `langchain`.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { PLACEHOLDER_API_KEY } from "./configuration.js";
import type { ModelSettings } from "./configuration.js";
import { ModelConfigurationError } from "./errors.js";

/** A chat model instance, or a `provider:model` string such as `"openai:gpt-4o-mini"`. */
export type ModelSpec = BaseChatModel | string;

/** A resolved model and where it is called (for error messages). */
export interface ResolvedModel {
  model: BaseChatModel;
  /** `provider:model` for strings; the instance's `_llmType()` for instances. */
  name: string;
  /** Server the model calls, when this package configured it. */
  baseURL?: string;
}

const cache = new Map<string, Promise<ResolvedModel>>();

/**
 * Resolves `spec` (or `settings.model` when `spec` is undefined). Models built from strings
 * are cached per string and settings, and have the client's own retries off (the graph
 * retries with back-off itself).
 *
 * Throws {@link ModelConfigurationError} naming the variable to set when an OpenAI model has
 * neither `OPENAI_API_KEY` nor `OPENAI_BASE_URL`, or the provider's package is missing.
 *
 * @example
 * ```ts
 * const { model } = await resolveChatModel("openai:gpt-4o-mini", readModelSettings(process.env));
 * ```
 */
export async function resolveChatModel(spec: ModelSpec | undefined, settings: ModelSettings): Promise<ResolvedModel> {
  if (spec !== undefined && typeof spec !== "string") return { model: spec, name: spec._llmType() };
  const text = spec ?? settings.model;
  const key = JSON.stringify([text, settings]);
  let pending = cache.get(key);
  if (pending === undefined) {
    pending = buildModel(text, settings);
    cache.set(key, pending);
    // A failed build (e.g. a missing key) must not stick: the user may fix the settings.
    pending.catch(() => cache.delete(key));
  }
  return pending;
}

/**
 * Splits `provider:model`; a name without a provider prefix is an OpenAI(-compatible) model.
 *
 * @example
 * ```ts
 * parseModelName("ollama:qwen2.5-coder:7b"); // { provider: "ollama", model: "qwen2.5-coder:7b" }
 * ```
 */
export function parseModelName(text: string): { provider: string; model: string } {
  const trimmed = text.trim();
  const colon = trimmed.indexOf(":");
  if (colon > 0 && /^[a-z][a-z0-9_-]*$/.test(trimmed.slice(0, colon))) {
    return { provider: trimmed.slice(0, colon), model: trimmed.slice(colon + 1) };
  }
  return { provider: "openai", model: trimmed };
}

async function buildModel(text: string, settings: ModelSettings): Promise<ResolvedModel> {
  const { provider, model } = parseModelName(text);
  if (model === "") {
    throw new ModelConfigurationError(`Model "${text}" has no model name; use e.g. "openai:gpt-4o-mini" (CODEGEN_MODEL or --model).`, "CODEGEN_MODEL");
  }
  const name = `${provider}:${model}`;
  if (provider === "openai") {
    const baseURL = settings.openAIBaseURL;
    if (settings.openAIApiKey === undefined && baseURL === undefined) {
      throw new ModelConfigurationError(
        `No API key for model ${name}: set OPENAI_API_KEY, or OPENAI_BASE_URL for an OpenAI-compatible server (vLLM, llama.cpp, Ollama's /v1), or choose another model with CODEGEN_MODEL.`,
        "OPENAI_API_KEY",
      );
    }
    const chat = await openAIChatModel(model, settings.requestTimeoutMs, settings.openAIApiKey ?? PLACEHOLDER_API_KEY, baseURL);
    return baseURL === undefined ? { model: chat, name } : { model: chat, name, baseURL };
  }
  const { initChatModel } = await import("langchain/chat_models/universal");
  // `configurableFields: []`: the graph's own `configurable.model` must not re-target the built model.
  // No temperature: reasoning models (o-series, gpt-5) reject any value but their default.
  const common = { maxRetries: 0, timeout: settings.requestTimeoutMs, configurableFields: [] as string[] };
  if (provider === "ollama") {
    const host = (settings.ollamaBaseURL ?? "http://127.0.0.1:11434").replace(/\/+$/, "");
    try {
      const chat = await initChatModel(model, { ...common, modelProvider: "ollama", baseUrl: host });
      return { model: chat, name, baseURL: host };
    } catch (error) {
      if (!isMissingPackage(error)) throw error;
      // Without @langchain/ollama, Ollama's OpenAI-compatible endpoint serves the same models.
      const baseURL = `${host.replace(/\/v1$/, "")}/v1`;
      const chat = await openAIChatModel(model, settings.requestTimeoutMs, PLACEHOLDER_API_KEY, baseURL);
      return { model: chat, name, baseURL };
    }
  }
  try {
    return { model: await initChatModel(model, { ...common, modelProvider: provider }), name };
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new ModelConfigurationError(
      `Cannot build model ${name}: ${message} (set CODEGEN_MODEL or --model to a provider whose package is installed, e.g. "openai:gpt-4o-mini").`,
      "CODEGEN_MODEL",
      { cause: error },
    );
  }
}

/**
 * An OpenAI(-compatible) chat model, built here rather than through `initChatModel`: langchain's
 * CommonJS build loads providers with `import()`, which in a CommonJS program brings in the ESM
 * copy of @langchain/core beside the CommonJS one; this `import()` is a `require()` in our
 * CommonJS build. The client's own retries are off (the graph retries with back-off); no
 * temperature (reasoning models reject any value but their default).
 */
async function openAIChatModel(model: string, timeoutMs: number, apiKey: string, baseURL: string | undefined): Promise<BaseChatModel> {
  let openai: typeof import("@langchain/openai");
  try {
    openai = await import("@langchain/openai");
  } catch (error) {
    if (!isMissingPackage(error)) throw error;
    throw new ModelConfigurationError(
      `Model openai:${model} needs the @langchain/openai package (a peer dependency of codegen-sandbox): run \`npm install @langchain/openai\`, or choose another model with CODEGEN_MODEL.`,
      "CODEGEN_MODEL",
      { cause: error },
    );
  }
  return new openai.ChatOpenAI({ model, apiKey, maxRetries: 0, timeout: timeoutMs, ...(baseURL === undefined ? {} : { configuration: { baseURL } }) });
}

function isMissingPackage(error: unknown): boolean {
  return error instanceof Error && /Unable to import|Cannot find (package|module)/.test(error.message);
}
