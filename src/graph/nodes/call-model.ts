/**
 * One model call of `generate` or `refine`: resolve the model, call it with back-off, count
 * tokens. Failures of the call come back as data; configuration errors are thrown.
 */
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { callModelWithRetry } from "../../models/retry.js";
import { ModelCallError, ModelUnavailableError } from "../../models/errors.js";
import { messageText, tokenUsageOf } from "../../models/usage.js";
import type { GraphSettings } from "../configuration.js";

/** What a model call gave: the reply text and its tokens, or why it failed. */
export type ModelCallOutcome =
  | { ok: true; text: string; inputTokens: number; outputTokens: number }
  | { ok: false; message: string };

/** Calls the run's model with a system prompt and a user message. */
export async function callCodeModel(
  settings: GraphSettings,
  config: LangGraphRunnableConfig,
  system: string,
  user: string,
): Promise<ModelCallOutcome> {
  const resolved = await settings.model(config);
  const retry = { ...settings.modelRetry };
  if (resolved.baseURL !== undefined) retry.baseURL ??= resolved.baseURL;
  try {
    // The node's config carries callbacks, so `streamMode: "messages"` sees the tokens.
    const reply = await callModelWithRetry(() => resolved.model.invoke([new SystemMessage(system), new HumanMessage(user)], config), retry);
    return { ok: true, text: messageText(reply), ...tokenUsageOf(reply) };
  } catch (error) {
    if (error instanceof ModelUnavailableError || error instanceof ModelCallError) {
      return { ok: false, message: `Model ${resolved.name}: ${error.message}` };
    }
    throw error;
  }
}
