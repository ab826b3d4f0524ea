import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { fromAsyncFunction, fromChatModel, fromOpenAICompatible } from "../../src/sdk/adapters.js";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import { GeneratorBackendError } from "../../src/sdk/errors.js";
import { InvalidOptionError } from "../../src/errors.js";
import type { CheckResult } from "../../src/sandbox/types.js";

describe("fromChatModel", () => {
  it("sends the pre-processed prompt, strips fences, counts tokens and attempts", async () => {
    const reply = new AIMessage({
      content: "Here you go:\n```javascript\nfunction add(a, b, c) { return a + b + c; }\n```",
      usage_metadata: { input_tokens: 12, output_tokens: 7, total_tokens: 19 },
    });
    const model = fakeModel().respond(reply);
    const generator = fromChatModel(model);
    const code = await generator.generate("Create add(a, b, c)", { language: "javascript", style: "concise" });
    expect(code).toBe("function add(a, b, c) { return a + b + c; }");
    const sent = model.calls[0]!.messages;
    expect(sent.at(-1)!.content).toBe("Create add(a, b, c) language: javascript style: concise");
    expect(String(sent[0]!.content)).toContain("Write javascript.");
    const estimates = generator.getCurrentEstimates();
    expect(estimates).toMatchObject({ attempts: 1, failures: 0, inputTokens: 12, outputTokens: 7, totalTokens: 19 });
    expect(estimates.totalDurationMs).toBeGreaterThanOrEqual(0);
  });

  it("uses a replaced pre-processor and wraps model failures", async () => {
    const model = fakeModel().respond(new AIMessage("x = 1")).respond(new Error("model exploded"));
    const generator = fromChatModel(model);
    generator.setPreProcessor((task, descriptors) => `[Task] ${task}\n[Hints] ${JSON.stringify(descriptors)}`);
    await generator.generate("Make x", { style: "terse" });
    expect(model.calls[0]!.messages.at(-1)!.content).toBe('[Task] Make x\n[Hints] {"style":"terse"}');
    await expect(generator.generate("again", {})).rejects.toThrow(GeneratorBackendError);
    expect(generator.getCurrentEstimates()).toMatchObject({ attempts: 2, failures: 1 });
  });

  it("rejects bad arguments with clear errors", async () => {
    expect(() => fromChatModel({} as never)).toThrow(/Invalid option "model"/);
    const generator = fromChatModel(fakeModel());
    expect(() => generator.setPreProcessor("nope" as never)).toThrow(InvalidOptionError);
    await expect(generator.generate("", {})).rejects.toThrow(/Invalid option "task"/);
    generator.setPreProcessor(() => 42 as never);
    await expect(generator.generate("t", {})).rejects.toThrow(/pre-processor result/);
  });

  it("checkExecute validates code with the checker without running it", async () => {
    const seen: string[] = [];
    const checker = async (code: string, { language }: { language: "javascript" | "typescript" | "python" }): Promise<CheckResult> => {
      seen.push(`${language}:${code}`);
      return code.includes("(")
        ? { ok: true, language }
        : { ok: false, language, status: "syntax_error", error: { name: "SyntaxError", message: "bad", line: 1 } };
    };
    const generator = fromChatModel(fakeModel(), { checker });
    expect(await generator.checkExecute({ code: "f()" })).toEqual({ ok: true, language: "javascript" });
    expect((await generator.checkExecute({ code: "x y", language: "python" })).ok).toBe(false);
    expect(seen).toEqual(["javascript:f()", "python:x y"]);
    await expect(generator.checkExecute({} as never)).rejects.toThrow(/checkExecute\(query\)/);
  });
});

describe("model retry (the graph's callModelWithRetry)", () => {
  it("retries a rate-limited chat model call, then returns its code", async () => {
    const limited = Object.assign(new Error("slow down"), { status: 429 });
    const model = fakeModel().respond(limited).respond(new AIMessage("```js\nconst a = 1;\n```"));
    const retries: number[] = [];
    const generator = fromChatModel(model, { modelRetry: { sleep: async () => {}, onRetry: ({ retry }) => retries.push(retry) } });
    expect(await generator.generate("a", { language: "javascript" })).toBe("const a = 1;");
    expect(retries).toEqual([1]);
  });

  it("gives up after the retries with GeneratorBackendError saying so", async () => {
    const fn = async () => {
      throw Object.assign(new Error("overloaded"), { status: 503 });
    };
    const error = await fromAsyncFunction(fn, { name: "busy", modelRetry: { maxRetries: 1, sleep: async () => {} } })
      .generate("t", {})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GeneratorBackendError);
    expect((error as Error).message).toMatch(/backend "busy" failed: The model server kept failing with HTTP 503 after 2 calls/);
  });
});

