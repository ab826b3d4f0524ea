/**
 * Checkpoints that hold a file once (src/code-mode/thread/content-by-digest.ts): with `fileContents`
 * left unset, a graph that has a LangGraph store keeps the thread's file contents there (one
 * immutable entry per SHA-256) and the checkpoint carries digests; the middleware moves contents
 * a graph input left in `files` in the model's step, so `createAgent`'s `Send`s carry references.
 * Byte counts (MemorySaver's storage: checkpoints, metadata and pending writes), not timings.
 * Exactness with the store by default: a fresh agent restores, and time travel reads each
 * checkpoint's own bytes.
 */
import { afterAll, describe, expect, it } from "vitest";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { END, InMemoryStore, MemorySaver, MessagesDeltaValue, MessagesValue, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { createAgent } from "langchain";
import { createDeepAgent } from "deepagents";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { codeModeStateFields } from "../../src/code-mode/thread/state.js";
import { MAX_UPDATES_BETWEEN_COPIES } from "../../src/code-mode/thread/copy-policy.js";
import { createCodeInterpreterTool, type ExecuteCodeArtifact } from "../../src/tools/code-interpreter-tool.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import { artifact, ask, savedBytes, scriptedCodeModel, type Turn } from "./helpers.js";

const KiB = 1024;
const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const BIG = "y".repeat(100 * KiB);
const FIVE: Turn[] = Array.from({ length: 5 }, (_, i) => ({ code: `console.log('cell ${i}')` }));

/** Whether any checkpoint, metadata or pending write of `saver` holds `text`. */
function holds(saver: MemorySaver, text: string): { checkpoints: number; sends: number } {
  const decoder = new TextDecoder();
  let checkpoints = 0;
  let sends = 0;
  const storage = (saver as unknown as { storage: Record<string, Record<string, Record<string, [Uint8Array, Uint8Array]>>> }).storage;
  for (const ns of Object.values(storage)) for (const cps of Object.values(ns)) for (const [cp] of Object.values(cps)) if (decoder.decode(cp).includes(text)) checkpoints++;
  const writes = (saver as unknown as { writes: Record<string, Record<string, [string, string, Uint8Array]>> }).writes;
  for (const w of Object.values(writes)) for (const [, channel, value] of Object.values(w)) if (channel === "__pregel_tasks" && decoder.decode(value).includes(text)) sends++;
  return { checkpoints, sends };
}

/** A thread of six cells in `createAgent` (MemorySaver, and a store unless `store` is false): its checkpoint bytes. */
async function agentThread(how: "input" | "option" | "written", store = true) {
  const checkpointer = new MemorySaver();
  const config = { configurable: { thread_id: `bytes-${how}` } };
  const first: Turn = how === "written" ? { code: "files.write('/big.txt', 'y'.repeat(100 * 1024)); 1" } : { code: "files.read('/big.txt').length" };
  const middleware = codeModeMiddleware({ sandbox, languages: ["javascript"], ...(how === "option" ? { files: { "/big.txt": BIG } } : {}) });
  const agent = createAgent({ model: scriptedCodeModel(first, ...FIVE, "done"), middleware: [middleware], checkpointer, ...(store ? { store: new InMemoryStore() } : {}) });
  const state = await agent.invoke(ask("go", how === "input" ? { files: { "/big.txt": BIG } } : {}) as never, config);
  const results = (state.messages as unknown[]).filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => (m.artifact as ExecuteCodeArtifact).result.status);
  expect(results).toEqual(Array(6).fill("success"));
  return { bytes: savedBytes(checkpointer), checkpointer, state };
}

