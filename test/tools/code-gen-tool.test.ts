import { afterAll, describe, expect, it } from "vitest";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createAgent } from "langchain";
import { createSandbox } from "../../src/sandbox/index.js";
import { createCodeGenTool, formatSolutionForModel, type SolveWithCodeArtifact } from "../../src/tools/code-gen-tool.js";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import { scriptedOpenAIModel } from "../support/scripted-model.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const FACTORIAL = "```javascript\nlet f = 1;\nfor (let i = 2; i <= 10; i++) f *= i;\nconsole.log(f);\n```";

function solveCall(args: Record<string, unknown>, id = "call_1") {
  return { name: "solve_with_code", args, id, type: "tool_call" as const };
}

describe("solve_with_code tool (real graph and sandbox, scripted model)", () => {
  it("runs the graph and returns status, code, output; the artifact is the final state", async () => {
    const coder = fakeModel().respond(new AIMessage(FACTORIAL));
    const solve = createCodeGenTool({ model: coder, sandbox });
    const message = (await solve.invoke(solveCall({ task: "Calculate the factorial of 10 and print it" }))) as ToolMessage;
    const text = String(message.content);
    expect(text).toMatch(/^status: success\nattempts: 1\n/);
    expect(text).toContain("stdout:\n3628800");
    expect(text).toContain("final code:\n```javascript\nlet f = 1;");
    const state = message.artifact as SolveWithCodeArtifact;
    expect(state.status).toBe("success");
    expect(state.result?.stdout).toBe("3628800\n");
    // The task reached the coding model.
    expect(String(coder.calls[0]!.messages.at(-1)!.content)).toContain("Calculate the factorial of 10");
  });

  it("passes language, details and tests to the graph, which repairs a failing first attempt", async () => {
    const coder = fakeModel()
      .respond(new AIMessage("```typescript\nfunction mean(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0) / xs.lenght;\n}\n```"))
      .respond(new AIMessage("```typescript\nfunction mean(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0) / xs.length;\n}\n```"));
    const solve = createCodeGenTool({ model: coder, sandbox, languages: ["javascript", "typescript"] });
    const tests = "if (mean([1, 2, 3]) !== 2) throw new Error('mean([1, 2, 3]) should be 2');";
    const message = (await solve.invoke(
      solveCall({ task: "Write mean(xs)", language: "typescript", details: "xs is a non-empty array of numbers", tests }),
    )) as ToolMessage;
    expect(String(message.content)).toMatch(/^status: success\nattempts: 2/);
    const firstPrompt = String(coder.calls[0]!.messages.at(-1)!.content);
    expect(firstPrompt).toContain("xs is a non-empty array of numbers");
    expect(firstPrompt).toContain("mean([1, 2, 3]) should be 2");
    expect((message.artifact as SolveWithCodeArtifact).result?.language).toBe("typescript");
  });

  it("a task the graph cannot solve is a normal result with the explanation", async () => {
    const coder = fakeModel()
      .respond(new AIMessage("```js\nconsole.log(undefinedThing);\n```"))
      .respond(new AIMessage("```js\nconsole.log(stillUndefined);\n```"));
    const solve = createCodeGenTool({ model: coder, sandbox, maxRetries: 1 });
    const message = (await solve.invoke(solveCall({ task: "Print something" }))) as ToolMessage;
    const text = String(message.content);
    expect(text).toMatch(/^status: failed\nattempts: 2\nexplanation: /);
    expect(text).toContain("ReferenceError");
    expect((message.artifact as SolveWithCodeArtifact).attempts).toHaveLength(2);
  });

  it("shrinks the language enum, checks its options and rejects bad arguments", async () => {
    const solve = createCodeGenTool({ model: fakeModel(), sandbox, languages: ["python", "javascript"] });
    await expect(solve.invoke({ task: "x", language: "typescript" } as never)).rejects.toThrow(/did not match expected schema/);
    await expect(solve.invoke({ task: "" } as never)).rejects.toThrow(/did not match expected schema/);
    expect(solve.description).toContain("languages: javascript, python; default: the one the task names, else javascript");
    expect(() => createCodeGenTool({ languages: ["javascript"], defaultLanguage: "python" })).toThrow(/Invalid option "defaultLanguage"/);
    expect(() => createCodeGenTool({ maxRetries: -1 })).toThrow(/Invalid option "maxRetries"/);
  });

  it("without language, the task's words choose among the allowed languages (as the CLI's and MCP's solve), else the default", async () => {
    const seen: unknown[] = [];
    const graph = { invoke: async (input: { language?: string }) => (seen.push(input.language), { status: "solved", attempts: [] }) };
    const solve = createCodeGenTool({ graph: graph as never, languages: ["javascript", "python"] });
    await solve.invoke({ task: "Write a Python program that prints 1" });
    await solve.invoke({ task: "Print 1" });
    await solve.invoke({ task: "Write a TypeScript function" });
    await solve.invoke({ task: "Write a Python program", language: "javascript" });
    expect(seen).toEqual(["python", "javascript", "javascript", "javascript"]);
  });

  it("formatSolutionForModel stays within its bound", () => {
    const long = "x".repeat(50_000);
    const text = formatSolutionForModel(
      { status: "success", code: long, attempts: [{}], result: { status: "success", stdout: long, stderr: "", outputTruncated: false, durationMs: 1, language: "javascript" } },
      { maxChars: 1500 },
    );
    expect(text.length).toBeLessThanOrEqual(1500);
    expect(text).toContain("final code:");
  });
});

