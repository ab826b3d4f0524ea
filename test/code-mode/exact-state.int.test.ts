/**
 * A thread's code state is exact: after any sequence of cells (failing after assigning, stopped
 * by a limit, rewriting a file, using randomness and the clock, calling tools in parallel), the
 * process that ran them and a fresh one (a new middleware: no live session, so it replays the
 * log) give the same answer to the next cell; going back to a checkpoint gives that
 * checkpoint's state; a replay has its own time budget; the log can be reset. With MemorySaver
 * (PostgreSQL across two processes: postgres.test.ts).
 */
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import type { ExecuteCodeArtifact } from "../../src/tools/code-interpreter-tool.js";
import { resetCodeState } from "../../src/code-mode/thread/state.js";
import type { CodeCell } from "../../src/code-mode/replay/cell-log.js";
import { scriptedCodeModel, scriptedParallelModel, type Turn, ask, lastTool, artifact, savedBytes } from "./helpers.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

let slowCalls = 0;
/** Answers after `ms` milliseconds: parallel calls settle in another order than they were made. */
const slow = tool(
  async ({ ms, tag }) => {
    slowCalls++;
    await new Promise((resolve) => setTimeout(resolve, ms));
    return `${tag}@${ms}`;
  },
  { name: "slow", description: "Answers after ms milliseconds.", schema: z.object({ ms: z.number(), tag: z.string() }) },
);

type Options = Parameters<typeof codeModeMiddleware>[0];

/** An agent in code mode: a new one has a new middleware, so no live session (like another process). */
function agent(checkpointer: MemorySaver, turns: Turn[], options: Options = {}) {
  return createAgent({ model: scriptedCodeModel(...turns), middleware: [codeModeMiddleware({ sandbox, tools: [slow], ...options })], checkpointer });
}

const JS_SEQUENCE: Turn[] = [
  { code: "var n = 1;\nfunction rnd() { return Math.random(); }\nvar r1 = rnd();\nvar t1 = Date.now();\nvar d1 = new Date().toISOString();" },
  { code: "x = 100;\nthrow new Error('after assigning');" },
  { code: "var early = files.read('/data.txt');" },
  { code: "files.write('/data.txt', 'v2');" },
  { code: "var lost = 5;\nconsole.log('x'.repeat(5000));" },
  { code: "var lostToo = 1;\nwhile (true) {}" },
  { code: "var order = [];\nawait Promise.all([tools.slow({ ms: 60, tag: 'a' }).then(() => order.push('a')), tools.slow({ ms: 1, tag: 'b' }).then(() => order.push('b'))]);\nvar r2 = Math.random();" },
];
const JS_QUERY = "JSON.stringify({ n, x, r1, t1, d1, early, now: files.read('/data.txt'), lost: typeof lost, lostToo: typeof lostToo, order, r2 })";

const PY_SEQUENCE: Turn[] = [
  { language: "python", code: "import random, time, os, uuid, datetime, asyncio\nn = 1\nr1 = random.random()\nt1 = time.time()\np1 = time.perf_counter()\nu = str(uuid.uuid4())\nb = os.urandom(4).hex()\nd1 = str(datetime.datetime.now())" },
  { language: "python", code: "x = 100\nraise ValueError('after assigning')" },
  { language: "python", code: "early = open('/data.txt').read()" },
  { language: "python", code: "open('/data.txt', 'w').write('v2')" },
  { language: "python", code: "lost = 5\nprint('x' * 5000)" },
  { language: "python", code: "lost_too = 1\nwhile True:\n    pass" },
  { language: "python", code: "order = []\nasync def one(ms, tag):\n    await tools.slow(ms=ms, tag=tag)\n    order.append(tag)\nawait asyncio.gather(one(60, 'a'), one(1, 'b'))\nr2 = random.random()" },
];
const PY_QUERY = "import json\njson.dumps([n, x, r1, t1, p1, u, b, d1, early, open('/data.txt').read(), 'lost' in globals(), 'lost_too' in globals(), order, r2])";