describe("checkpoints hold a file once", { timeout: 180_000 }, () => {
  it("createAgent with a store: one 100 KB file and six cells stay under 300 KB of checkpoints (over 2 MB without a store)", async () => {
    const withoutStore = await agentThread("option", false);
    expect(withoutStore.bytes).toBeGreaterThan(2_000_000);
    for (const how of ["option", "written"] as const) {
      const { bytes, checkpointer, state } = await agentThread(how);
      expect(bytes, how).toBeLessThanOrEqual(300_000);
      // The content is in no checkpoint and no Send: `files` holds its digest.
      expect(holds(checkpointer, "y".repeat(4096)), how).toEqual({ checkpoints: 0, sends: 0 });
      expect((state.files as Record<string, unknown>)["/big.txt"]).toMatchObject({ size: 100 * KiB, contentSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    }
  });

  it("createAgent, the file as graph input: no Send carries it; what is left of it is LangGraph's own two copies of the input", async () => {
    const { bytes, checkpointer, state } = await agentThread("input");
    // The input checkpoint's `__start__` holds the graph input, and so does the input's write:
    // 2 × 100 KB that no channel of code mode can drop. Nothing after the input holds the file.
    expect(holds(checkpointer, "y".repeat(4096))).toEqual({ checkpoints: 1, sends: 0 });
    expect(bytes).toBeLessThanOrEqual(2 * BIG.length + 128 * KiB);
    expect((state.files as Record<string, unknown>)["/big.txt"]).toMatchObject({ size: 100 * KiB });
  });

  it(`ToolNode graph with a store: a call that writes nothing adds at most 4 KiB (agent loop, 1 MiB of files, ${MAX_UPDATES_BETWEEN_COPIES} calls)`, async () => {
    const saver = new MemorySaver();
    let script: AIMessage[] = [];
    const call = (id: string, code: string) => new AIMessage({ id, content: "", tool_calls: [{ id: `c-${id}`, name: "execute_code", args: { language: "javascript", code }, type: "tool_call" }] });
    const graph = new StateGraph(new StateSchema({ messages: MessagesDeltaValue as unknown as typeof MessagesValue, ...codeModeStateFields }))
      .addNode("agent", async () => ({ messages: [script.shift() ?? new AIMessage({ content: "done" })] }))
      .addNode("tools", new ToolNode([createCodeInterpreterTool({ sandbox, persistence: "thread", languages: ["javascript"] })]))
      .addEdge(START, "agent")
      .addConditionalEdges("agent", (state) => ((state.messages.at(-1) as AIMessage | undefined)?.tool_calls?.length ? "tools" : END))
      .addEdge("tools", "agent")
      .compile({ checkpointer: saver, store: new InMemoryStore() });
    const calls = MAX_UPDATES_BETWEEN_COPIES;
    const config = { configurable: { thread_id: "loop-bytes" }, recursionLimit: 4 * calls + 10 };
    const oneMiB = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`/data/part${i}.txt`, String(i).repeat(128 * KiB)]));
    script = [call("l0", "files.list().length")];
    await graph.invoke({ messages: [{ role: "user", content: "go" }], files: oneMiB }, config);
    const before = savedBytes(saver);
    script = Array.from({ length: calls }, (_, i) => call(`l${i + 1}`, `console.log(${i})`));
    const state = await graph.invoke({ messages: [{ role: "user", content: "more" }] }, config);
    expect(artifact(state as never).result.stdout).toBe(`${calls - 1}\n`);
    expect((savedBytes(saver) - before) / calls).toBeLessThanOrEqual(4 * KiB);
  });

  it("with the store by default, a fresh agent restores exactly and time travel reads each checkpoint's own file", async () => {
    const checkpointer = new MemorySaver();
    const store = new InMemoryStore();
    const config = { configurable: { thread_id: "exact-default" } };
    // A new middleware (and sandbox) is a new process as far as code mode knows: no live session, no cache.
    const agent = (turns: Turn[], box = sandbox) => createAgent({ model: scriptedCodeModel(...turns, "ok"), middleware: [codeModeMiddleware({ sandbox: box, languages: ["javascript"] })], checkpointer, store });
    await agent([{ code: "var r1 = Math.random(); var seen = files.read('/doc.txt').length;" }]).invoke(ask("go", { files: { "/doc.txt": BIG } }) as never, config);
    const stateAt = (c: object) => agent([]).getState(c as never) as Promise<{ config: object; values: { files: Record<string, unknown> } }>;
    const afterFirst = (await stateAt(config)).config;
    // The store by default: the checkpoint names the file by its digest.
    expect((await stateAt(config)).values.files["/doc.txt"]).toMatchObject({ size: 100 * KiB, contentSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    await agent([{ code: "files.write('/doc.txt', 'v2'); var later = 1;" }]).invoke(ask("more") as never, config);
    const query = "JSON.stringify([r1, seen, files.read('/doc.txt').length, typeof later])";
    const live = artifact(await agent([{ code: query }]).invoke(ask("q") as never, config)).result.result as string;
    expect(JSON.parse(live).slice(1)).toEqual([100 * KiB, 2, "number"]);
    const other = createSandbox({ poolSize: 1 });
    try {
      const fresh = artifact(await agent([{ code: query }], other).invoke(ask("q") as never, config));
      expect(fresh.restore).toMatchObject({ failures: [] });
      expect(fresh.result.result).toBe(live);
      // Back to the checkpoint after the first cell: its 100 KB file, its definitions, not later ones.
      const past = artifact(await agent([{ code: query }], other).invoke(ask("then?") as never, afterFirst));
      expect(JSON.parse(past.result.result as string)).toEqual([JSON.parse(live)[0], 100 * KiB, 100 * KiB, "undefined"]);
    } finally {
      await other.dispose();
    }
  });

  it("inside createDeepAgent with a store and its state backend: contents stay in the checkpoint, where deepagents' read_file reads them", async () => {
    const toolCall = (name: string, args: Record<string, unknown>) => new AIMessage({ id: `deep-${name}`, content: "", tool_calls: [{ id: `deep-call-${name}`, name, args, type: "tool_call" }] });
    const code = new AIMessage({ id: "deep-code", content: "", tool_calls: [{ id: "deep-call-code", name: "execute_code", args: { language: "javascript", code: "files.write('/done.txt', files.read('/plan.md') + ' done'); 1" }, type: "tool_call" }] });
    let model = (await import("@langchain/core/testing")).fakeModel();
    for (const m of [toolCall("write_file", { file_path: "/plan.md", content: "step one" }), code, toolCall("read_file", { file_path: "/done.txt" }), new AIMessage({ id: "deep-end", content: "done" })]) model = model.respond(m);
    const agent = createDeepAgent({ model, middleware: [codeModeMiddleware({ sandbox, languages: ["javascript"] })], checkpointer: new MemorySaver(), store: new InMemoryStore() });
    const state = await agent.invoke({ messages: [{ role: "user", content: "go" }] }, { configurable: { thread_id: "deep-default" } });
    const results = (state.messages as unknown[]).filter((m): m is ToolMessage => ToolMessage.isInstance(m));
    expect(JSON.stringify(results.at(-1)!.content)).toContain("step one done");
    expect((state as { files: Record<string, unknown> }).files["/done.txt"]).not.toHaveProperty("contentSha256");
  });
});
