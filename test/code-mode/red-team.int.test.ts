/**
 * Red team of code mode (exact state + tools from code), through the public API: crafted logs,
 * late answers and Commands of a cell that has ended, oversized host-call arguments.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { MemorySaver, Overwrite } from "@langchain/langgraph";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import type { CodeCell } from "../../src/code-mode/replay/cell-log.js";
import { DEFAULT_MAX_CELL_RECORD_BYTES } from "../../src/code-mode/replay/host-call-log.js";
import { DEFAULT_MAX_THREAD_FILES_BYTES } from "../../src/code-mode/thread/files.js";
import { scriptedCodeModel, type Turn, ask, lastTool, artifact } from "./helpers.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

type Options = Parameters<typeof codeModeMiddleware>[0];
const agent = (checkpointer: MemorySaver, turns: Turn[], options: Options = {}) =>
  createAgent({ model: scriptedCodeModel(...turns), middleware: [codeModeMiddleware({ sandbox, languages: ["javascript", "python"], ...options })], checkpointer });

const ran = { durationMs: 1, timeoutMs: 5000, memoryLimitBytes: 64 * 1024 * 1024, maxOutputBytes: 1024 * 1024, maxHostCalls: 256, maxHostCallsInFlight: 8, maxResultBytes: 1024 * 1024 };

describe("a log edited by hand (updateState) never makes the host throw or call a real function", { timeout: 120_000 }, () => {
  it("limits out of range, a bad seed, invalid globals and host function names: each cell is reported, and the thread goes on", async () => {
    const seed = "0".repeat(32);
    const crafted: Record<string, unknown[]> = {
      // Before the fix: InvalidOptionError from the sandbox on every later call (a thread stuck for good).
      limits: [{ id: "h", language: "javascript", code: "var z = 1", status: "success", hostCalls: [], seed, clock: "", ran: { ...ran, timeoutMs: 1e12, memoryLimitBytes: 2 ** 50, maxOutputBytes: 2 ** 50, maxHostCalls: -1, maxHostCallsInFlight: 0, maxResultBytes: 1e15 } }],
      seed: [{ id: "s", language: "javascript", code: "var z = 2", status: "success", hostCalls: [], seed: "zz", clock: "", ran }],
      globals: [{ id: "g", language: "javascript", code: "var z = 3", status: "success", hostCalls: [], env: { globals: { "not an id": 1, tools: 2 }, hostFunctions: ["not an id", "print"] }, seed, clock: "", ran }],
      // A recording that names a real host function: answered from the recording only.
      host: [{ id: "p", language: "javascript", code: "var z = await note('x')", status: "success", hostCalls: [{ name: "note", args: ["x"], value: "recorded", order: 0 }], env: { hostFunctions: ["__proto__", "constructor", "note"] }, seed, clock: "", ran }],
    };
    const results = await Promise.all(
      Object.entries(crafted).map(async ([name, cells]) => {
        const checkpointer = new MemorySaver();
        const config = { configurable: { thread_id: `crafted-${name}` } };
        let realCalls = 0;
        const options: Options = { languages: ["javascript"], hostFunctions: { note: async () => (realCalls++, "real") } };
        await agent(checkpointer, [{ code: "var a = 1" }, "ok"], options).invoke(ask("go"), config);
        const next = agent(checkpointer, [{ code: "[typeof a, typeof z === 'undefined' ? null : z]" }, "ok"], options);
        await next.updateState(config, { codeCells: cells as CodeCell[] });
        const state = await next.invoke(ask("q"), config);
        return { name, realCalls, artifact: artifact(state) };
      }),
    );
    for (const { name, realCalls, artifact: a } of results) {
      expect(realCalls, name).toBe(0);
      expect(a.result.status, name).toBe("success");
      expect((a.result.result as unknown[])[0], name).toBe("number");
      if (name === "host") {
        expect(a.restore?.failures, name).toEqual([]);
        expect(a.result.result).toEqual(["number", "recorded"]);
      } else if (name === "limits") {
        // Out-of-range limits are replaced by the defaults: the cell replays.
        expect(a.restore?.failures, name).toEqual([]);
        expect(a.result.result).toEqual(["number", 1]);
      } else {
        expect(a.restore?.failures.join("\n"), name).toMatch(/could not run: its log entry is not valid/);
      }
    }
  });
});

const root = fileURLToPath(new URL("../../", import.meta.url));
const memoryFixture = fileURLToPath(new URL("./fixtures/memory-attack.mjs", import.meta.url));
const MiB = 1024 * 1024;

/** One attack of fixtures/memory-attack.mjs in a child process (the built package): its report line. */
function memoryAttack(name: string): Promise<{ attack: string; peakOverBaselineBytes: number; logBytes: number; status: string; result: unknown }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--expose-gc", memoryFixture, name], { cwd: root, env: { PATH: process.env.PATH } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(stdout.trim().split("\n").at(-1)!)) : reject(new Error(`${name}: exit ${code}: ${stderr.slice(-2000)}`))));
  });
}

