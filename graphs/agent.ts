/**
 * An agent with a code interpreter, for LangGraph Studio and `langgraph dev` (see
 * langgraph.json): a chat model that can call `execute_code` (run its own code) and
 * `solve_with_code` (hand a task to the code-generation graph).
 *
 * Nothing is called on import: the model is resolved when a run starts, from the run's
 * `configurable.model`, else CODEGEN_MODEL / OPENAI_API_KEY / OPENAI_BASE_URL.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { SystemMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { END, MessagesAnnotation, START, StateGraph, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { InvalidOptionError } from "../src/errors.js";
import { readModelSettings, resolveChatModel, type ModelSpec } from "../src/models/index.js";
import { createCodeGenTool, createCodeInterpreterTool } from "../src/tools/index.js";

/** System prompt of the Studio agent. */
export const AGENT_SYSTEM_PROMPT = [
  "You are a careful assistant with a code sandbox.",
  "Use execute_code to compute anything exact (arithmetic, dates, string and list work) instead of guessing; print or return the values you need.",
  "Use solve_with_code for a larger task you want written, tested and repaired for you.",
  "Answer with the result, and say briefly how you got it.",
].join("\n");

/** Options of `createCodeAgentGraph`. */
export interface CodeAgentGraphOptions {
  /** Model instance or "provider:model"; default: `configurable.model`, else the environment. */
  model?: ModelSpec;
  /** Tools; default `execute_code` and `solve_with_code` with their default options. */
  tools?: StructuredToolInterface[];
  /** Environment read for model settings at run time. Default `process.env`. */
  env?: Record<string, string | undefined>;
}

/**
 * Builds the agent graph: `agent` (the model, tools bound) ⇄ `tools` until the model answers.
 *
 * @example
 * ```ts
 * const agent = createCodeAgentGraph({ model: new ChatOpenAI({ model: "gpt-4o-mini" }) });
 * await agent.invoke({ messages: [{ role: "user", content: "What is 2**64?" }] });
 * ```
 */
export function createCodeAgentGraph(options: CodeAgentGraphOptions = {}) {
  const tools = options.tools ?? [createCodeInterpreterTool(), createCodeGenTool({ model: options.model })];

  async function callModel(state: typeof MessagesAnnotation.State, config: LangGraphRunnableConfig) {
    const configured = (config.configurable as { model?: string } | undefined)?.model;
    const spec = configured ?? options.model;
    const { model, name } = await resolveChatModel(spec, readModelSettings(options.env ?? process.env));
    const chat = model as BaseChatModel;
    if (typeof chat.bindTools !== "function") {
      throw new InvalidOptionError("model", name, "a chat model that supports tool calling (bindTools)");
    }
    const bound = chat.bindTools(tools);
    const reply = await bound.invoke([new SystemMessage(AGENT_SYSTEM_PROMPT), ...state.messages], config);
    return { messages: [reply] };
  }

  return new StateGraph(MessagesAnnotation)
    .addNode("agent", callModel)
    .addNode("tools", new ToolNode(tools))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, { tools: "tools", [END]: END })
    .addEdge("tools", "agent")
    .compile({ name: "code-agent" });
}

/** The agent for Studio; the server adds its own checkpointer. */
export const graph = createCodeAgentGraph();