describe("solve_with_code in agents", () => {
  it("createAgent: the agent hands over the task and answers with the program's output; custom events stream through", async () => {
    const coder = fakeModel().respond(new AIMessage(FACTORIAL));
    const solve = createCodeGenTool({ model: coder, sandbox });
    const agentModel = fakeModel()
      .respondWithTools([{ name: "solve_with_code", args: { task: "Factorial of 10" }, id: "s1" }])
      .respond((messages) => {
        const result = String(messages.find((m) => ToolMessage.isInstance(m))?.content);
        return new AIMessage(`10! = ${/stdout:\n(\d+)/.exec(result)![1]}`);
      });
    const agent = createAgent({ model: agentModel, tools: [solve], checkpointer: new MemorySaver() });
    const custom: unknown[] = [];
    let last: unknown;
    for await (const [mode, chunk] of await agent.stream(
      { messages: [{ role: "user", content: "What is 10 factorial?" }] },
      { streamMode: ["custom", "values"], configurable: { thread_id: "t1" } },
    )) {
      if (mode === "custom") custom.push(chunk);
      else last = chunk;
    }
    const messages = (last as { messages: AIMessage[] }).messages;
    expect(messages.at(-1)!.content).toBe("10! = 3628800");
    // The nested graph's node events reached the agent's stream: streaming keys of the caller's config are forwarded.
    expect(custom).toContainEqual(expect.objectContaining({ type: "codegen", node: "execute", status: "success" }));
  });

  it("createReactAgent runs the same tool", async () => {
    const coder = fakeModel().respond(new AIMessage("```js\n[1, 2, 3].map((x) => x * x).reduce((a, b) => a + b, 0)\n```"));
    const solve = createCodeGenTool({ model: coder, sandbox });
    const agentModel = fakeModel()
      .respondWithTools([{ name: "solve_with_code", args: { task: "Sum of squares of 1..3", language: "javascript" }, id: "s1" }])
      .respond(new AIMessage("14"));
    const agent = createReactAgent({ llm: agentModel, tools: [solve] });
    const state = await agent.invoke({ messages: [{ role: "user", content: "Sum of squares 1..3?" }] });
    const toolMessage = state.messages.find((m) => ToolMessage.isInstance(m)) as ToolMessage;
    expect(String(toolMessage.content)).toContain("result: 14");
    expect(state.messages.at(-1)!.content).toBe("14");
  });

  it("the nested graph keeps its own model unless inheritRunSettings: the agent's configurable.model is the agent's", async () => {
    const server = await startScriptedOpenAIServer({ replies: ["```js\nconsole.log('ok')\n```", "```js\nconsole.log('ok')\n```"] });
    try {
      const run = async (inheritRunSettings: boolean) => {
        // No model option: the graph resolves one at run time from its settings and env.
        const solve = createCodeGenTool({ sandbox, env: { OPENAI_BASE_URL: server.baseURL, CODEGEN_MODEL: "openai:coder-own" }, inheritRunSettings });
        const agentModel = fakeModel()
          .respondWithTools([{ name: "solve_with_code", args: { task: "Print ok" }, id: "s1" }])
          .respond(new AIMessage("done"));
        const agent = createAgent({ model: agentModel, tools: [solve] });
        await agent.invoke({ messages: [{ role: "user", content: "go" }] }, { configurable: { model: "openai:agent-model" } });
        return (server.requests.at(-1)!.body as { model: string }).model;
      };
      expect(await run(false)).toBe("coder-own");
      expect(await run(true)).toBe("agent-model");
    } finally {
      await server.close();
    }
  });

  it("runs maxRetries: 8 inside an agent whose recursionLimit is LangGraph's default 25", async () => {
    const bad = new AIMessage("```js\nthrow new Error('broken')\n```");
    let coder = fakeModel();
    for (let i = 0; i < 8; i++) coder = coder.respond(bad);
    coder = coder.respond(new AIMessage("```js\nconsole.log('fixed')\n```"));
    // One candidate per round: each scripted reply is one round.
    const solve = createCodeGenTool({ model: coder, sandbox, maxRetries: 8, repair: { samples: 1 } });
    const agentModel = fakeModel()
      .respondWithTools([{ name: "solve_with_code", args: { task: "Fix it" }, id: "s1" }])
      .respond(new AIMessage("done"));
    const agent = createAgent({ model: agentModel, tools: [solve] });
    const state = await agent.invoke({ messages: [{ role: "user", content: "go" }] }, { recursionLimit: 25 });
    const toolMessage = state.messages.find((m) => ToolMessage.isInstance(m)) as ToolMessage;
    expect(String(toolMessage.content)).toMatch(/^status: success\nattempts: 9\n/);
    expect(coder.callCount).toBe(9);
  });

  it("createAgent with the real ChatOpenAI (agent and coder) against the scripted server", async () => {
    const server = await startScriptedOpenAIServer({
      replies: [
        { toolCalls: [{ id: "call_s", name: "solve_with_code", args: { task: "Count the vowels in 'hello world'" } }] },
        "```javascript\nconsole.log([...'hello world'].filter((c) => 'aeiou'.includes(c)).length);\n```",
        "There are 3 vowels.",
      ],
    });
    try {
      const model = scriptedOpenAIModel(server.baseURL);
      const solve = createCodeGenTool({ model, sandbox });
      const agent = createAgent({ model, tools: [solve] });
      const state = await agent.invoke({ messages: [{ role: "user", content: "How many vowels in 'hello world'?" }] });
      expect(state.messages.at(-1)!.content).toBe("There are 3 vowels.");
      const toolMessage = state.messages.find((m) => ToolMessage.isInstance(m)) as ToolMessage;
      expect(String(toolMessage.content)).toContain("stdout:\n3");
      expect(server.requests).toHaveLength(3);
    } finally {
      await server.close();
    }
  });
});
