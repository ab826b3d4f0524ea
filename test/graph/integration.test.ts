import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createCodeGenGraph } from "../../src/graph/index.js";
import type { CodeGenEvent } from "../../src/graph/index.js";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import type { ScriptedOpenAIServer } from "../../src/testing/index.js";
import { disposeDefaultSandbox } from "../../src/sandbox/index.js";
import { ModelConfigurationError } from "../../src/models/index.js";
import { fence, scriptedOpenAIModel } from "../support/scripted-model.js";

let server: ScriptedOpenAIServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  await disposeDefaultSandbox();
});

describe("the graph through the real ChatOpenAI client and a local OpenAI-compatible server", () => {
  it("repairs a bug (non-streaming) and counts tokens per attempt", async () => {
    server = await startScriptedOpenAIServer({
      replies: [
        { content: "Here it is:\n" + fence("javascript", "const evens = [];\nfor (let i = 1; i <= 20; i++) if (i % 2 === 0) evens.push(i);\nconsole.log(evens.map((x) => x * x).sum());"), usage: { promptTokens: 300, completionTokens: 40 } },
        { content: fence("javascript", "let total = 0;\nfor (let i = 2; i <= 20; i += 2) total += i * i;\nconsole.log(total);"), usage: { promptTokens: 420, completionTokens: 30 } },
      ],
    });
    const model = scriptedOpenAIModel(server.baseURL);
    const state = await createCodeGenGraph({ model }).invoke({ task: "Sum of squared even numbers from 1 to 20" });
    expect(state.status).toBe("success");
    expect(state.result?.stdout.trim()).toBe("1540");
    expect(state.attempts.map((a) => [a.status, a.inputTokens, a.outputTokens])).toEqual([
      ["runtime_error", 300, 40],
      ["success", 420, 30],
    ]);
    expect(server.requests).toHaveLength(2);
    const refineMessages = server.requests[1].body.messages as { role: string; content: string }[];
    expect(refineMessages[0].role).toBe("system");
    expect(refineMessages[0].content).toMatch(/no timers/);
    expect(refineMessages[1].content).toMatch(/TypeError/);
    expect(refineMessages[1].content).toContain("console.log(evens.map((x) => x * x).sum());");
  });

  it("streams custom events and messages, with the model resolved from the environment at run time", async () => {
    server = await startScriptedOpenAIServer({ replies: [fence("python", "print(sum(i * i for i in range(2, 21, 2)))")] });
    server.enqueue(fence("js", "console.log([2,4,6,8,10,12,14,16,18,20].reduce((a, n) => a + n * n, 0))"));
    // The graph is built before the environment names a server: resolution happens per run.
    const env: Record<string, string | undefined> = {};
    const graph = createCodeGenGraph({ env, modelRetry: { sleep: async () => {} } });
    env.OPENAI_BASE_URL = server.baseURL;
    env.CODEGEN_MODEL = "openai:local-coder";
    const events: CodeGenEvent[] = [];
    let tokens = 0;
    const stream = await graph.stream(
      { task: "Sum of squared even numbers from 1 to 20", language: "javascript" },
      { streamMode: ["custom", "messages", "values"] },
    );
    let last: { status?: string; result?: { stdout: string } } | undefined;
    for await (const [mode, chunk] of stream) {
      if (mode === "custom") events.push(chunk as CodeGenEvent);
      if (mode === "messages") tokens++;
      if (mode === "values") last = chunk as typeof last;
    }
    expect(server.requests[0].body.model).toBe("local-coder");
    // A python block for a JavaScript task is never taken: no program, and the model is told why.
    expect(events.filter((e) => e.node === "validate").map((e) => e.status)).toEqual(["no_program", "valid"]);
    expect(last?.status).toBe("success");
    expect(last?.result?.stdout.trim()).toBe("1540");
    expect(tokens).toBeGreaterThan(0);
  });

  it("streams the model's tokens from the server (streamMode messages) and reads usage from the stream", async () => {
    const reply = fence("js", "console.log('streamed')");
    server = await startScriptedOpenAIServer({ replies: [{ content: reply, usage: { promptTokens: 77, completionTokens: 11 } }] });
    // `streaming: true` is not set: with it, ChatOpenAI's invoke estimates tokens with tiktoken, which downloads its tables.
    const model = scriptedOpenAIModel(server.baseURL);
    let text = "";
    let final: { status?: string; result?: { stdout: string }; attempts?: { inputTokens: number; outputTokens: number }[] } | undefined;
    for await (const [mode, chunk] of await createCodeGenGraph({ model }).stream({ task: "Print streamed" }, { streamMode: ["messages", "values"] })) {
      if (mode === "messages") text += String((chunk as [{ content: unknown }, unknown])[0].content);
      else final = chunk as typeof final;
    }
    expect(server.requests[0].body.stream).toBe(true);
    expect(server.requests[0].body.stream_options).toEqual({ include_usage: true });
    expect(text).toBe(reply);
    expect(final?.status).toBe("success");
    expect(final?.result?.stdout.trim()).toBe("streamed");
    expect(final?.attempts?.[0]).toMatchObject({ inputTokens: 77, outputTokens: 11 });
  });

  it("retries a 429 from the server and names the server when it stays unreachable", async () => {
    server = await startScriptedOpenAIServer({ replies: [{ status: 429, message: "Rate limit reached" }, fence("js", "console.log(1)")] });
    const env = { OPENAI_BASE_URL: server.baseURL, CODEGEN_MODEL: "openai:m" };
    const ok = await createCodeGenGraph({ env, modelRetry: { sleep: async () => {} } }).invoke({ task: "Print 1" });
    expect(ok.status).toBe("success");
    expect(server.requests).toHaveLength(2);

    const down = await createCodeGenGraph({ env: { OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }, modelRetry: { sleep: async () => {}, maxRetries: 1 } }).invoke({
      task: "Print 1",
    });
    expect(down.status).toBe("failed");
    expect(down.explanation).toMatch(/Could not reach the model server at http:\/\/127\.0\.0\.1:9\/v1.*OPENAI_BASE_URL/);
  });

  it("retries a model call that timed out", async () => {
    server = await startScriptedOpenAIServer({ replies: [{ content: "too late", delayMs: 2000 }, fence("js", "console.log('in time')")] });
    const model = scriptedOpenAIModel(server.baseURL, { timeout: 300 });
    const kinds: string[] = [];
    const state = await createCodeGenGraph({ model, modelRetry: { sleep: async () => {}, onRetry: ({ kind }) => kinds.push(kind.kind) } }).invoke({ task: "Print in time" });
    expect(kinds).toEqual(["timeout"]);
    expect(state.status).toBe("success");
    expect(state.result?.stdout.trim()).toBe("in time");
  });

  it("takes the model and retry budget from the run's configurable (as Studio sets them)", async () => {
    server = await startScriptedOpenAIServer({ handler: () => fence("js", "throw new Error('nope')") });
    const graph = createCodeGenGraph({ model: "openai:from-options", env: { OPENAI_BASE_URL: server.baseURL } });
    const state = await graph.invoke({ task: "Fail" }, { configurable: { model: "openai:from-config", maxRetries: 0 } });
    expect(server.requests.map((r) => r.body.model)).toEqual(["from-config"]);
    expect(state.attempts).toHaveLength(1);
    expect(state.status).toBe("failed");
  });

  it("throws one clear configuration error when no key or server is set", async () => {
    const error = await createCodeGenGraph({ env: {} }).invoke({ task: "Print 1" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelConfigurationError);
    expect((error as Error).message).toMatch(/set OPENAI_API_KEY, or OPENAI_BASE_URL/);
  });
});