describe("fromAsyncFunction with a real local REST model server", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  async function startModelServer(handler: (prompt: string) => { status: number; body: unknown }): Promise<string> {
    server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        const reply = handler((JSON.parse(body) as { prompt: string }).prompt);
        response.writeHead(reply.status, { "content-type": "application/json" });
        response.end(JSON.stringify(reply.body));
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server!.address() as AddressInfo).port}/generate`;
  }

  function restGenerator(url: string) {
    return fromAsyncFunction(
      async (prompt) => {
        const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ prompt }) });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const json = (await response.json()) as { code: string; usage?: { prompt_tokens: number; completion_tokens: number } };
        return { code: json.code, usage: { inputTokens: json.usage?.prompt_tokens, outputTokens: json.usage?.completion_tokens } };
      },
      { name: "rest" },
    );
  }

  it("posts the prompt and returns the server's code", async () => {
    const prompts: string[] = [];
    const url = await startModelServer((prompt) => {
      prompts.push(prompt);
      return { status: 200, body: { code: "function reverse(s) { return [...s].reverse().join(''); }", usage: { prompt_tokens: 5, completion_tokens: 9 } } };
    });
    const generator = restGenerator(url);
    const code = await generator.generate("Write a function that reverses a string", { language: "javascript" });
    expect(code).toContain("function reverse(s)");
    expect(prompts).toEqual(["Write a function that reverses a string language: javascript"]);
    expect(generator.getCurrentEstimates()).toMatchObject({ attempts: 1, inputTokens: 5, outputTokens: 9 });
  });

  it("turns a server error into GeneratorBackendError naming the backend", async () => {
    const url = await startModelServer(() => ({ status: 503, body: { error: "overloaded" } }));
    const error = await restGenerator(url).generate("anything", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GeneratorBackendError);
    expect((error as Error).message).toMatch(/backend "rest" failed: HTTP 503/);
  });

  it("rejects a reply without code and a non-function", async () => {
    const generator = fromAsyncFunction(async () => ({ nope: true }) as never, { name: "odd" });
    await expect(generator.generate("t", {})).rejects.toThrow(/backend "odd" failed: it returned \{"nope":true\}/);
    expect(() => fromAsyncFunction("http://x" as never)).toThrow(/Invalid option "fn"/);
  });

  it("passes the task and descriptors to the function", async () => {
    const seen: unknown[] = [];
    const generator = fromAsyncFunction((prompt, request) => {
      seen.push({ prompt, ...request });
      return "```js\nconst a = 1;\n```";
    });
    expect(await generator.generate("T", { k: "v" })).toBe("const a = 1;");
    expect(seen).toEqual([{ prompt: "T k: v", task: "T", descriptors: { k: "v" } }]);
  });
});

describe("fromOpenAICompatible", () => {
  it("calls the server's chat completions with the real client and counts its usage", async () => {
    const server = await startScriptedOpenAIServer({
      replies: [{ content: "```js\nfunction square(x) { return x * x; }\n```", usage: { promptTokens: 30, completionTokens: 11 } }],
    });
    try {
      const generator = await fromOpenAICompatible({ baseURL: server.baseURL, model: "openai:scripted-model" });
      expect(await generator.generate("square(x)", { language: "javascript" })).toBe("function square(x) { return x * x; }");
      const body = server.requests[0]!.body as { model: string; messages: { role: string; content: string }[] };
      expect(body.model).toBe("scripted-model");
      expect(body.messages.at(-1)).toEqual({ role: "user", content: "square(x) language: javascript" });
      expect(generator.getCurrentEstimates()).toMatchObject({ inputTokens: 30, outputTokens: 11 });
    } finally {
      await server.close();
    }
  });

  it("rejects a missing base URL or model", async () => {
    await expect(fromOpenAICompatible({ baseURL: "localhost:8000", model: "m" })).rejects.toThrow(/Invalid option "baseURL"/);
    await expect(fromOpenAICompatible({ baseURL: "http://127.0.0.1:1/v1", model: "openai:" })).rejects.toThrow(/Invalid option "model"/);
  });
});
