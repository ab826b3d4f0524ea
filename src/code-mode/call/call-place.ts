/**
 * Where a call runs, read from its LangGraph runtime: the graph state it sees, the code thread
 * it belongs to, its place among the code calls of its AI message, and the graph's store.
 */
import type { ToolRuntime } from "@langchain/core/tools";
import { AIMessage } from "@langchain/core/messages";
import { getCurrentTaskInput } from "@langchain/langgraph";
import type { CodeModeState } from "../thread/state.js";
import { isGraphStore, type GraphStore } from "../thread/content-store.js";
import { codeDepth, graphScope } from "../tools/graph-task.js";

/** The graph state the tool runs in, or undefined outside a graph. */
export function readState(runtime: Partial<ToolRuntime> | undefined): (CodeModeState & { messages?: unknown[] }) | undefined {
  const fromRuntime = runtime?.state as CodeModeState | undefined;
  if (fromRuntime && typeof fromRuntime === "object") return fromRuntime;
  try {
    return (getCurrentTaskInput() as CodeModeState | undefined) ?? undefined;
  } catch {
    // Called outside a graph (tool.invoke in a script): no thread state.
    return undefined;
  }
}


/** The ids of the code calls of the AI message that made `callId`, in the message's order. */
export function messageOrder(state: { messages?: unknown[] } | undefined, callId: string | undefined, toolName: string): { key: string; order: string[] } | undefined {
  if (!callId || !Array.isArray(state?.messages)) return undefined;
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const m = state.messages[i];
    if (!AIMessage.isInstance(m)) continue;
    const calls = (m.tool_calls ?? []).filter((c) => c.name === toolName && typeof c.id === "string");
    if (calls.some((c) => c.id === callId)) return { key: m.id ?? calls.map((c) => c.id).join(","), order: calls.map((c) => c.id!) };
  }
  return undefined;
}


/**
 * The code thread a call in `config` belongs to: the checkpointer's thread and the graph (or
 * subgraph) it runs in, without the task ids of the namespace, so a subgraph's code state lasts
 * across its runs (any node of that graph gives the same). A graph run inside a tool that code
 * called (a subagent) starts fresh every time: its scope keeps the task ids, so parallel
 * subagents never share (or wait on) one session. Undefined without a thread id.
 */
export function codeThreadOf(config: ToolRuntime["config"] | undefined): string | undefined {
  const rawThread = config?.configurable?.thread_id as string | undefined;
  if (rawThread === undefined) return undefined;
  const namespace = (config?.configurable?.checkpoint_ns as string | undefined) ?? "";
  const graphPath = codeDepth(config) > 0 ? (graphScope(config) ?? "") : namespace.split("|").slice(0, -1).map((part) => part.split(":")[0]).join("|");
  return `${String(rawThread)}\u0000${graphPath}`;
}


/** The graph's LangGraph store, as the tool's config carries it. */
export function graphStoreOf(runtime: Partial<ToolRuntime> | undefined): GraphStore | undefined {
  const store = (runtime as { store?: unknown } | undefined)?.store;
  return isGraphStore(store) ? store : undefined;
}
