/**
 * One model call of `generate` or `refine`: resolve the model, call it with back-off, count
 * tokens. Failures of the call come back as data; configuration errors are thrown.
 */
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { callModelWithRetry } from "../../models/retry.js";
import { ModelCallError, ModelUnavailableError } from "../../models/errors.js";
import { messageText, tokenUsageOf } from "../../models/usage.js";
import type { GraphSettings } from "../configuration.js";

/** What a model call gave: the reply text and its tokens, or why it failed. */
export type ModelCallOutcome =
  | { ok: true; text: string; inputTokens: number; outputTokens: number }
  | { ok: false; message: string };

/** How one call samples: a temperature and a seed, when the strategy sets them. */
export interface SamplingOptions {
  temperature?: number;
  /** A seed for providers that take one (OpenAI-compatible servers), so a sampled run repeats. */
  seed?: number;
}

/** Models that refused a temperature (told once, then called at their own setting). */
const refusedTemperature = new WeakSet<object>();

/**
 * `model` sampling at `temperature`: a shallow copy with its `temperature` field set, for
 * LangChain models that read the field when they build a request (`ChatOpenAI`, `ChatAnthropic`,
 * `ChatOllama`, ...), whose call options have no temperature; the model itself otherwise.
 */
export function withTemperature(model: BaseChatModel, temperature: number): BaseChatModel {
  if (!("temperature" in model)) return model;
  const current = (model as { temperature?: unknown }).temperature;
  if (current === temperature || (current !== undefined && typeof current !== "number")) return model;
  const copy = Object.assign(Object.create(Object.getPrototypeOf(model) as object) as BaseChatModel, model);
  (copy as { temperature?: number }).temperature = temperature;
  // `ChatOpenAI` builds its requests in the models it holds (`completions`, `responses`).
  for (const [key, value] of Object.entries(copy)) {
    if (value !== model && isChatModel(value) && "temperature" in value) (copy as unknown as Record<string, unknown>)[key] = withTemperature(value, temperature);
  }
  return copy;
}

function isChatModel(value: unknown): value is BaseChatModel {
  return typeof value === "object" && value !== null && typeof (value as { invoke?: unknown }).invoke === "function" && typeof (value as { _generate?: unknown })._generate === "function";
}

/** Whether a failed call's message says the model does not take a temperature. */
function refusesTemperature(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /temperature/i.test(message) && /(unsupported|not support|does not support|invalid|not allowed|only the default)/i.test(message);
}

/** Calls the run's model with a system prompt and a user message, sampling as `sampling` says. */
export async function callCodeModel(
  settings: GraphSettings,
  config: LangGraphRunnableConfig,
  system: string,
  user: string,
  sampling: SamplingOptions = {},
): Promise<ModelCallOutcome> {
  const resolved = await settings.model(config);
  const retry = { ...settings.modelRetry };
  if (resolved.baseURL !== undefined) retry.baseURL ??= resolved.baseURL;
  const messages = [new SystemMessage(system), new HumanMessage(user)];
  const sample = sampling.temperature !== undefined && !refusedTemperature.has(resolved.model);
  const invoke = (withSampling: boolean) => {
    if (!withSampling) return resolved.model.invoke(messages, config);
    const options = { ...config, temperature: sampling.temperature, ...(sampling.seed === undefined ? {} : { seed: sampling.seed }) };
    // The node's config carries callbacks, so `streamMode: "messages"` sees the tokens.
    return withTemperature(resolved.model, sampling.temperature!).invoke(messages, options as typeof config);
  };
  try {
    let reply;
    try {
      reply = await callModelWithRetry(() => invoke(sample), retry);
    } catch (error) {
      if (!sample || !refusesTemperature(error)) throw error;
      refusedTemperature.add(resolved.model);
      process.emitWarning(`model ${resolved.name} refused a temperature (${error instanceof Error ? error.message : String(error)}); it is called at its own setting from now on`, { code: "CODEGEN_NO_TEMPERATURE" });
      reply = await callModelWithRetry(() => invoke(false), retry);
    }
    return { ok: true, text: messageText(reply), ...tokenUsageOf(reply) };
  } catch (error) {
    if (error instanceof ModelUnavailableError || error instanceof ModelCallError) {
      return { ok: false, message: `Model ${resolved.name}: ${error.message}` };
    }
    throw error;
  }
}
