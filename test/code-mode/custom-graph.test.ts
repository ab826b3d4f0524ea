/**
 * `persistence: "thread"` in a graph of your own: `codeModeStateFields` beside your channels and
 * a `ToolNode`; the tool reads the thread's state with `getCurrentTaskInput()` and updates it
 * with a `Command`.
 */
import { afterAll, describe, expect, it } from "vitest";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver, MessagesValue, START, END, StateGraph, StateSchema } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { codeModeStateFields } from "../../src/code-mode/thread/state.js";
import { createCodeInterpreterTool } from "../../src/tools/code-interpreter-tool.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const callCode = (id: string, code: string) =>
  new AIMessage({ id, content: "", tool_calls: [{ id: `call-${id}`, name: "execute_code", args: { language: "javascript", code }, type: "tool_call" }] });

describe("code mode state in a custom graph", { timeout: 60_000 }, () => {
  it("keeps definitions and files across runs of a thread", async () => {
    const codeTool = createCodeInterpreterTool({ sandbox, persistence: "thread", languages: ["javascript"] });
    const graph = new StateGraph(new StateSchema({ messages: MessagesValue, ...codeModeStateFields }))
      .addNode("tools", new ToolNode([codeTool]))
      .addEdge(START, "tools")
      .addEdge("tools", END)
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "custom-1" } };
    await graph.invoke({ messages: [callCode("a1", "function area(r) { return 3 * r * r; }\nawait files.write('r.txt', '2')")] }, config);
    const state = await graph.invoke({ messages: [callCode("a2", "area(Number(await files.read('r.txt')))")] }, config);
    const last = state.messages.at(-1) as ToolMessage;
    expect(last.content).toBe("status: success\nresult: 12");
    expect(state.codeCells).toHaveLength(2);
    expect(state.files).toEqual({ "/r.txt": { content: "2", mimeType: "text/plain", created_at: expect.any(String), modified_at: expect.any(String) } });
  });
});
