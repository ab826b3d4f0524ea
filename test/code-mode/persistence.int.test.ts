/**
 * State per thread: definitions persist across calls of one LangGraph thread, in a live session
 * and, when the process has none (a "second process": a fresh middleware on the same
 * checkpointer), by replaying the log in the checkpoint with recorded tool results.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { MemorySaver, Overwrite } from "@langchain/langgraph";
import type { CodeCell } from "../../src/code-mode/replay/cell-log.js";
import { ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import { createCodeInterpreterTool, type ExecuteCodeArtifact } from "../../src/tools/code-interpreter-tool.js";
import { scriptedCodeModel, type Turn, ask } from "./helpers.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

let weatherCalls = 0;
const getWeather = tool(
  async ({ city }) => {
    weatherCalls++;
    return `${city}: ${20 + weatherCalls} C`;
  },
  { name: "get_weather", description: "Current weather of a city.", schema: z.object({ city: z.string() }) },
);

function agentFor(checkpointer: MemorySaver, turns: Turn[], options: Parameters<typeof codeModeMiddleware>[0] = {}) {
  return createAgent({
    model: scriptedCodeModel(...turns),
    middleware: [codeModeMiddleware({ sandbox, tools: [getWeather], ...options })],
    checkpointer,
  });
}

function toolMessages(state: { messages: unknown[] }): ToolMessage[] {
  return state.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
}


describe("code mode keeps state per thread", { timeout: 180_000 }, () => {
  it("JavaScript: functions, variables and classes persist in the thread; the log is in the checkpoint", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "js-1" } };
    const first = await agentFor(checkpointer, [
      { code: "function shout(s) { return s.toUpperCase() + '!'; }\nclass Counter { constructor() { this.n = 0 } inc() { return ++this.n } }\nconst counter = new Counter();\nlet report = await tools.get_weather({ city: 'Paris' });\ncounter.inc();" },
      { code: "counter.inc();\nconsole.log(shout(report), counter.n)" },
      "done",
    ]).invoke(ask("start"), config);
    const [, second] = toolMessages(first);
    expect(second!.content).toMatch(/^status: success\nstdout:\nPARIS: \d+ C! 2/);
    expect((second!.artifact as ExecuteCodeArtifact).restore).toBeUndefined();
    expect(first.codeCells).toHaveLength(2);
    expect(first.codeCells[0]!.hostCalls![0]).toMatchObject({ name: "__tool_get_weather", args: [{ city: "Paris" }], order: 0 });

    // Same thread, next turn, same process: the live session continues.
    const next = await agentFor(checkpointer, [{ code: "counter.inc()" }, "ok"]).invoke(ask("more"), config);
    expect(toolMessages(next).at(-1)!.content).toBe("status: success\nresult: 3");
  });

  it("a process without a live session replays the log: tools answer from the recording, the result is the same", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "js-2" } };
    await agentFor(checkpointer, [
      { code: "const w = await tools.get_weather({ city: 'Rome' });\nfunction twice(x) { return x + ' / ' + x; }\nw" },
      "done",
    ]).invoke(ask("start"), config);
    const callsBefore = weatherCalls;
    // A new middleware has its own (empty) session cache: like a second process.
    const state = await agentFor(checkpointer, [{ code: "twice(w)" }, "ok"]).invoke(ask("again"), config);
    const message = toolMessages(state).at(-1)!;
    const artifact = message.artifact as ExecuteCodeArtifact;
    expect(artifact.result.status).toBe("success");
    expect(artifact.result.result).toMatch(/^Rome: \d+ C \/ Rome: \d+ C$/);
    expect(artifact.restore).toMatchObject({ replayed: 1, failures: [] });
    expect(weatherCalls).toBe(callsBefore);
  });

  it("a cell whose tool input depends on randomness replays exactly (its seed is in the log)", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "js-3" } };
    const first = await agentFor(checkpointer, [
      { code: "var stable = 41;\nvar w = await tools.get_weather({ city: 'Oslo-' + Math.random() });\nw" },
      "done",
    ]).invoke(ask("start"), config);
    const live = (toolMessages(first).at(-1)!.artifact as ExecuteCodeArtifact).result.result;
    const calls = weatherCalls;
    const state = await agentFor(checkpointer, [{ code: "w + ' ' + (stable + 1)" }, "ok"]).invoke(ask("again"), config);
    const message = toolMessages(state).at(-1)!;
    expect((message.artifact as ExecuteCodeArtifact).restore).toMatchObject({ replayed: 1, failures: [] });
    expect((message.artifact as ExecuteCodeArtifact).result.result).toBe(`${live} 42`);
    expect(weatherCalls).toBe(calls);
  });

  it("a replay whose recording does not answer a call says so, and never calls the real tool", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "js-3b" } };
    const agent = agentFor(checkpointer, [{ code: "var stable = 41;\nvar w = await tools.get_weather({ city: 'Oslo' });" }, "done"]);
    await agent.invoke(ask("start"), config);
    // A log whose recording was changed (another input): the replay cannot be answered.
    const { values } = (await agent.getState(config)) as unknown as { values: { codeCells: CodeCell[] } };
    const forged = values.codeCells.map((c: CodeCell) => ({ ...c, id: `${c.id}-x`, hostCalls: c.hostCalls!.map((h) => ({ ...h, args: [{ city: "Bergen" }] })) }));
    await agent.updateState(config, { codeCells: new Overwrite(forged) });
    const calls = weatherCalls;
    const state = await agentFor(checkpointer, [{ code: "typeof w + ' ' + (stable + 1)" }, "ok"]).invoke(ask("again"), config);
    const message = toolMessages(state).at(-1)!;
    expect(String(message.content)).toContain("restore: this thread's session was rebuilt by replaying 1 earlier cell(s); 1 did not replay as they first ran");
    expect(String(message.content)).toContain("where the recording has tools.get_weather with other arguments");
    expect((message.artifact as ExecuteCodeArtifact).result.result).toBe("undefined 42");
    expect(weatherCalls).toBe(calls);
  });

  it("TypeScript and Python keep their own state per thread, restored in a fresh process", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "mixed-1" } };
    await agentFor(checkpointer, [
      { language: "typescript", code: "interface P { x: number }\nfunction norm(p: P): number { return Math.abs(p.x); }" },
      { language: "python", code: "import math\nimport json as j\ndef hyp(a, b):\n    return math.hypot(a, b)\nw = await tools.get_weather(city='Lima')" },
      "done",
    ]).invoke(ask("start"), config);
    const state = await agentFor(checkpointer, [
      { language: "typescript", code: "norm({ x: -3 })" },
      { language: "python", code: "j.dumps([hyp(3, 4), w.split(':')[0]])" },
      "ok",
    ]).invoke(ask("again"), config);
    const [ts, py] = toolMessages(state).slice(-2);
    expect(ts!.content).toBe("status: success\nresult: 3");
    expect(py!.content).toBe('status: success\nresult: "[5.0, \\"Lima\\"]"');
    expect((py!.artifact as ExecuteCodeArtifact).restore).toMatchObject({ replayed: 1, failures: [] });
  });

  it("a cell that fails by itself is logged with what it did; threads do not see each other's state", async () => {
    const checkpointer = new MemorySaver();
    const a = await agentFor(checkpointer, [{ code: "var onlyA = 1;" }, { code: "var broken = 1;\nnull.x" }, "done"]).invoke(ask("a"), {
      configurable: { thread_id: "iso-a" },
    });
    expect(a.codeCells.map((c: CodeCell) => c.status)).toEqual(["success", "runtime_error"]);
    const b = await agentFor(checkpointer, [{ code: "typeof onlyA" }, "done"]).invoke(ask("b"), { configurable: { thread_id: "iso-b" } });
    expect(toolMessages(b).at(-1)!.content).toBe('status: success\nresult: "undefined"');
  });

  it("the session cache is bounded: evicted threads are rebuilt from their log", async () => {
    const checkpointer = new MemorySaver();
    const middleware = codeModeMiddleware({ sandbox, tools: [getWeather], maxSessions: 1, languages: ["javascript"] });
    const run = (thread: string, turns: Turn[]) =>
      createAgent({ model: scriptedCodeModel(...turns), middleware: [middleware], checkpointer }).invoke(ask("go"), { configurable: { thread_id: thread } });
    await run("lru-a", [{ code: "var name = 'a';" }, "ok"]);
    await run("lru-b", [{ code: "var name = 'b';" }, "ok"]);
    const again = await run("lru-a", [{ code: "name" }, "ok"]);
    const message = toolMessages(again).at(-1)!;
    expect(message.content).toBe('status: success\nresult: "a"');
    expect((message.artifact as ExecuteCodeArtifact).restore).toMatchObject({ replayed: 1 });
  });

  it('persistence "none" starts fresh each call; "thread" without a thread_id says nothing is kept', async () => {
    const fresh = createCodeInterpreterTool({ sandbox, languages: ["javascript"] });
    const agent = createAgent({ model: scriptedCodeModel({ code: "var kept = 1;" }, { code: "typeof kept" }, "ok"), tools: [fresh] });
    const state = await agent.invoke(ask("go"));
    expect(toolMessages(state).at(-1)!.content).toBe('status: success\nresult: "undefined"');

    const noThread = createAgent({ model: scriptedCodeModel({ code: "1 + 1" }, "ok"), middleware: [codeModeMiddleware({ sandbox, languages: ["javascript"] })] });
    const s2 = await noThread.invoke(ask("go"));
    expect(String(toolMessages(s2).at(-1)!.content)).toContain("note: no thread_id in the config");
  });
});