describe("live and restored sessions give the same answers", { timeout: 240_000 }, () => {
  for (const [language, sequence, query] of [
    ["javascript", JS_SEQUENCE, JS_QUERY],
    ["python", PY_SEQUENCE, PY_QUERY],
  ] as const) {
    it(`${language}: a mixed sequence (failing, output-limited, timed out, file-rewriting, random, clock, parallel tools)`, async () => {
      const checkpointer = new MemorySaver();
      const config = { configurable: { thread_id: `mixed-${language}` } };
      const options: Options = { maxOutputBytes: 1000, timeoutMs: 1500, languages: [language] };
      const first = await agent(checkpointer, [...sequence, "done"], options).invoke(ask("go", { files: { "/data.txt": "v1" } }), config);
      const statuses = first.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => (m.artifact as ExecuteCodeArtifact).result.status);
      expect(statuses).toEqual(["success", "runtime_error", "success", "success", "output_limit", "timeout", "success"]);
      // Stopped from outside: not in the log.
      expect(first.codeCells.map((c: CodeCell) => c.status)).toEqual(["success", "runtime_error", "success", "success", "success"]);
      const calls = slowCalls;
      const live = await agent(checkpointer, [{ language, code: query }, "ok"], options).invoke(ask("q"), config);
      // A fresh middleware: the log is replayed into a new session.
      const restored = await agent(checkpointer, [{ language, code: query }, "ok"], options).invoke(ask("q"), config);
      expect(artifact(restored).restore).toMatchObject({ replayed: 6, failures: [] });
      expect(artifact(restored).result.result).toBe(artifact(live).result.result);
      const answer = JSON.parse(String(artifact(live).result.result)) as unknown;
      if (language === "javascript") {
        expect(answer).toMatchObject({ n: 1, x: 100, early: "v1", now: "v2", lost: "undefined", lostToo: "undefined", order: ["b", "a"] });
      } else {
        expect((answer as unknown[]).slice(8)).toEqual(["v1", "v2", false, false, ["b", "a"], expect.any(Number)]);
      }
      // The replay answered the tools from the recording.
      expect(slowCalls).toBe(calls);
    });
  }

  it("going back to a checkpoint gives that checkpoint's state, live session or not (JavaScript and Python)", async () => {
    for (const language of ["javascript", "python"] as const) {
      const checkpointer = new MemorySaver();
      const config = { configurable: { thread_id: `travel-${language}` } };
      const options: Options = { languages: [language] };
      const set = language === "python" ? "n = 1" : "var n = 1;";
      const fail = language === "python" ? "n = 99\nm = 2\nraise ValueError('no')" : "n = 99;\nvar m = 2;\nthrow new Error('no');";
      const query = language === "python" ? "[n, 'm' in globals()]" : "[n, typeof m]";
      const middleware = codeModeMiddleware({ sandbox, tools: [slow], ...options });
      const run = (turns: Turn[], cfg: object) => createAgent({ model: scriptedCodeModel(...turns), middleware: [middleware], checkpointer }).invoke(ask("go"), cfg);
      await run([{ language, code: set }, "done"], config);
      const afterOne = (await checkpointer.getTuple(config))!.config;
      await run([{ language, code: fail }, "done"], config);
      const afterTwo = (await checkpointer.getTuple(config))!.config;
      // Same process (its live session has run both cells) and a fresh one: both answer as of cell 1.
      const back = await run([{ language, code: query }, "ok"], afterOne);
      expect(artifact(back).result.result).toEqual(language === "python" ? [1, false] : [1, "undefined"]);
      const fresh = await agent(checkpointer, [{ language, code: query }, "ok"], options).invoke(ask("go"), afterOne);
      expect(artifact(fresh).result.result).toEqual(artifact(back).result.result);
      // The checkpoint after cell 2 still has it (going back forked the thread; nothing was lost).
      const head = await run([{ language, code: query }, "ok"], afterTwo);
      expect(artifact(head).result.result).toEqual(language === "python" ? [99, true] : [99, "number"]);
    }
  });

  it("a replay has its own time budget: a cell that took longer than the new limit restores, and the new cell runs", async () => {
    for (const language of ["javascript", "python"] as const) {
      const checkpointer = new MemorySaver();
      const config = { configurable: { thread_id: `budget-${language}` } };
      const busy = language === "python" ? "s = 0\nfor i in range(1_000_000):\n    s += i\ndone = 'yes'" : "let s = 0;\nfor (let i = 0; i < 6_000_000; i++) s += i;\nvar done = 'yes';";
      const first = await agent(checkpointer, [{ language, code: busy }, "done"], { languages: [language], timeoutMs: 20_000 }).invoke(ask("go"), config);
      const took = artifact(first).result.durationMs;
      expect(artifact(first).result.status).toBe("success");
      const limit = Math.max(50, Math.floor(took / 3));
      const next = await agent(checkpointer, [{ language, code: language === "python" ? "done" : "done" }, "ok"], { languages: [language], timeoutMs: limit }).invoke(ask("go"), config);
      expect(artifact(next).restore).toMatchObject({ replayed: 1, failures: [] });
      expect(artifact(next).result.result).toBe("yes");
    }
  });

  it("a thread's code state can be reset (resetCodeState): definitions are gone, files stay", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "reset" } };
    const a = agent(checkpointer, [{ code: "var kept = 1;\nfiles.write('/f.txt', 'still here');" }, "done"], { languages: ["javascript"] });
    await a.invoke(ask("go"), config);
    await a.updateState(config, resetCodeState());
    expect(((await a.getState(config)) as unknown as { values: { codeCells: CodeCell[] } }).values.codeCells).toEqual([]);
    const after = await agent(checkpointer, [{ code: "[typeof kept, files.read('/f.txt')]" }, "ok"], { languages: ["javascript"] }).invoke(ask("go"), config);
    expect(artifact(after).result.result).toEqual(["undefined", "still here"]);
  });

  it("two calls in one AI message run in the message's order, the second seeing the first; the log says that order", async () => {
    for (const language of ["javascript", "python"] as const) {
      const checkpointer = new MemorySaver();
      const config = { configurable: { thread_id: `parallel-${language}` } };
      const calls =
        language === "python"
          ? [
              { language, code: "await tools.slow(ms=80, tag='first')\na = 1\nopen('/p.txt', 'w').write('one')" },
              { language, code: "[a, open('/p.txt').read()]" },
            ]
          : [
              { language, code: "await tools.slow({ ms: 80, tag: 'first' });\nvar a = 1;\nfiles.write('/p.txt', 'one');" },
              { language, code: "[a, files.read('/p.txt')]" },
            ];
      const state = await createAgent({ model: scriptedParallelModel(calls, "done"), middleware: [codeModeMiddleware({ sandbox, tools: [slow], languages: [language] })], checkpointer }).invoke(ask("go"), config);
      expect(artifact(state).result.result).toEqual([1, "one"]);
      const cells = state.codeCells as CodeCell[];
      expect(cells.map((c) => c.code)).toEqual(calls.map((c) => c.code));
      expect(cells[1]!.after).toBe(cells[0]!.id);
      expect(state.files!["/p.txt"]).toMatchObject({ content: "one" });
      const restored = await agent(checkpointer, [{ language, code: calls[1]!.code }, "ok"], { languages: [language] }).invoke(ask("go"), config);
      expect(artifact(restored).result.result).toEqual([1, "one"]);
    }
  });

  it("a busy session is never evicted: a call never dies because another thread arrived", async () => {
    const checkpointer = new MemorySaver();
    const middleware = codeModeMiddleware({ sandbox, tools: [slow], maxSessions: 1, languages: ["javascript"] });
    const run = (thread: string, code: string) =>
      createAgent({ model: scriptedCodeModel({ code }, "ok"), middleware: [middleware], checkpointer }).invoke(ask("go"), { configurable: { thread_id: thread } });
    const [a, b] = await Promise.all([
      run("busy-a", "var v = await tools.slow({ ms: 600, tag: 'a' });\nv"),
      new Promise((resolve) => setTimeout(resolve, 150)).then(() => run("busy-b", "'b'")),
    ]);
    expect(artifact(a).result).toMatchObject({ status: "success", result: "a@600" });
    expect(artifact(b).result).toMatchObject({ status: "success", result: "b" });
  });
});


