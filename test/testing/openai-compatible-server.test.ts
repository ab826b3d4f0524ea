import { afterEach, describe, expect, it } from "vitest";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import type { ScriptedOpenAIServer } from "../../src/testing/index.js";
import { scriptedOpenAIModel as chat } from "../support/scripted-model.js";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const add = tool(({ a, b }: { a: number; b: number }) => String(a + b), {
  name: "add",
  description: "Adds two numbers.",
  schema: z.object({ a: z.number(), b: z.number() }),
});

describe("scripted OpenAI-compatible server", () => {
  it("answers invoke with the queued text and usage, and records the request", async () => {
    server = await startScriptedOpenAIServer({ replies: [{ content: "hello there", usage: { promptTokens: 7, completionTokens: 3 } }] });
    const reply = await chat(server.baseURL).invoke("say hello");
    expect(reply.content).toBe("hello there");
    expect(reply.usage_metadata).toMatchObject({ input_tokens: 7, output_tokens: 3, total_tokens: 10 });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].body.messages[0]).toMatchObject({ role: "user", content: "say hello" });
    expect(server.pending).toBe(0);
  });

  it("streams content deltas with usage at the end", async () => {
    server = await startScriptedOpenAIServer();
    server.enqueue("a somewhat longer reply that arrives in several chunks");
    const model = chat(server.baseURL, { streamUsage: true });
    const chunks: string[] = [];
    let usage: unknown;
    for await (const chunk of await model.stream("go")) {
      chunks.push(String(chunk.content));
      if (chunk.usage_metadata) usage = chunk.usage_metadata;
    }
    expect(chunks.join("")).toBe("a somewhat longer reply that arrives in several chunks");
    expect(chunks.filter((c) => c.length > 0).length).toBeGreaterThan(1);
    expect(server.requests[0].body.stream).toBe(true);
    expect(server.requests[0].body.stream_options).toEqual({ include_usage: true });
    expect(usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
  });

  it("returns tool calls with bindTools, in JSON and streamed", async () => {
    server = await startScriptedOpenAIServer({
      replies: [
        { toolCalls: [{ name: "add", args: { a: 2, b: 3 } }] },
        { toolCalls: [{ id: "call_x", name: "add", args: { a: 40, b: 2 } }] },
      ],
    });
    const model = chat(server.baseURL).bindTools([add]);
    const reply = await model.invoke("add 2 and 3");
    expect(reply.tool_calls).toEqual([expect.objectContaining({ name: "add", args: { a: 2, b: 3 } })]);
    expect(server.requests[0].body.tools[0].function.name).toBe("add");

    let merged: Awaited<ReturnType<typeof model.invoke>> | undefined;
    for await (const chunk of await model.stream("add 40 and 2")) {
      merged = merged === undefined ? chunk : merged.concat(chunk);
    }
    expect(merged?.tool_calls).toEqual([expect.objectContaining({ id: "call_x", name: "add", args: { a: 40, b: 2 } })]);
  });

  it("serves scripted HTTP errors, then uses the handler once the queue is empty", async () => {
    server = await startScriptedOpenAIServer({
      replies: [{ status: 429, message: "slow down" }],
      handler: (request, index) => `reply #${index + 1} to ${request.body.messages.at(-1).content}`,
    });
    const model = chat(server.baseURL);
    await expect(model.invoke("first")).rejects.toThrow(/slow down/);
    await expect(model.invoke("second")).resolves.toMatchObject({ content: "reply #2 to second" });
  });

  it("answers 400 with a clear message when nothing is queued, and lists models", async () => {
    server = await startScriptedOpenAIServer({ models: ["m1", "m2"] });
    await expect(chat(server.baseURL).invoke("x")).rejects.toThrow(/no reply queued/);
    const list = (await (await fetch(`${server.baseURL}/models`)).json()) as { data: { id: string }[] };
    expect(list.data.map((m) => m.id)).toEqual(["m1", "m2"]);
  });
});
