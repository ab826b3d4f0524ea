/**
 * The walk of one code-mode call through src/: the second `execute_code` call of a thread
 * (`persistence: "thread"`, a live session, one file written) in a graph of its own (a
 * `ToolNode` over code mode's channels), from `graph.invoke` to the state it leaves. Prints the
 * measures of `recorder.ts`; run with `npx vitest run --config bench/walk/walk.config.ts`.
 */
import { afterAll, expect, it } from "vitest";
import { AIMessage } from "@langchain/core/messages";
import { MemorySaver, MessagesValue, START, END, StateGraph, StateSchema } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { codeModeStateFields, createCodeInterpreterTool } from "../../src/tools/index.js";
import { WalkRecorder } from "./recorder.js";

const recorder = new WalkRecorder();
(globalThis as { __walk?: WalkRecorder }).__walk = recorder;
const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const callCode = (id: string, code: string) =>
  new AIMessage({ id, content: "", tool_calls: [{ id: `call-${id}`, name: "execute_code", args: { language: "javascript", code }, type: "tool_call" }] });

it("measures one code-mode call", async () => {
  const codeTool = createCodeInterpreterTool({ sandbox, persistence: "thread", languages: ["javascript"] });
  const graph = new StateGraph(new StateSchema({ messages: MessagesValue, ...codeModeStateFields }))
    .addNode("tools", new ToolNode([codeTool]))
    .addEdge(START, "tools")
    .addEdge("tools", END)
    .compile({ checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: "walk" } };
  await graph.invoke({ messages: [callCode("a1", "function area(r) { return 3 * r * r; }")] }, config);
  recorder.recording = true;
  const state = await graph.invoke({ messages: [callCode("a2", "await files.write('a.txt', String(area(2)))")] }, config);
  recorder.recording = false;
  expect((state.files["/a.txt"] as { content?: string } | undefined)?.content).toBe("12");
  const measures = recorder.measures();
  console.log(`walk: ${JSON.stringify(measures)}`);
  console.log(`path: ${recorder.active.join(" > ")}`);
  expect(measures.files).toBeGreaterThan(3);
});