describe("host-call arguments count against the cell's caps", { timeout: 180_000 }, () => {
  it("100 calls with 4 MB arguments (JavaScript) and 200 with 1 MB (Python): the host survives, the log stays within maxCellRecordBytes", async () => {
    // Before: 400 MB of log and a 1.2 GB RSS peak (JavaScript; 200 calls made a log JSON cannot
    // even print), 200 MB of log (Python).
    const [js, py] = await Promise.all([memoryAttack("js-args"), memoryAttack("py-args")]);
    for (const r of [js, py]) {
      expect(r.status, r.attack).toBe("success");
      expect(r.logBytes, r.attack).toBeLessThan(DEFAULT_MAX_CELL_RECORD_BYTES + 256 * 1024);
      expect(r.peakOverBaselineBytes, r.attack).toBeLessThan(2 * (DEFAULT_MAX_CELL_RECORD_BYTES + DEFAULT_MAX_THREAD_FILES_BYTES) + 64 * MiB);
    }
    // Arguments over one result's cap are kept as their digest: every call is made.
    expect(js.result).toEqual([100, 0]);
    // 1 MB arguments are kept as they are, up to the cell's cap; the calls past it are refused.
    expect(py.result).toEqual([8, 192]);
  });

  it("a cell whose calls were refused for their arguments, or kept as digests, replays exactly in a fresh runner", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "args-replay" } };
    let realCalls = 0;
    const measure = tool(async ({ text }) => (realCalls++, text.length), { name: "measure", description: "Length.", schema: z.object({ text: z.string() }) });
    const code = "const big = 'b'.repeat(1_500_000), mid = 'm'.repeat(900_000);\nvar got = [];\nfor (let i = 0; i < 16; i++) { try { got.push(await tools.measure({ text: i % 4 === 0 ? big : mid + i })); } catch (e) { got.push(e.name); } }";
    const options: Options = { languages: ["javascript"], tools: [measure], timeoutMs: 30_000 };
    // The same middleware (its live session) for the cell and the first query; a new one (a fresh runner: a replay) for the second.
    const middleware = codeModeMiddleware({ sandbox, ...options });
    const withLive = (turns: Turn[]) => createAgent({ model: scriptedCodeModel(...turns), middleware: [middleware], checkpointer });
    await withLive([{ code }, "ok"]).invoke(ask("go"), config);
    const live = artifact(await withLive([{ code: "got" }, "ok"]).invoke(ask("q"), config));
    expect(live.restore).toBeUndefined();
    const callsBefore = realCalls;
    const restored = artifact(await agent(checkpointer, [{ code: "got" }, "ok"], options).invoke(ask("q"), config));
    expect(realCalls).toBe(callsBefore);
    expect(restored.restore?.failures).toEqual([]);
    expect(restored.result.result).toEqual(live.result.result);
    const got = live.result.result as unknown[];
    expect(got.filter((g) => g === "HostResultLimitError").length, JSON.stringify(got)).toBeGreaterThan(0);
    expect(got[0]).toBe(1_500_000);
  });
});

describe("a tool call the cell did not wait for", { timeout: 120_000 }, () => {
  it("is kept in the log as unanswered (the step no longer fails on the log's schema) and replays exactly, JavaScript and Python", async () => {
    let realCalls = 0;
    const slow = tool(async ({ ms }) => (realCalls++, await new Promise((r) => setTimeout(r, ms)), "late"), { name: "slow", description: "Answers late.", schema: z.object({ ms: z.number() }) });
    const cases: Turn[] = [
      { code: "tools.slow({ ms: 400 });\nvar fired = 1;" },
      { language: "python", code: "import asyncio\nasyncio.ensure_future(tools.slow(ms=400))\nawait asyncio.sleep(0)\nfired = 1" },
    ];
    for (const [i, turn] of cases.entries()) {
      {
        const checkpointer = new MemorySaver();
        const config = { configurable: { thread_id: `unawaited-${i}` } };
        const language = typeof turn === "string" ? "javascript" : (turn.language ?? "javascript");
        const options: Options = { tools: [slow], languages: [language] };
        // Before: "Validation failed for field codeCells ... order ... expected number to be >=0" (the agent run threw).
        const first = artifact(await agent(checkpointer, [turn, "ok"], options).invoke(ask("go"), config));
        expect(first.result.status).toBe("success");
        await new Promise((r) => setTimeout(r, 500));
        const callsBefore = realCalls;
        const restored = artifact(await agent(checkpointer, [{ language, code: "fired" }, "ok"], options).invoke(ask("q"), config));
        expect(restored.restore?.failures).toEqual([]);
        expect(restored.result.result).toBe(1);
        expect(realCalls).toBe(callsBefore);
      }
    }
  });
});

describe("a live session is used only for the log it ran", { timeout: 60_000 }, () => {
  it("a log rewritten by hand under the same ids (updateState + Overwrite) is replayed, as in a fresh process", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "same-ids" } };
    const middleware = codeModeMiddleware({ sandbox, languages: ["javascript"] });
    const withLive = (turns: Turn[]) => createAgent({ model: scriptedCodeModel(...turns), middleware: [middleware], checkpointer });
    const first = withLive([{ code: "var a = 1" }, "ok"]);
    await first.invoke(ask("go"), config);
    const cells = ((await first.getState(config)) as unknown as { values: { codeCells: CodeCell[] } }).values.codeCells.map((c) => ({ ...c, code: "var a = 999" }));
    await first.updateState(config, { codeCells: new Overwrite(cells) });
    // Before: the live session answered 1 (it knew its cells by id only); a fresh process, 999.
    const live = artifact(await withLive([{ code: "a" }, "ok"]).invoke(ask("q"), config));
    const fresh = artifact(await agent(checkpointer, [{ code: "a" }, "ok"], { languages: ["javascript"] }).invoke(ask("q"), config));
    expect(fresh.result.result).toBe(999);
    expect(live.result.result).toBe(999);
  });
});
