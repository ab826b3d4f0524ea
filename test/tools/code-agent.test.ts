import { afterAll, describe, expect, it } from "vitest";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createSandbox } from "../../src/sandbox/index.js";
import { createCodeAgent, createCodeInterpreterTool } from "../../src/tools/index.js";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import { graph } from "../../graphs/agent.js";
import { fakeModel } from "../support/scripted-model.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const WEEKDAY = { name: "execute_code", args: { code: "new Date(Date.UTC(2024, 1, 29)).getUTCDay()", language: "javascript" } };

describe("createCodeAgent (createAgent with the sandbox tools)", () => {
  it("graphs/agent.ts builds the agent on import without calling a model", () => {
    const nodes = Object.keys(graph.graph.getGraph().nodes);
    expect(nodes).toEqual(expect.arrayContaining(["model_request", "tools"]));
  });

  it("runs the tool for a model instance and answers", async () => {
    const model = fakeModel()
      .respondWithTools([{ ...WEEKDAY, id: "c1" }])
      .respond(new AIMessage("29 February 2024 was a Thursday."));
    const agent = createCodeAgent({ model, tools: [createCodeInterpreterTool({ sandbox })] });
    const state = await agent.invoke({ messages: [{ role: "user", content: "Which weekday was 29 Feb 2024?" }] });
    const messages = state.messages as BaseMessage[];
    expect(String(messages.find((m) => ToolMessage.isInstance(m))!.content)).toBe("status: success\nresult: 4");
    expect(messages.at(-1)!.content).toBe("29 February 2024 was a Thursday.");
  });

  it("resolves the model at run time from configurable.model and the environment (Chat Completions, system prompt, tools)", async () => {
    const server = await startScriptedOpenAIServer({
      replies: [{ toolCalls: [{ id: "c1", ...WEEKDAY }] }, "29 February 2024 was a Thursday (day 4)."],
    });
    try {
      const agent = createCodeAgent({ env: { OPENAI_BASE_URL: server.baseURL }, tools: [createCodeInterpreterTool({ sandbox })] });
      const state = await agent.invoke(
        { messages: [{ role: "user", content: "Which weekday was 29 Feb 2024?" }] },
        { configurable: { model: "openai:scripted-model" } },
      );
      const messages = state.messages as BaseMessage[];
      expect(String(messages.find((m) => ToolMessage.isInstance(m))!.content)).toBe("status: success\nresult: 4");
      expect(messages.at(-1)!.content).toBe("29 February 2024 was a Thursday (day 4).");
      expect(server.requests.map((r) => r.path)).toEqual(["/v1/chat/completions", "/v1/chat/completions"]);
      const first = server.requests[0]!.body as { model: string; messages: { role: string; content: string }[]; tools: { function: { name: string } }[] };
      expect(first.model).toBe("scripted-model");
      expect(first.messages[0]).toMatchObject({ role: "system" });
      expect(JSON.stringify(first.messages[0]!.content)).toContain("Use execute_code to compute anything exact");
      expect(first.tools.map((t) => t.function.name)).toEqual(["execute_code"]);
    } finally {
      await server.close();
    }
  });

  it("gives both tools by default", async () => {
    const server = await startScriptedOpenAIServer({ replies: ["No tool needed."] });
    try {
      const agent = createCodeAgent({ model: "openai:scripted-model", env: { OPENAI_BASE_URL: server.baseURL } });
      await agent.invoke({ messages: [{ role: "user", content: "hi" }] });
      const tools = (server.requests[0]!.body as { tools: { function: { name: string } }[] }).tools;
      expect(tools.map((t) => t.function.name)).toEqual(["execute_code", "solve_with_code"]);
    } finally {
      await server.close();
    }
  });

  it("says which variable to set when no model is configured", async () => {
    const agent = createCodeAgent({ env: {}, tools: [createCodeInterpreterTool({ sandbox })] });
    await expect(agent.invoke({ messages: [{ role: "user", content: "hi" }] })).rejects.toThrow(/OPENAI_API_KEY/);
  });
});
