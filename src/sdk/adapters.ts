/**
 * Adapters that turn a model into a `CodeGeneratorApi`: any LangChain chat model, or a plain
 * async function (how a REST, gRPC or WebSocket model server plugs in).
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import { InvalidOptionError } from "../errors.js";
import { resolveChatModel } from "../models/resolve-model.js";
import type { ModelSettings } from "../models/configuration.js";
import { ModelCallError } from "../models/errors.js";
import { callModelWithRetry, checkModelRetry, type ModelRetryOptions } from "../models/retry.js";
import { booleanRule, checkOptions, functionRule, millisecondsRule, textRule, type OptionRules } from "../options/index.js";
import { messageText } from "../models/usage.js";
import { readPromptFile } from "../prompts/templates.js";
import type { Language } from "../sandbox/types.js";
import { BaseCodeGenerator, type CodeChecker, type Completion, type CompletionUsage, type Descriptors } from "./generator-api.js";
import { GeneratorBackendError } from "./errors.js";
import { stripCodeFences } from "./strip-fences.js";

/** System prompt of `fromChatModel` unless the caller gives one (`prompts/generator.system.md`). */
export const DEFAULT_GENERATOR_SYSTEM_PROMPT = readPromptFile("generator.system.md");

/** Options shared by the adapters. */
export interface AdapterOptions {
  /** Validates code for `checkExecute`. Default: the sandbox's `checkCode`. */
  checker?: CodeChecker;
  /**
   * Back-off of backend calls, as in the graph: 429, 5xx, timeouts and connection failures
   * (errors with such a `status` or code) are retried. Default: 3 retries from 500 ms, doubling.
   */
  modelRetry?: ModelRetryOptions;
}

/** Calls a backend with the graph's model retry; failures become `GeneratorBackendError`. */
async function callBackend<T>(name: string, call: () => Promise<T>, retry: ModelRetryOptions | undefined): Promise<T> {
  try {
    return await callModelWithRetry(call, retry);
  } catch (error) {
    // A failure that was not retried is reported as the backend's own error.
    throw new GeneratorBackendError(name, error instanceof ModelCallError && error.cause !== undefined ? error.cause : error);
  }
}

/** The language a generation asked for (descriptor `language`), for extracting the program. */
function requestedLanguage(descriptors: Descriptors | undefined): Language {
  const language = descriptors?.language;
  return language === "typescript" || language === "python" ? language : "javascript";
}

/** Options of `fromChatModel`. */
export interface ChatModelAdapterOptions extends AdapterOptions {
  /** System message sent before the prompt. Default `DEFAULT_GENERATOR_SYSTEM_PROMPT`. */
  systemPrompt?: string;
}

const ADAPTER_RULES = {
  checker: functionRule("a function (code, { language }) => Promise<CheckResult>"),
  modelRetry: { expected: "an object of back-off options", check: (v) => checkModelRetry(v) },
} satisfies OptionRules<AdapterOptions>;

const CHAT_MODEL_ADAPTER_RULES = { ...ADAPTER_RULES, systemPrompt: textRule({ what: "a system prompt" }) } satisfies OptionRules<ChatModelAdapterOptions>;

class ChatModelGenerator extends BaseCodeGenerator {
  constructor(
    private readonly model: BaseChatModel,
    private readonly systemPrompt: string,
    private readonly options: ChatModelAdapterOptions,
  ) {
    super(options.checker);
  }

  protected async complete(prompt: string, { descriptors }: BackendRequest): Promise<Completion> {
    const language = descriptors.language ? `\nWrite ${descriptors.language}.` : "";
    const reply: BaseMessage = await callBackend(
      this.model.getName(),
      () =>
        this.model.invoke([
          { role: "system", content: this.systemPrompt + language },
          { role: "user", content: prompt },
        ]),
      this.options.modelRetry,
    );
    const usage = (reply as { usage_metadata?: { input_tokens?: number; output_tokens?: number } }).usage_metadata;
    const completion: Completion = { text: messageText(reply) };
    if (usage) completion.usage = { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 };
    return completion;
  }

  protected override postProcess(text: string, descriptors?: Descriptors): string {
    return stripCodeFences(text, requestedLanguage(descriptors));
  }
}

/**
 * Wraps any LangChain chat model as a code generator. The reply's Markdown fences are stripped;
 * token usage is counted from `usage_metadata`.
 *
 * @example
 * ```ts
 * const generator = fromChatModel(new ChatOpenAI({ model: "gpt-4o-mini" }));
 * const code = await generator.generate("Create add(a, b, c)", { language: "javascript" });
 * ```
 */
export function fromChatModel(model: BaseChatModel, given: ChatModelAdapterOptions = {}): BaseCodeGenerator {
  const options = checkOptions<ChatModelAdapterOptions>(given, CHAT_MODEL_ADAPTER_RULES, "fromChatModel");
  if (model === null || typeof model !== "object" || typeof (model as { invoke?: unknown }).invoke !== "function") {
    throw new InvalidOptionError("model", model, "a LangChain chat model instance (with invoke)");
  }
  return new ChatModelGenerator(model, options.systemPrompt ?? DEFAULT_GENERATOR_SYSTEM_PROMPT, options);
}

/** What a backend function receives besides the prompt. */
export interface BackendRequest {
  task: string;
  descriptors: Descriptors;
}

/** What a backend function returns: the code, or the code with token usage. */
export type BackendReply = string | { code: string; usage?: CompletionUsage };

