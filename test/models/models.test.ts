import { describe, expect, it } from "vitest";
import {
  callModelWithRetry,
  classifyModelError,
  ModelCallError,
  ModelConfigurationError,
  ModelUnavailableError,
  parseModelName,
  readModelSettings,
  resolveChatModel,
} from "../../src/models/index.js";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import { scriptedModel, scriptedOpenAIModel } from "../support/scripted-model.js";

describe("readModelSettings", () => {
  it("defaults to openai:gpt-4o-mini and ignores empty values", () => {
    expect(readModelSettings({ CODEGEN_MODEL: "", OPENAI_API_KEY: "  " })).toEqual({ model: "openai:gpt-4o-mini", modelIsDefault: true, requestTimeoutMs: 60000 });
  });

  it("reads the model, key, base URL and timeout", () => {
    expect(
      readModelSettings({ CODEGEN_MODEL: "openai:qwen", OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://127.0.0.1:8000/v1", CODEGEN_MODEL_TIMEOUT_MS: "5000" }),
    ).toEqual({ model: "openai:qwen", modelIsDefault: false, openAIApiKey: "k", openAIBaseURL: "http://127.0.0.1:8000/v1", requestTimeoutMs: 5000 });
  });
});

describe("resolveChatModel", () => {
  it("returns a model instance unchanged", async () => {
    const model = scriptedModel("x");
    expect((await resolveChatModel(model, readModelSettings({}))).model).toBe(model);
  });

  it("names OPENAI_API_KEY when an OpenAI model has no key and no base URL", async () => {
    const error = await resolveChatModel(undefined, readModelSettings({})).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelConfigurationError);
    expect((error as ModelConfigurationError).variable).toBe("OPENAI_API_KEY");
    expect((error as Error).message).toMatch(/set OPENAI_API_KEY, or OPENAI_BASE_URL/);
  });

  it("names CODEGEN_MODEL for a provider whose package is not installed", async () => {
    const error = await resolveChatModel("anthropic:claude-x", readModelSettings({})).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelConfigurationError);
    expect((error as Error).message).toMatch(/@langchain\/anthropic/);
    expect((error as ModelConfigurationError).variable).toBe("CODEGEN_MODEL");
  });

  it("talks to an OpenAI-compatible server through OPENAI_BASE_URL with a placeholder key", async () => {
    const server = await startScriptedOpenAIServer({ replies: ["pong"] });
    try {
      const resolved = await resolveChatModel("openai:local-coder", readModelSettings({ OPENAI_BASE_URL: server.baseURL }));
      expect(resolved.baseURL).toBe(server.baseURL);
      const reply = await resolved.model.invoke("ping", { configurable: { model: "openai:something-else" } });
      expect(reply.content).toBe("pong");
      expect(server.requests[0].body.model).toBe("local-coder");
      expect(server.requests[0].headers.authorization).toBe("Bearer not-needed");
    } finally {
      await server.close();
    }
  });

  it("serves ollama: models through Ollama's OpenAI-compatible endpoint when @langchain/ollama is absent", async () => {
    const server = await startScriptedOpenAIServer({ replies: ["from ollama"] });
    try {
      const host = server.baseURL.replace(/\/v1$/, "");
      const resolved = await resolveChatModel("ollama:qwen2.5-coder", readModelSettings({ OLLAMA_BASE_URL: host }));
      expect((await resolved.model.invoke("hi")).content).toBe("from ollama");
      expect(server.requests[0].body.model).toBe("qwen2.5-coder");
    } finally {
      await server.close();
    }
  });

  it("parses provider prefixes; a bare name is an OpenAI(-compatible) model", () => {
    expect(parseModelName("openai:gpt-4o-mini")).toEqual({ provider: "openai", model: "gpt-4o-mini" });
    expect(parseModelName("qwen2.5-coder:7b")).toEqual({ provider: "openai", model: "qwen2.5-coder:7b" });
    expect(parseModelName("ollama:qwen2.5-coder:7b")).toEqual({ provider: "ollama", model: "qwen2.5-coder:7b" });
  });
});

describe("callModelWithRetry", () => {
  const noWait = async () => {};

  it("retries 429 and 5xx with doubling delays, then returns the answer", async () => {
    const delays: number[] = [];
    let calls = 0;
    const value = await callModelWithRetry(
      async () => {
        calls++;
        if (calls === 1) throw Object.assign(new Error("slow down"), { status: 429 });
        if (calls === 2) throw Object.assign(new Error("bad gateway"), { status: 502 });
        return "ok";
      },
      { initialDelayMs: 100, sleep: async (ms) => void delays.push(ms) },
    );
    expect(value).toBe("ok");
    expect(delays).toEqual([100, 200]);
  });

  it("waits as long as the server's Retry-After says, within maxDelayMs", async () => {
    const server = await startScriptedOpenAIServer({
      replies: [{ status: 429, headers: { "retry-after": "2" } }, { status: 429, headers: { "retry-after": "60" } }, "done"],
    });
    try {
      const model = scriptedOpenAIModel(server.baseURL);
      const delays: number[] = [];
      const reply = await callModelWithRetry(() => model.invoke("hi"), { maxDelayMs: 10_000, sleep: async (ms) => void delays.push(ms) });
      expect(reply.content).toBe("done");
      expect(delays).toEqual([2000, 10_000]);
    } finally {
      await server.close();
    }
  });

  it("fails at once on a client error", async () => {
    let calls = 0;
    const error = await callModelWithRetry(
      async () => {
        calls++;
        throw Object.assign(new Error("Incorrect API key provided"), { status: 401 });
      },
      { sleep: noWait },
    ).catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as Error).message).toMatch(/HTTP 401: Incorrect API key/);
  });

  it("names OPENAI_BASE_URL when the server cannot be reached", async () => {
    const model = scriptedOpenAIModel("http://127.0.0.1:9/v1");
    const error = await callModelWithRetry(() => model.invoke("hi"), { maxRetries: 1, sleep: noWait, baseURL: "http://127.0.0.1:9/v1" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as ModelUnavailableError).attempts).toBe(2);
    expect((error as Error).message).toMatch(/Could not reach the model server at http:\/\/127\.0\.0\.1:9\/v1 after 2 calls.*OPENAI_BASE_URL/);
    // The client's own "Connection error." ends its sentence once.
    expect((error as Error).message).not.toMatch(/\.\./);
    expect((error as Error).message).toContain("Connection error. Start the server");
  });

  it("classifies errors", () => {
    expect(classifyModelError(Object.assign(new Error("x"), { status: 500 }))).toEqual({ kind: "server", retryable: true, status: 500 });
    expect(classifyModelError(Object.assign(new Error("x"), { name: "APIConnectionTimeoutError" }))).toMatchObject({ kind: "timeout", retryable: true });
    expect(classifyModelError(Object.assign(new Error("x"), { name: "AbortError" }))).toMatchObject({ kind: "aborted", retryable: false });
    expect(classifyModelError(new Error("something else"))).toMatchObject({ kind: "unknown", retryable: false });
  });
});
