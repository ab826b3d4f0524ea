import { afterAll, describe, expect, it } from "vitest";
import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createSandbox } from "../../src/sandbox/index.js";
import { createCodeInterpreterTool } from "../../src/tools/index.js";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import { createCodeAgentGraph, graph } from "../../graphs/agent.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

describe("graphs/agent.ts (Studio agent)", () => {
  it("imports without calling a model and exposes both tools", () => {
    const nodes = Object.keys(graph.getGraph().nodes);
    expect(nodes).toEqual(expect.arrayContaining(["agent", "tools"]));
  });

  it("resolves the model at run time from configurable.model and the environment, and runs the tool", async () => {
    const server = await startScriptedOpenAIServer({
      replies: [
        { toolCalls: [{ id: "c1", name: "execute_code", args: { code: "new Date(Date.UTC(2024, 1, 29)).getUTCDay()", language: "javascript" } }] },
        "29 February 2024 was a Thursday (day 4).",
      ],
    });
    try {
      const agent = createCodeAgentGraph({
        env: { OPENAI_BASE_URL: server.baseURL },
        tools: [createCodeInterpreterTool({ sandbox })],
      });
      const state = await agent.invoke(
        { messages: [{ role: "user", content: "Which weekday was 29 Feb 2024?" }] },
        { configurable: { model: "openai:scripted-model" } },
      );
      const messages = state.messages as BaseMessage[];
      expect(String(messages.find((m) => ToolMessage.isInstance(m))!.content)).toBe("status: success\nresult: 4");
      expect(messages.at(-1)!.content).toBe("29 February 2024 was a Thursday (day 4).");
      const first = server.requests[0]!.body as { model: string; messages: { role: string }[]; tools: { function: { name: string } }[] };
      expect(first.model).toBe("scripted-model");
      expect(first.messages[0]!.role).toBe("system");
      expect(first.tools.map((t) => t.function.name)).toEqual(["execute_code"]);
    } finally {
      await server.close();
    }
  });

  it("says which variable to set when no model is configured", async () => {
    const agent = createCodeAgentGraph({ env: {}, tools: [createCodeInterpreterTool({ sandbox })] });
    await expect(agent.invoke({ messages: [{ role: "user", content: "hi" }] })).rejects.toThrow(/OPENAI_API_KEY/);
  });
});
