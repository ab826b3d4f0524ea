/** Token counts of a model reply. */
import type { BaseMessage } from "@langchain/core/messages";

/** Tokens a reply used; zero when the provider reported none. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * Reads `usage_metadata` of an AI message (zero when absent).
 *
 * @example
 * ```ts
 * const reply = await model.invoke("hi");
 * const { inputTokens, outputTokens } = tokenUsageOf(reply);
 * ```
 */
export function tokenUsageOf(message: BaseMessage): TokenUsage {
  const usage = (message as { usage_metadata?: { input_tokens?: number; output_tokens?: number } }).usage_metadata;
  return { inputTokens: usage?.input_tokens ?? 0, outputTokens: usage?.output_tokens ?? 0 };
}

/**
 * Text of a message whose content may be a string or a list of parts.
 *
 * @example
 * ```ts
 * messageText(new AIMessage("hello")); // "hello"
 * ```
 */
export function messageText(message: BaseMessage): string {
  const content = message.content as unknown;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) => (typeof part === "string" ? part : (part as { type?: string; text?: string }).type === "text" ? ((part as { text?: string }).text ?? "") : ""))
      .join("");
  }
  return "";
}
