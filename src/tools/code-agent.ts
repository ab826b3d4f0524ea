/**
 * `createCodeAgent`: LangChain's `createAgent` with this package's tools (`execute_code`,
 * `solve_with_code`) and a system prompt that tells the model when to use them. The model may be
 * given later than the agent: without an instance, it is resolved when each model call starts,
 * from the run's `configurable.model`, else the given `"provider:model"`, else the environment
 * (CODEGEN_MODEL, OPENAI_API_KEY, OPENAI_BASE_URL) — so importing a Studio entry calls nothing.
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { createAgent, createMiddleware } from "langchain";
import { readModelSettings } from "../models/configuration.js";
import { resolveChatModel, type ModelSpec } from "../models/resolve-model.js";
import { createCodeGenTool } from "./code-gen-tool.js";
import { GRAPH_OPTION_RULES } from "../graph/shared-nodes.js";
import { checkOptions, rule, textRule, type OptionRules } from "../options/index.js";
import { createCodeInterpreterTool } from "./code-interpreter-tool.js";

/** The system prompt `createCodeAgent` uses unless given another. */
export const CODE_AGENT_SYSTEM_PROMPT = [
  "You are a careful assistant with a code sandbox.",
  "Use execute_code to compute anything exact (arithmetic, dates, string and list work) instead of guessing; print or return the values you need.",
  "Use solve_with_code for a larger task you want written, tested and repaired for you.",
  "Answer with the result, and say briefly how you got it.",
].join("\n");

/** Options of {@link createCodeAgent}. */
export interface CodeAgentOptions {
  /**
   * A chat model instance that supports tool calling, or `"provider:model"`. Default: the run's
   * `configurable.model`, else the environment (CODEGEN_MODEL, OPENAI_API_KEY, OPENAI_BASE_URL).
   * A run's `configurable.model` overrides a string here, never an instance.
   */
  model?: ModelSpec;
  /** Tools for the agent. Default: `execute_code` and `solve_with_code` with their default options. */
  tools?: StructuredToolInterface[];
  /** System prompt. Default {@link CODE_AGENT_SYSTEM_PROMPT}. */
  systemPrompt?: string;
  /** Checkpointer for multi-turn threads (the LangGraph server brings its own). */
  checkpointer?: BaseCheckpointSaver;
  /** Name of the compiled graph. Default `"code-agent"`. */
  name?: string;
  /** Environment read for model settings when a call starts. Default `process.env`. */
  env?: Record<string, string | undefined>;
}

/** The options of `createCodeAgent` and their rules (keys from the interface itself). */
const CODE_AGENT_OPTION_RULES = {
  model: GRAPH_OPTION_RULES.model,
  tools: rule("an array of LangChain tools", Array.isArray),
  systemPrompt: textRule({ what: "a system prompt" }),
  checkpointer: GRAPH_OPTION_RULES.checkpointer,
  name: textRule({ what: "a graph name" }),
  env: GRAPH_OPTION_RULES.env,
} satisfies OptionRules<CodeAgentOptions>;

/**
 * Stands in for the model until the first call resolves the real one (`createAgent` wants a
 * model when it is built; the middleware below replaces this one before every call).
 */
class ModelResolvedPerCall extends BaseChatModel {
  override _llmType(): string {
    return "resolved-per-call";
  }
  override async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    throw new Error("createCodeAgent: the model is resolved by its middleware before each call; this placeholder is never called");
  }
}

/**
 * An agent with a code interpreter, built on `createAgent` from `langchain`: the model calls
 * `execute_code` to run its own JavaScript, TypeScript or Python in the sandbox and
 * `solve_with_code` to hand a task to the code-generation graph, until it answers.
 * Failed runs come back to the model as tool results (status, quoted line, what to try).
 *
 * Throws nothing when built; a missing model configuration surfaces on the first call as a
 * `ModelConfigurationError` naming the variable to set.
 *
 * @example
 * ```ts
 * import { ChatOpenAI } from "@langchain/openai";
 * import { createCodeAgent } from "codegen-sandbox/tools";
 *
 * const agent = createCodeAgent({ model: new ChatOpenAI({ model: "gpt-4o-mini" }) });
 * const state = await agent.invoke({ messages: [{ role: "user", content: "What is 2**64?" }] });
 * ```
 */
export function createCodeAgent(given: CodeAgentOptions = {}) {
  const options = checkOptions<CodeAgentOptions>(given, CODE_AGENT_OPTION_RULES, "createCodeAgent");
  const { model } = options;
  const tools = options.tools ?? [createCodeInterpreterTool(), createCodeGenTool(model === undefined ? {} : { model })];
  const fixed = model !== undefined && typeof model !== "string" ? model : undefined;
  const resolvePerCall = createMiddleware({
    name: "ResolveCodeAgentModel",
    wrapModelCall: async (request, handler) => {
      const configured = (request.runtime.configurable as { model?: unknown } | undefined)?.model;
      const spec = typeof configured === "string" && configured.trim() !== "" ? configured : model;
      const resolved = await resolveChatModel(spec, readModelSettings(options.env ?? process.env));
      return handler({ ...request, model: resolved.model });
    },
  });
  return createAgent({
    model: fixed ?? new ModelResolvedPerCall({}),
    tools,
    systemPrompt: options.systemPrompt ?? CODE_AGENT_SYSTEM_PROMPT,
    middleware: fixed === undefined ? [resolvePerCall] : [],
    name: options.name ?? "code-agent",
    ...(options.checkpointer === undefined ? {} : { checkpointer: options.checkpointer }),
  });
}

/** The agent `createCodeAgent` returns. */
export type CodeAgent = ReturnType<typeof createCodeAgent>;
