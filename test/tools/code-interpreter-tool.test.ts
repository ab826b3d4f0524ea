import { afterAll, describe, expect, it } from "vitest";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent } from "langchain";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createSandbox } from "../../src/sandbox/index.js";
import { createCodeInterpreterTool, type ExecuteCodeArtifact } from "../../src/tools/code-interpreter-tool.js";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import { scriptedOpenAIModel } from "../support/scripted-model.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

function toolCall(args: Record<string, unknown>, id = "call_1") {
  return { name: "execute_code", args, id, type: "tool_call" as const };
}

describe("execute_code tool (real sandbox)", () => {
  const interpreter = createCodeInterpreterTool({ sandbox, timeoutMs: 2000 });

  it("runs code and returns bounded text plus the full record as artifact", async () => {
    const message = (await interpreter.invoke(
      toolCall({ code: "let f = 1;\nfor (let i = 2; i <= 10; i++) f *= i;\nconsole.log(f);\nf", language: "javascript" }),
    )) as ToolMessage;
    expect(message).toBeInstanceOf(ToolMessage);
    expect(message.content).toBe("status: success\nstdout:\n3628800\nresult: 3628800");
    const artifact = message.artifact as ExecuteCodeArtifact;
    expect(artifact.result.status).toBe("success");
    expect(artifact.result.stdout).toBe("3628800\n");
    expect(artifact.language).toBe("javascript");
  });

  it("returns a failed run as a normal result with the line and a hint", async () => {
    const code = "const xs = [1, 2, 3];\nconst total = xs.reduce((a, b) => a + b, 0);\nconsole.log(totl);";
    const message = (await interpreter.invoke(toolCall({ code, language: "typescript" }))) as ToolMessage;
    const text = String(message.content);
    expect(text).toMatch(/^status: runtime_error/);
    expect(text).toContain("error: ReferenceError");
    expect(text).toContain("(line 3)");
    expect(text).toContain("  3 | console.log(totl);");
    expect(text).toContain("hint: Fix the cause on that line");
    expect((message.artifact as ExecuteCodeArtifact).result.error?.line).toBe(3);
  });

  it("applies the tool's limits and bounds the content", async () => {
    const loop = (await interpreter.invoke(toolCall({ code: "while (true) {}", language: "javascript" }))) as ToolMessage;
    expect(String(loop.content)).toMatch(/^status: timeout/);
    const chatty = createCodeInterpreterTool({ sandbox, maxContentChars: 500 });
    const flood = (await chatty.invoke(toolCall({ code: "for (let i = 0; i < 5000; i++) console.log('line ' + i);", language: "javascript" }))) as ToolMessage;
    expect(String(flood.content).length).toBeLessThanOrEqual(500);
    expect(String(flood.content)).toContain("more characters cut");
    expect((flood.artifact as ExecuteCodeArtifact).result.stdout.length).toBeGreaterThan(40_000);
  });

  it("passes globals and host functions through (JavaScript)", async () => {
    const withHost = createCodeInterpreterTool({
      sandbox,
      globals: { rate: 0.5 },
      hostFunctions: { lookupPrice: (item) => (item === "apple" ? 3 : 0) },
    });
    expect(withHost.description).toContain("lookupPrice");
    const message = (await withHost.invoke(toolCall({ code: "(await lookupPrice('apple')) * (1 + rate)", language: "javascript" }))) as ToolMessage;
    expect(String(message.content)).toContain("result: 4.5");
  });

  it("shrinks the language enum to the allowed languages and rejects bad arguments via the schema", async () => {
    const jsOnly = createCodeInterpreterTool({ sandbox, languages: ["javascript"] });
    await expect(jsOnly.invoke({ code: "print(1)", language: "python" } as never)).rejects.toThrow(/did not match expected schema/);
    await expect(jsOnly.invoke({ language: "javascript" } as never)).rejects.toThrow(/did not match expected schema/);
    expect(jsOnly.description).toContain("Languages: javascript.");
    expect(() => createCodeInterpreterTool({ languages: [] })).toThrow(/Invalid option "languages"/);
    expect(() => createCodeInterpreterTool({ languages: ["ruby" as never] })).toThrow(/Invalid option "languages\[0\]": got "ruby"; expected one of "javascript"/);
    expect(() => createCodeInterpreterTool({ timeoutMs: -5 })).toThrow(/Invalid option "timeoutMs"/);
  });

  it("uses the shared sandbox (runCode) when none is given", async () => {
    const defaultTool = createCodeInterpreterTool();
    const message = (await defaultTool.invoke(toolCall({ code: "[1, 2, 3].map((x) => x * 2)", language: "javascript" }))) as ToolMessage;
    expect(String(message.content)).toBe("status: success\nresult: [2,4,6]");
  });
});

