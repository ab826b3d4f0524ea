/**
 * Attacks on code mode's exact state: a cell that tampers with the clock and randomness it is
 * given (JavaScript and, through the realm Python can reach, Python), a fork written in both
 * branches, a replay in a process whose tools changed, a huge or deep tool value, and a log whose
 * cell can no longer be replayed at all (it must not leave the thread stuck).
 */
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { MemorySaver, Overwrite } from "@langchain/langgraph";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import type { CodeCell } from "../../src/code-mode/replay/cell-log.js";
import { scriptedCodeModel, type Turn, ask, lastTool, artifact } from "./helpers.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

type Options = Parameters<typeof codeModeMiddleware>[0];
const agent = (checkpointer: MemorySaver, turns: Turn[], options: Options = {}) =>
  createAgent({ model: scriptedCodeModel(...turns), middleware: [codeModeMiddleware({ sandbox, ...options })], checkpointer });

const lookup = tool(async ({ id }) => `item ${id}`, { name: "lookup", description: "Looks an item up.", schema: z.object({ id: z.number() }) });
const deep = tool(
  async ({ depth }) => {
    let v: unknown = 0;
    for (let i = 0; i < depth; i++) v = [v];
    return v as never;
  },
  { name: "deep", description: "A deeply nested value.", schema: z.object({ depth: z.number() }) },
);

describe("attacks on the recorded inputs", { timeout: 240_000 }, () => {
  it("JavaScript: a cell that replaces Math.random and Date.now replays exactly (the recording is outside its reach)", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "tamper-js" } };
    const turns: Turn[] = [
      { code: "const realRandom = Math.random;\nMath.random = () => 0.5;\nDate.now = () => 42;\nvar a = [Math.random(), Date.now(), realRandom(), new Date().getTime()];" },
      { code: "var b = [Math.random(), Date.now(), new Date().getTime() > 0];" },
      "done",
    ];
    await agent(checkpointer, turns, { languages: ["javascript"] }).invoke(ask("go"), config);
    const live = await agent(checkpointer, [{ code: "JSON.stringify([a, b])" }, "ok"], { languages: ["javascript"] }).invoke(ask("q"), config);
    const restored = await agent(checkpointer, [{ code: "JSON.stringify([a, b])" }, "ok"], { languages: ["javascript"] }).invoke(ask("q"), config);
    expect(artifact(restored).restore?.failures).toEqual([]);
    expect(artifact(restored).result.result).toBe(artifact(live).result.result);
  });

  it("Python: a cell that patches the clock, its entropy and the worker's /dev/urandom (through the realm it can reach) replays exactly and touches no other thread", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "tamper-py" } };
    // The file system Python shares with the worker's Emscripten (the device becomes a plain file of 7s).
    const turns: Turn[] = [
      {
        language: "python",
        code: "import importlib, time, random, os\nos.unlink('/dev/urandom')\nopen('/dev/urandom', 'wb').write(bytes([7] * 16))\nreal_time = time.time\ntime.time = lambda: 42.0\nrandom.seed(1)\na = [time.time(), real_time(), random.random(), list(open('/dev/urandom', 'rb').read(3)), os.urandom(2).hex()]",
      },
      { language: "python", code: "import time, os, random\nb = [time.time(), random.random(), os.urandom(2).hex()]" },
      "done",
    ];
    await agent(checkpointer, turns, { languages: ["python"] }).invoke(ask("go"), config);
    const query = { language: "python" as const, code: "import json\njson.dumps([a, b])" };
    const live = await agent(checkpointer, [query, "ok"], { languages: ["python"] }).invoke(ask("q"), config);
    const restored = await agent(checkpointer, [query, "ok"], { languages: ["python"] }).invoke(ask("q"), config);
    expect(artifact(live).result.status).toBe("success");
    expect(JSON.parse(String(artifact(live).result.result))[0]).toEqual([42, expect.any(Number), expect.any(Number), [7, 7, 7], expect.any(String)]);
    expect(artifact(restored).restore?.failures).toEqual([]);
    expect(artifact(restored).result.result).toBe(artifact(live).result.result);
    // Another thread has an interpreter of its own: its clock and devices are untouched.
    const other = await agent(new MemorySaver(), [{ language: "python", code: "import time\n[time.time() > 1e9, list(open('/dev/urandom', 'rb').read(3)) != [7, 7, 7]]" }, "ok"], { languages: ["python"] }).invoke(ask("go"), { configurable: { thread_id: "tamper-py-other" } });
    expect(artifact(other).result.result).toEqual([true, true]);
  });
});

