/**
 * Code mode in `createAgent({ version: "v1" })`, the option docs/code-mode.md names for threads
 * with many files: `createAgent` runs a message's tool calls in one tools task instead of one
 * `Send` each (whose payload is the whole state), so a call stores what it wrote, not the
 * thread's files; and code mode keeps its promises there too (two calls in one message run in
 * order, each seeing the one before; a fresh agent restores the thread).
 */
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import type { CodeCell } from "../../src/code-mode/replay/cell-log.js";
import { scriptedCodeModel, scriptedParallelModel, type Turn, ask, artifact, savedBytes } from "./helpers.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());


const middleware = () => codeModeMiddleware({ sandbox, languages: ["javascript"] });

describe("code mode in createAgent({ version: 'v1' })", { timeout: 120_000 }, () => {
  it("a call stores about what it wrote, not the thread's files (v2 stores them in every call's Send)", async () => {
    const big = "y".repeat(200 * 1024);
    const perCall = async (version: "v1" | "v2") => {
      const checkpointer = new MemorySaver();
      const config = { configurable: { thread_id: `bytes-${version}` } };
      const run = (turns: Turn[], input: Record<string, unknown>) => createAgent({ model: scriptedCodeModel(...turns), middleware: [middleware()], checkpointer, version }).invoke(input as never, config);
      await run([{ code: "files.read('/big.txt').length" }, "done"], ask("go", { files: { "/big.txt": big } }));
      const before = savedBytes(checkpointer);
      const cells: Turn[] = Array.from({ length: 8 }, (_, i) => ({ code: `console.log('cell ${i}')` }));
      await run([...cells, "done"], ask("more"));
      return (savedBytes(checkpointer) - before) / cells.length;
    };
    const v1 = await perCall("v1");
    const v2 = await perCall("v2");
    // v2: each call's Send holds the file (and the first cell's record of it) twice over.
    expect(v2).toBeGreaterThan(4 * big.length);
    // v1: the file is stored once per invoke (the state fed back in as input, and one copy of
    // each channel), spread over the invoke's calls.
    expect(v1).toBeLessThan(v2 / 4);
  });

  it("two calls in one message run in order, each seeing the one before; a fresh agent restores the thread", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "parallel-v1" } };
    const calls = [{ code: "var a = 1;\nfiles.write('/p.txt', 'one');" }, { code: "[a, files.read('/p.txt')]" }];
    const state = await createAgent({ model: scriptedParallelModel(calls, "done"), middleware: [middleware()], checkpointer, version: "v1" }).invoke(ask("go"), config);
    expect(artifact(state).result.result).toEqual([1, "one"]);
    const cells = state.codeCells as CodeCell[];
    expect(cells.map((c) => c.code)).toEqual(calls.map((c) => c.code));
    expect(cells[1]!.after).toBe(cells[0]!.id);
    const restored = await createAgent({ model: scriptedCodeModel({ code: "[a, files.read('/p.txt')]" }, "ok"), middleware: [middleware()], checkpointer, version: "v1" }).invoke(ask("again"), config);
    expect(artifact(restored).result.result).toEqual([1, "one"]);
  });
});
