/**
 * The LangGraph task internals code mode relies on for tool calls from code (`__pregel_send`,
 * `__pregel_read`, `__pregel_scratchpad`, `checkpoint_ns`): if a LangGraph release changes them,
 * these tests fail before any agent does.
 */
import { describe, expect, it } from "vitest";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import type { RunnableConfig } from "@langchain/core/runnables";
import { MemorySaver, ReducedValue, StateGraph, StateSchema, interrupt, isGraphInterrupt } from "@langchain/langgraph";
import { z } from "zod";
import { canSendWrites, childToolConfig, codeDepth, freshState, graphScope, sendWrites, taskInput } from "../../src/code-mode/tools/graph-task.js";

const State = new StateSchema({
  items: new ReducedValue(z.array(z.string()).default(() => []), { reducer: (a: string[], b: string[]) => [...a, ...b] }),
  seen: z.array(z.string()).optional(),
});

describe("the graph task of a tool call from code", () => {
  it("sends writes as the task's own, reads them fresh through the reducer, and scopes the root as ''", async () => {
    const observed: Record<string, unknown> = {};
    const graph = new StateGraph(State)
      .addNode("work", async (_state, config: RunnableConfig) => {
        observed.canSend = canSendWrites(config);
        observed.scope = graphScope(config);
        observed.input = taskInput(config)?.items;
        sendWrites(config, [["items", ["from-code"]]]);
        observed.fresh = freshState(config, { items: ["stale"] }, ["items"]).items;
        return { seen: ["done"] };
      })
      .addEdge("__start__", "work")
      .compile();
    const out = await graph.invoke({ items: ["start"] });
    expect(out.items).toEqual(["start", "from-code"]);
    expect(observed).toEqual({ canSend: true, scope: "", input: ["start"], fresh: ["start", "from-code"] });
    expect(canSendWrites({})).toBe(false);
    expect(graphScope({})).toBeUndefined();
  });

  it("a child config isolates interrupts (no resume value taken, the task's counter untouched) and shares the subgraph counter", async () => {
    const observed: Record<string, unknown> = {};
    const graph = new StateGraph(State)
      .addNode("work", async (_state, config: RunnableConfig) => {
        const real = (config.configurable as Record<string, { interruptCounter: number; subgraphCounter: number }>).__pregel_scratchpad!;
        const child = childToolConfig(config, { toolCallId: "c/tools.x/1", name: "x", args: {}, state: { items: ["view"] }, signal: undefined });
        const childPad = (child.configurable as Record<string, { subgraphCounter: number; currentTaskInput: unknown }>).__pregel_scratchpad!;
        try {
          await AsyncLocalStorageProviderSingleton.runWithConfig(child, async () => interrupt("approve?"));
        } catch (error) {
          observed.interrupted = isGraphInterrupt(error);
        }
        observed.realCounter = real.interruptCounter;
        childPad.subgraphCounter += 1;
        observed.sharedSubgraphs = real.subgraphCounter;
        observed.childState = childPad.currentTaskInput;
        observed.depth = [codeDepth(config), codeDepth(child)];
        observed.toolCall = (child as { toolCall?: { id: string } }).toolCall?.id;
        return { seen: ["ok"] };
      })
      .addEdge("__start__", "work")
      .compile({ checkpointer: new MemorySaver() });
    await graph.invoke({ items: [] }, { configurable: { thread_id: "isolation" } });
    expect(observed).toEqual({ interrupted: true, realCounter: -1, sharedSubgraphs: 1, childState: { items: ["view"] }, depth: [0, 1], toolCall: "c/tools.x/1" });
  });
});