/** Options of `fromAsyncFunction`. */
export interface AsyncFunctionAdapterOptions extends AdapterOptions {
  /** Name of the backend in error messages. Default `"custom"`. */
  name?: string;
  /** Strip Markdown fences from replies. Default true. */
  stripFences?: boolean;
}

const ASYNC_FUNCTION_ADAPTER_RULES = {
  ...ADAPTER_RULES,
  name: textRule({ what: "a backend name" }),
  stripFences: booleanRule,
} satisfies OptionRules<AsyncFunctionAdapterOptions>;

class AsyncFunctionGenerator extends BaseCodeGenerator {
  constructor(
    private readonly fn: (prompt: string, request: BackendRequest) => Promise<BackendReply> | BackendReply,
    private readonly options: AsyncFunctionAdapterOptions,
  ) {
    super(options.checker);
  }

  protected async complete(prompt: string, request: BackendRequest): Promise<Completion> {
    const name = this.options.name ?? "custom";
    const reply: BackendReply = await callBackend(name, async () => this.fn(prompt, request), this.options.modelRetry);
    if (typeof reply === "string") return { text: reply };
    if (reply !== null && typeof reply === "object" && typeof reply.code === "string") {
      return reply.usage ? { text: reply.code, usage: reply.usage } : { text: reply.code };
    }
    throw new GeneratorBackendError(name, new TypeError(`it returned ${JSON.stringify(reply) ?? String(reply)} instead of a code string or { code }`));
  }

  protected override postProcess(text: string, descriptors?: Descriptors): string {
    return this.options.stripFences === false ? text : stripCodeFences(text, requestedLanguage(descriptors));
  }
}

/**
 * Wraps a plain async function `(prompt, { task, descriptors }) => code` as a code generator.
 * This is how a REST, gRPC or WebSocket model server plugs in: call it inside the function.
 * Failures of the function become a `GeneratorBackendError` naming the backend.
 *
 * @example
 * ```ts
 * const rest = fromAsyncFunction(async (prompt) => {
 *   const response = await fetch("http://127.0.0.1:8000/generate", { method: "POST", body: JSON.stringify({ prompt }) });
 *   if (!response.ok) throw new Error(`HTTP ${response.status}`);
 *   return ((await response.json()) as { code: string }).code;
 * }, { name: "my-rest-server" });
 * ```
 */
export function fromAsyncFunction(
  fn: (prompt: string, request: BackendRequest) => Promise<BackendReply> | BackendReply,
  given: AsyncFunctionAdapterOptions = {},
): BaseCodeGenerator {
  const options = checkOptions<AsyncFunctionAdapterOptions>(given, ASYNC_FUNCTION_ADAPTER_RULES, "fromAsyncFunction");
  if (typeof fn !== "function") {
    throw new InvalidOptionError("fn", fn, "an async function (prompt, { task, descriptors }) => code string");
  }
  return new AsyncFunctionGenerator(fn, options);
}

/** Options of `fromOpenAICompatible`. */
export interface OpenAICompatibleOptions extends ChatModelAdapterOptions {
  /** Base URL of the server's OpenAI API, e.g. `http://127.0.0.1:8000/v1` (vLLM, llama.cpp, Ollama's `/v1`). */
  baseURL: string;
  /** Model name the server knows (an `openai:` prefix is accepted and dropped). */
  model: string;
  /** API key; servers that need none get a placeholder. */
  apiKey?: string;
  /** Per-call timeout. Default 60000. */
  requestTimeoutMs?: number;
}

const OPENAI_COMPATIBLE_RULES = {
  ...CHAT_MODEL_ADAPTER_RULES,
  baseURL: textRule({ what: "an http(s) URL of an OpenAI-compatible API" }),
  model: textRule({ what: "the model name the server serves" }),
  apiKey: textRule({ what: "an API key" }),
  requestTimeoutMs: millisecondsRule(),
} satisfies OptionRules<OpenAICompatibleOptions>;

/**
 * A code generator on any OpenAI-compatible chat-completions server, built with the package's
 * model resolution (the same client settings the graph uses).
 *
 * @example
 * ```ts
 * const generator = await fromOpenAICompatible({ baseURL: "http://127.0.0.1:11434/v1", model: "qwen2.5-coder" });
 * ```
 */
export async function fromOpenAICompatible(given: OpenAICompatibleOptions): Promise<BaseCodeGenerator> {
  const options = checkOptions<OpenAICompatibleOptions>(given ?? ({} as OpenAICompatibleOptions), OPENAI_COMPATIBLE_RULES, "fromOpenAICompatible");
  if (typeof options.baseURL !== "string" || !/^https?:\/\//.test(options.baseURL)) {
    throw new InvalidOptionError("baseURL", options?.baseURL, 'an http(s) URL of an OpenAI-compatible API, e.g. "http://127.0.0.1:8000/v1"');
  }
  if (typeof options.model !== "string" || options.model.replace(/^openai:/, "").trim() === "") {
    throw new InvalidOptionError("model", options.model, 'the model name the server serves, e.g. "qwen2.5-coder"');
  }
  const settings: ModelSettings = {
    model: `openai:${options.model.replace(/^openai:/, "")}`,
    modelIsDefault: false,
    openAIBaseURL: options.baseURL,
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
  };
  if (options.apiKey !== undefined) settings.openAIApiKey = options.apiKey;
  const { model } = await resolveChatModel(undefined, settings);
  const { baseURL: _url, model: _name, apiKey: _key, requestTimeoutMs: _timeout, ...chatOptions } = options;
  return fromChatModel(model, chatOptions);
}
