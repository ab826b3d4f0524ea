/**
 * A replayed cell runs under the smaller of its logged limits and the runner's: a log written
 * through `updateState` that claims a 20 s budget replays under the runner's 2 s (with the
 * replay slack of twice plus a second), and a thread started under larger limits continues
 * under lowered ones (a cell that no longer fits is reported as diverged; no call throws
 * `InvalidOptionError`).
 */
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { MemorySaver, Overwrite } from "@langchain/langgraph";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import type { CodeCell } from "../../src/code-mode/replay/cell-log.js";
import { scriptedCodeModel, type Turn, ask, lastTool, artifact } from "./helpers.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

type Options = Parameters<typeof codeModeMiddleware>[0];
const agent = (checkpointer: MemorySaver, turns: Turn[], options: Options = {}) =>
  createAgent({ model: scriptedCodeModel(...turns), middleware: [codeModeMiddleware({ sandbox, languages: ["javascript"], ...options })], checkpointer });

const MiB = 1024 * 1024;

describe("replays under the runner's limits", { timeout: 240_000 }, () => {
  it("a cell rewritten through updateState into a 20 s loop with a 20 s logged budget replays under the runner's 2 s limit", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "forged-budget" } };
    const limits = { timeoutMs: 2_000 };
    const a = agent(checkpointer, [{ code: "var first = 1;" }, { code: "var second = 2;" }, "done"], limits);
    await a.invoke(ask("go"), config);
    const { values } = (await a.getState(config)) as unknown as { values: { codeCells: CodeCell[] } };
    // Counted, not timed: a replay reads the recorded clock, so a Date.now() loop would end at once.
    const loop = "let i = 0; while (i < 4e9) i++;\nvar second = 2;";
    const forged = values.codeCells.map((c, i) => ({ ...c, id: `${c.id}-f`, ...(i === 1 ? { code: loop, ran: { ...c.ran!, timeoutMs: 30_000, durationMs: 20_000 } } : {}) }));
    await a.updateState(config, { codeCells: new Overwrite(forged) });
    const started = performance.now();
    const b = agent(checkpointer, [{ code: "[typeof first, typeof second]" }, "ok", { code: "first + 1" }, "ok"], limits);
    const state = await b.invoke(ask("q"), config);
    const ms = performance.now() - started;
    // The runner's 2 s, twice, plus a second (and the rest of the call), never the log's 20 s.
    expect(ms).toBeLessThan(12_000);
    expect(String(lastTool(state).content)).toMatch(/cell 2 of 2 .*ended timeout on replay/);
    expect(artifact(state).result).toMatchObject({ status: "success", result: ["number", "undefined"] });
    // The thread is not stuck: the next call of the same agent runs without replaying again.
    const next = await b.invoke(ask("q"), config);
    expect(artifact(next).result).toMatchObject({ status: "success", result: 2 });
    expect(artifact(next).restore).toBeUndefined();
  });

  it("a log's output and result caps above the runner's are cut to the runner's", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "forged-output" } };
    const limits = { maxOutputBytes: 1024 };
    const a = agent(checkpointer, [{ code: "var first = 1;" }, { code: "var second = 2;" }, "done"], limits);
    await a.invoke(ask("go"), config);
    const { values } = (await a.getState(config)) as unknown as { values: { codeCells: CodeCell[] } };
    const flood = "console.log('x'.repeat(200000));\nvar second = 2;";
    const forged = values.codeCells.map((c, i) => ({ ...c, id: `${c.id}-o`, ...(i === 1 ? { code: flood, ran: { ...c.ran!, maxOutputBytes: 64 * MiB } } : {}) }));
    await a.updateState(config, { codeCells: new Overwrite(forged) });
    const state = await agent(checkpointer, [{ code: "typeof second" }, "ok"], limits).invoke(ask("q"), config);
    expect(String(lastTool(state).content)).toMatch(/cell 2 of 2 .*ended output_limit on replay/);
    expect(artifact(state).result).toMatchObject({ status: "success" });
  });

  it("a thread started under larger limits continues under lowered ones: no InvalidOptionError, a cell that no longer fits is diverged", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "lowered" } };
    const big = { memoryLimitBytes: 256 * MiB, timeoutMs: 10_000 };
    await agent(
      checkpointer,
      [{ code: "var kept = 'small';" }, { code: "var held = new Array(4 * 1024 * 1024).fill(0).map((_, i) => i); var count = held.length;" }, { code: "var after = 3;" }, "done"],
      big,
    ).invoke(ask("go"), config);
    const small = { memoryLimitBytes: 16 * MiB, timeoutMs: 10_000 };
    const state = await agent(checkpointer, [{ code: "[kept, typeof count, after]" }, "ok"], small).invoke(ask("q"), config);
    expect(String(lastTool(state).content)).not.toMatch(/InvalidOptionError/);
    expect(artifact(state).result).toMatchObject({ status: "success", result: ["small", "undefined", 3] });
    expect(artifact(state).restore?.failures.join("\n")).toMatch(/cell 2 of 3 .*memory_limit/);
    // And the thread goes on under the lowered limit, call after call.
    const next = await agent(checkpointer, [{ code: "kept + after" }, "ok"], small).invoke(ask("q"), config);
    expect(artifact(next).result).toMatchObject({ status: "success", result: "small3" });
  });

  it("raising the limits again replays the old cells as they ran", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "raised" } };
    await agent(checkpointer, [{ code: "var a = 1;" }, { code: "var b = a + 1;" }, "done"], { memoryLimitBytes: 16 * MiB, timeoutMs: 2_000 }).invoke(ask("go"), config);
    const state = await agent(checkpointer, [{ code: "a + b" }, "ok"], { memoryLimitBytes: 128 * MiB, timeoutMs: 10_000 }).invoke(ask("q"), config);
    expect(artifact(state).restore?.failures).toEqual([]);
    expect(artifact(state).result).toMatchObject({ status: "success", result: 3 });
  });
});