describe("execute_code in agents", () => {
  const interpreter = createCodeInterpreterTool({ sandbox, languages: ["javascript", "typescript"] });

  it("createAgent: the model calls the tool, sees the result and answers with it", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "execute_code", args: { code: "2 ** 40", language: "javascript" }, id: "c1" }])
      .respond((messages) => {
        const result = messages.find((m) => ToolMessage.isInstance(m));
        return new AIMessage(`The answer is ${String(result?.content).split("result: ")[1]}.`);
      });
    const agent = createAgent({ model, tools: [interpreter] });
    const state = await agent.invoke({ messages: [{ role: "user", content: "What is 2 to the 40th?" }] });
    const toolMessage = state.messages.find((m) => ToolMessage.isInstance(m)) as ToolMessage;
    expect(toolMessage.content).toBe("status: success\nresult: 1099511627776");
    expect((toolMessage.artifact as ExecuteCodeArtifact).result.result).toBe(1099511627776);
    expect(state.messages.at(-1)!.content).toBe("The answer is 1099511627776.");
    expect(model.callCount).toBe(2);
  });

  it("createAgent: a failing run goes back to the model, which fixes its code", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "execute_code", args: { code: "const n = 5;\nn.toFixed(-1)", language: "javascript" }, id: "c1" }])
      .respondWithTools([{ name: "execute_code", args: { code: "const n = 5;\nn.toFixed(1)", language: "javascript" }, id: "c2" }])
      .respond(new AIMessage("5.0"));
    const agent = createAgent({ model, tools: [interpreter] });
    const state = await agent.invoke({ messages: [{ role: "user", content: "Format 5 with one decimal" }] });
    const results = state.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => String(m.content));
    expect(results[0]).toMatch(/^status: runtime_error[\s\S]*RangeError/);
    expect(results[1]).toBe('status: success\nresult: "5.0"');
    // The second model call saw the error text.
    expect(String(model.calls[1]!.messages.at(-1)!.content)).toContain("RangeError");
  });

  it("createAgent: arguments that fail the schema come back to the model as an error message", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "execute_code", args: { code: "1", language: "python" }, id: "c1" }])
      .respond(new AIMessage("Python is not allowed here."));
    const agent = createAgent({ model, tools: [interpreter] });
    const state = await agent.invoke({ messages: [{ role: "user", content: "run python" }] });
    const toolMessage = state.messages.find((m) => ToolMessage.isInstance(m)) as ToolMessage;
    expect(toolMessage.status).toBe("error");
    expect(String(toolMessage.content)).toMatch(/language/);
  });

  it("createReactAgent (deprecated, still supported) runs the same tool", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "execute_code", args: { code: "const s: string = 'abc';\ns.split('').reverse().join('')", language: "typescript" }, id: "c1" }])
      .respond(new AIMessage("cba"));
    const agent = createReactAgent({ llm: model, tools: [interpreter] });
    const state = await agent.invoke({ messages: [{ role: "user", content: "Reverse abc" }] });
    const toolMessage = state.messages.find((m) => ToolMessage.isInstance(m)) as ToolMessage;
    expect(toolMessage.content).toBe('status: success\nresult: "cba"');
    expect(state.messages.at(-1)!.content).toBe("cba");
  });

  it("createAgent with the real ChatOpenAI against the scripted OpenAI-compatible server", async () => {
    const server = await startScriptedOpenAIServer({
      replies: [
        { toolCalls: [{ id: "call_a", name: "execute_code", args: { code: "console.log([3, 1, 2].sort().join(','))", language: "javascript" } }] },
        "Sorted: 1,2,3",
      ],
    });
    try {
      const model = scriptedOpenAIModel(server.baseURL);
      const agent = createAgent({ model, tools: [interpreter] });
      const state = await agent.invoke({ messages: [{ role: "user", content: "Sort 3,1,2" }] });
      expect(state.messages.at(-1)!.content).toBe("Sorted: 1,2,3");
      // The model's tool schema and the tool result both went over the wire.
      const first = server.requests[0]!.body as { tools: { function: { name: string; parameters: { properties: { language: { enum: string[] } } } } }[] };
      expect(first.tools[0]!.function.name).toBe("execute_code");
      expect(first.tools[0]!.function.parameters.properties.language.enum).toEqual(["javascript", "typescript"]);
      const second = server.requests[1]!.body as { messages: { role: string; content: string }[] };
      expect(second.messages.find((m) => m.role === "tool")!.content).toBe("status: success\nstdout:\n1,2,3");
    } finally {
      await server.close();
    }
  });
});
