/**
 * `codeModeMiddleware` in `createAgent`: the code tool is added, the system prompt gets the code
 * mode section with the tool signatures (once: the tool description points to it), and the state
 * has the `files` and `codeCells` channels.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import { codeInterpreterRunner, disposeCodeInterpreterTool } from "../../src/tools/code-interpreter-tool.js";
import { scriptedCodeModel } from "./helpers.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const lookup = tool(async ({ id }) => ({ id, name: `item ${id}` }), {
  name: "lookup_item",
  description: "Looks an item up by id.",
  schema: z.object({ id: z.number().int().describe("Item id") }),
});

describe("codeModeMiddleware", { timeout: 60_000 }, () => {
  it("adds the tool, the prompt section with signatures and the state channels", async () => {
    const model = scriptedCodeModel({ code: "const items = [];\nfor (const id of [1, 2]) items.push((await lookup_one(id)).name);\nasync function lookup_one(id) { return tools.lookup_item({ id }); }\nitems" }, "two items");
    const middleware = codeModeMiddleware({ sandbox, tools: [lookup], languages: ["javascript"] });
    const agent = createAgent({
      model,
      systemPrompt: "You are a shop assistant.",
      middleware: [middleware],
      checkpointer: new MemorySaver(),
    });
    const state = await agent.invoke({ messages: [{ role: "user", content: "Names of items 1 and 2?" }] }, { configurable: { thread_id: "mw-1" } });
    const system = String(model.calls[0]!.messages[0]!.content);
    expect(system.startsWith("You are a shop assistant.\n\n## Code mode")).toBe(true);
    expect(system).toContain("lookup_item(input: LookupItemInput): Promise<unknown>;");
    expect(system).toMatch(/interface LookupItemInput \{[\s\S]*id: number/);
    expect(system).toContain("State: functions, variables, classes and Python imports defined at the top level");
    const codeTool = (middleware.tools ?? []).find((t) => t.name === "execute_code") as { description: string } | undefined;
    expect(codeTool).toBeDefined();
    expect(codeTool!.description).toContain("listed in the system prompt");
    expect(codeTool!.description).not.toContain("LookupItemInput");
    expect(state.messages.at(-2)!.content).toBe('status: success\nresult: ["item 1","item 2"]');
    expect(state.codeCells).toHaveLength(1);
    expect(state.files).toEqual({});
    // The thread's live session stays in this process until disposed (or evicted).
    expect(codeInterpreterRunner(codeTool!)?.liveSessions).toBe(1);
    await disposeCodeInterpreterTool(codeTool!);
    expect(codeInterpreterRunner(codeTool!)?.liveSessions).toBe(0);
  });
});
