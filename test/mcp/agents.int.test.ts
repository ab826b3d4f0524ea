/**
 * The MCP server as other agents use it: `@langchain/mcp-adapters`' `MultiServerMCPClient`
 * handing its tools to `createAgent` with a scripted model, and `solve` against the scripted
 * OpenAI-compatible server (progress notifications per step; a clear error without a model).
 */
import { afterAll, describe, expect, it } from "vitest";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createAgent } from "langchain";
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from "../../src/testing/index.js";
import { fakeModel, fence } from "../support/scripted-model.js";
import { DETAILS_NOTE } from "../../src/mcp/tool-context.js";
import { BIN, cleanEnv, root, startStdioServer, structured, textOf, type StdioServer } from "./support.js";

let adapters: MultiServerMCPClient | undefined;
let openai: ScriptedOpenAIServer | undefined;
let solver: StdioServer | undefined;

afterAll(async () => {
  await adapters?.close();
  await solver?.client.close();
  await openai?.close();
});

describe("the MCP server for other agents", { timeout: 90_000 }, () => {
  it("MultiServerMCPClient -> getTools() -> createAgent: a scripted model calls run_code", async () => {
    adapters = new MultiServerMCPClient({
      mcpServers: { sandbox: { transport: "stdio", command: process.execPath, args: [BIN, "mcp"], cwd: root, env: cleanEnv(), stderr: "ignore" } },
    });
    const tools = await adapters.getTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["check_code", "close_session", "open_session", "run_code", "solve"]);
    const model = fakeModel()
      .respondWithTools([{ name: "run_code", args: { language: "javascript", code: "let f = 1;\nfor (let i = 2; i <= 10; i++) f *= i;\nconsole.log(f);" }, id: "c1" }])
      .respond((messages: BaseMessage[]) => {
        const result = messages.find((m) => ToolMessage.isInstance(m)) as ToolMessage;
        return new AIMessage(`10! = ${/stdout:\n(\d+)/.exec(result.text)?.[1]}`);
      });
    const agent = createAgent({ model, tools });
    const state = await agent.invoke({ messages: [{ role: "user", content: "What is 10!?" }] });
    const messages = state.messages as BaseMessage[];
    const toolMessage = messages.find((m) => ToolMessage.isInstance(m)) as ToolMessage;
    // The model reads the facts once: the text blocks, and no JSON of the structured content
    // (mcp-adapters 1.1.4 merges structuredContent into a lone text block; ours has two).
    expect(toolMessage.content).toEqual([
      { type: "text", text: "status: success" },
      { type: "text", text: "stdout:\n3628800" },
    ]);
    expect(JSON.stringify(toolMessage.content)).not.toContain("structuredContent");
    // The structured result is the message's artifact, for code that wants it.
    const artifact = toolMessage.artifact as { type: string; data?: Record<string, unknown> }[];
    expect(artifact.find((a) => a.type === "mcp_structured_content")?.data).toMatchObject({ status: "success", stdout: "3628800\n" });
    expect(messages.at(-1)!.content).toBe("10! = 3628800");
  });

  it("a one-line result reads once too: its second block points at the structured content", async () => {
    const check = (await adapters!.getTools()).find((t) => t.name === "check_code")!;
    const message = (await check.invoke({ type: "tool_call", id: "k1", name: "check_code", args: { language: "javascript", code: "1 + 1" } })) as ToolMessage;
    expect(message.content).toEqual([
      { type: "text", text: "ok: the javascript code parses and imports nothing the sandbox lacks. Run it with run_code." },
      { type: "text", text: DETAILS_NOTE },
    ]);
  });

  it("solve without a model configured is an error that names the variables to set", async () => {
    const solve = (await adapters!.getTools()).find((t) => t.name === "solve")!;
    await expect(solve.invoke({ task: "Print 1" })).rejects.toThrow(/set OPENAI_API_KEY, or OPENAI_BASE_URL/);
  });

  it("solve runs the graph with the model from the environment, with a progress notification per step", async () => {
    openai = await startScriptedOpenAIServer({
      replies: [fence("javascript", "console.log(fact(10));"), fence("javascript", "function fact(n) { return n <= 1 ? 1 : n * fact(n - 1); }\nconsole.log(fact(10));")],
    });
    solver = await startStdioServer([], { OPENAI_BASE_URL: openai.baseURL, CODEGEN_MODEL: "openai:local" });
    const progress: { progress: number; message?: string }[] = [];
    const result = await solver.client.callTool(
      { name: "solve", arguments: { task: "Print the factorial of 10", maxRetries: 1 } },
      undefined,
      { onprogress: (p) => progress.push(p), timeout: 60_000 },
    );
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(structured(result)).toMatchObject({ status: "success", language: "javascript", run: { status: "success", stdout: "3628800\n" } });
    expect(structured(result).attempts.map((a: { status: string }) => a.status)).toEqual(["runtime_error", "success"]);
    expect(textOf(result)).toMatch(/^status: success\nattempts: 2/);
    const messages = progress.map((p) => p.message);
    expect(messages).toContain("[attempt 1] generate: generated");
    expect(messages.some((m) => /^\[attempt 1\] execute: runtime_error \(\d+\.\d ms\) - ReferenceError/.test(m ?? ""))).toBe(true);
    expect(messages.some((m) => /^\[attempt 2\] execute: success/.test(m ?? ""))).toBe(true);
    // The SDK's client handles a notification a microtask late: one that arrives in the same read
    // as the result can miss its handler, so only the order is asserted, not the last step.
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
    expect(openai.requests[0]!.body.model).toBe("local");
  });

  it("solve on a task that says \"a Python program\" writes Python without being told the language (as the CLI's solve)", async () => {
    const python = await startScriptedOpenAIServer({ replies: [fence("python", "import math\nprint(math.factorial(10))")] });
    const server = await startStdioServer([], { OPENAI_BASE_URL: python.baseURL, CODEGEN_MODEL: "openai:local" });
    try {
      const result = await server.client.callTool({ name: "solve", arguments: { task: "Write a Python program that prints the factorial of 10", maxRetries: 0 } }, undefined, { timeout: 60_000 });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(structured(result)).toMatchObject({ status: "success", language: "python", run: { status: "success", stdout: "3628800\n" } });
      // The model was asked for Python.
      expect(JSON.stringify(python.requests[0]!.body)).toMatch(/python/i);
    } finally {
      await server.client.close();
      await python.close();
    }
  });
});