describe("checkpoints stay small", { timeout: 120_000 }, () => {
  const big = "y".repeat(100 * 1024);
  const cells: Turn[] = Array.from({ length: 5 }, (_, i) => ({ code: `console.log('cell ${i}')` }));

  it("a 100 KB file and five console.log cells in a graph of your own: each call adds what it wrote, not the file", async () => {
    const { StateGraph, StateSchema, MessagesValue, START, END } = await import("@langchain/langgraph");
    const { ToolNode } = await import("@langchain/langgraph/prebuilt");
    const { AIMessage } = await import("@langchain/core/messages");
    const { codeModeStateFields } = await import("../../src/code-mode/thread/state.js");
    const { createCodeInterpreterTool } = await import("../../src/tools/code-interpreter-tool.js");
    const checkpointer = new MemorySaver();
    const graph = new StateGraph(new StateSchema({ messages: MessagesValue, ...codeModeStateFields }))
      .addNode("tools", new ToolNode([createCodeInterpreterTool({ sandbox, persistence: "thread", languages: ["javascript"] })]))
      .addEdge(START, "tools")
      .addEdge("tools", END)
      .compile({ checkpointer });
    const call = (id: string, code: string) => new AIMessage({ id, content: "", tool_calls: [{ id: `c-${id}`, name: "execute_code", args: { language: "javascript", code }, type: "tool_call" }] });
    const config = { configurable: { thread_id: "size-graph" } };
    await graph.invoke({ messages: [call("a0", "files.read('/big.txt').length")], files: { "/big.txt": big } }, config);
    const before = savedBytes(checkpointer);
    for (let i = 0; i < 5; i++) await graph.invoke({ messages: [call(`a${i + 1}`, `console.log('cell ${i}')`)] }, config);
    const perCall = (savedBytes(checkpointer) - before) / 5;
    // The file is not in these checkpoints (delta channels); what grows is the conversation.
    expect(perCall).toBeLessThan(16 * 1024);
  });

  it("the same with createAgent: the file is in no artifact, and no call stores it more than the agent's own dispatch does", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "size" } };
    await agent(checkpointer, [{ code: "files.read('/big.txt').length" }, "done"], { languages: ["javascript"] }).invoke(ask("go", { files: { "/big.txt": big } }), config);
    const before = savedBytes(checkpointer);
    const state = await agent(checkpointer, [...cells, "done"], { languages: ["javascript"] }).invoke(ask("more"), config);
    const perCall = (savedBytes(checkpointer) - before) / 5;
    // Before: 90 MB for this thread (the whole file set in every artifact, 12 bytes per byte). What
    // remains is createAgent's: every invoke feeds the whole state back in as input, and every tool
    // call is a Send whose payload is the whole state, stored twice (docs/code-mode.md).
    expect(perCall).toBeLessThan(6 * big.length);
    for (const m of state.messages.filter((x): x is ToolMessage => ToolMessage.isInstance(x))) expect(JSON.stringify(m.artifact).length).toBeLessThan(4096);
  });
});