describe("attacks on the log", { timeout: 240_000 }, () => {
  it("a fork written in both branches: each branch keeps its own definitions and files", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "fork" } };
    const middleware = codeModeMiddleware({ sandbox, languages: ["javascript"] });
    const run = (code: string, cfg: object) => createAgent({ model: scriptedCodeModel({ code }, "ok"), middleware: [middleware], checkpointer }).invoke(ask("go"), cfg);
    await run("var base = 'b';", config);
    const fork = (await checkpointer.getTuple(config))!.config;
    await run("var y = 1;\nfiles.write('/f.txt', 'one');", fork);
    const one = (await checkpointer.getTuple(config))!.config;
    await run("var y = 2;\nfiles.write('/f.txt', 'two');", fork);
    const two = (await checkpointer.getTuple(config))!.config;
    // The same process holds one live session: it follows whichever branch is asked for.
    for (const [cfg, expected] of [[one, [1, "one", "b"]], [two, [2, "two", "b"]], [one, [1, "one", "b"]]] as const) {
      const state = await run("[y, files.read('/f.txt'), base]", cfg);
      expect(artifact(state).result.result).toEqual(expected);
    }
  });

  it("a replay in a process whose tools changed is answered from the recording (the removed tool is not needed)", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "changed-tools" } };
    await agent(checkpointer, [{ code: "var item = await tools.lookup({ id: 7 });" }, "done"], { languages: ["javascript"], tools: [lookup] }).invoke(ask("go"), config);
    const restored = await agent(checkpointer, [{ code: "item" }, "ok"], { languages: ["javascript"], tools: [] }).invoke(ask("q"), config);
    expect(artifact(restored).restore?.failures).toEqual([]);
    expect(artifact(restored).result.result).toBe("item 7");
    // A new cell runs with the tools of its own process: the removed tool cannot be called.
    const next = await agent(checkpointer, [{ code: "await tools.lookup({ id: 1 })" }, "ok"], { languages: ["javascript"], tools: [] }).invoke(ask("q"), config);
    expect(artifact(next).result.status).toBe("runtime_error");
    expect(artifact(next).result.error?.message).toMatch(/__tool_lookup is not available/);
  });

  it("a huge or deep tool value never reaches the guest or the log", async () => {
    const checkpointer = new MemorySaver();
    const state = await agent(
      checkpointer,
      [{ code: "const out = [];\nfor (const depth of [10, 300_000]) { try { out.push(JSON.stringify(await tools.deep({ depth })).length); } catch (e) { out.push(e.name); } }\nout" }, "done"],
      { languages: ["javascript"], tools: [deep] },
    ).invoke(ask("go"), { configurable: { thread_id: "deep" } });
    const [small, refused] = artifact(state).result.result as [number, string];
    expect(small).toBe(21);
    expect(typeof refused).toBe("string");
    expect(JSON.stringify(state.codeCells).length).toBeLessThan(4096);
  });

  it("a cell that can no longer be replayed at all (it now ends its session) is left out and reported; the thread is not stuck", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "unreplayable" } };
    const a = agent(checkpointer, [{ code: "var first = 1;" }, { code: "var second = 2;" }, { code: "var third = 3;" }, "done"], { languages: ["javascript"] });
    await a.invoke(ask("go"), config);
    const { values } = (await a.getState(config)) as unknown as { values: { codeCells: CodeCell[] } };
    // Cell 2 rewritten to loop forever, with a small recorded budget: its replay times out, which ends the session.
    const forged = values.codeCells.map((c, i) => ({ ...c, id: `${c.id}-u`, ...(i === 1 ? { code: "while (true) {}", ran: { ...c.ran!, timeoutMs: 100, durationMs: 1 } } : {}) }));
    await a.updateState(config, { codeCells: new Overwrite(forged) });
    const state = await agent(checkpointer, [{ code: "[typeof first, typeof second, typeof third]" }, "ok"], { languages: ["javascript"] }).invoke(ask("q"), config);
    expect(String(lastTool(state).content)).toMatch(/cell 2 of 3 .* it was left out/);
    expect(artifact(state).result.result).toEqual(["number", "undefined", "number"]);
    // And the next call continues from there (no replay, no error).
    const next = await agent(checkpointer, [{ code: "first + third" }, "ok"], { languages: ["javascript"] }).invoke(ask("q"), config);
    expect(artifact(next).result).toMatchObject({ status: "success", result: 4 });
  });
});
