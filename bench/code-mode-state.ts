/**
 * Rows of the code-mode bench about a thread's state (issues 16 and 21):
 * - checkpoint bytes each code call adds when the thread holds 1 MiB of files (MemorySaver), in
 *   a graph of your own (ToolNode) beside the same graph with a full-value files channel, and in
 *   `createAgent` (its default `Send` per tool call, and `version: "v1"`);
 * - restore of a 200-cell thread in a fresh process (a child process replays the log), JS and
 *   Python;
 * - the host's RSS peak under 250 tool calls of 900 kB in one cell (a child process each).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AIMessage } from "@langchain/core/messages";
import { END, InMemoryStore, MemorySaver, MessagesDeltaValue, MessagesValue, ReducedValue, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { z } from "zod";
import { CodeModeRunner } from "../src/code-mode/replay/runner.js";
import { codeModeStateFields } from "../src/code-mode/thread/state.js";
import { MAX_UPDATES_BETWEEN_COPIES } from "../src/code-mode/thread/copy-policy.js";
import { mergeFiles, type ThreadFiles, type ThreadFilesUpdate } from "../src/code-mode/thread/files.js";
import { DEFAULT_MAX_CELL_RECORD_BYTES } from "../src/code-mode/replay/host-call-log.js";
import { DEFAULT_MAX_THREAD_FILES_BYTES } from "../src/code-mode/thread/files.js";
import type { CodeCell } from "../src/code-mode/replay/cell-log.js";
import type { SnapshotStore } from "../src/code-mode/replay/snapshots.js";
import { createCodeInterpreterTool } from "../src/tools/code-interpreter-tool.js";
import type { Sandbox, Language } from "../src/sandbox/types.js";
import { mib, ms, type BenchRow } from "./table.js";

const KiB = 1024;

/** Bytes a MemorySaver holds (checkpoints, metadata and pending writes). */
function savedBytes(saver: MemorySaver): number {
  let n = 0;
  const storage = (saver as unknown as { storage: Record<string, Record<string, Record<string, [Uint8Array, Uint8Array]>>> }).storage;
  for (const ns of Object.values(storage)) for (const cps of Object.values(ns)) for (const [cp, md] of Object.values(cps)) n += cp.length + md.length;
  const writes = (saver as unknown as { writes: Record<string, Record<string, [string, string, Uint8Array]>> }).writes;
  for (const w of Object.values(writes)) for (const r of Object.values(w)) n += r[2].length;
  return n;
}

/** 1 MiB of thread files: eight files of 128 KiB. */
function oneMiB(): Record<string, string> {
  return Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`/data/part${i}.txt`, String(i).repeat(128 * KiB)]));
}

const call = (id: string, code: string) =>
  new AIMessage({ id, content: "", tool_calls: [{ id: `c-${id}`, name: "execute_code", args: { language: "javascript", code }, type: "tool_call" }] });

/**
 * Checkpoint bytes per call of a ToolNode graph whose `files` channel is `files`; its messages
 * in LangGraph's delta channel (a full-value messages channel stores the whole conversation at
 * every step, whatever the tools do).
 */
async function perCall(sandbox: Sandbox, files: unknown, write: boolean, calls = 10, contentStore = true, fileContents: "checkpoint" | "store" = "checkpoint"): Promise<number> {
  const saver = new MemorySaver();
  const fields = { messages: MessagesDeltaValue as unknown as typeof MessagesValue, codeCells: codeModeStateFields.codeCells, files: files as typeof codeModeStateFields.files };
  // Without `codeFileContents` the log keeps the contents of the files it saw inline (the format before the store).
  const schema = new StateSchema(contentStore ? { ...fields, codeFileContents: codeModeStateFields.codeFileContents } : fields);
  const graph = new StateGraph(schema as StateSchema<typeof fields>)
    .addNode("tools", new ToolNode([createCodeInterpreterTool({ sandbox, persistence: "thread", languages: ["javascript"], fileContents })]))
    .addEdge(START, "tools")
    .addEdge("tools", END)
    .compile({ checkpointer: saver, store: new InMemoryStore() });
  const config = { configurable: { thread_id: "bench-bytes" } };
  await graph.invoke({ messages: [call("w0", "files.list().length")], files: oneMiB() }, config);
  const before = savedBytes(saver);
  for (let i = 0; i < calls; i++) await graph.invoke({ messages: [call(`w${i + 1}`, write ? `files.write('/out${i}.txt', 'z'.repeat(1024));` : `console.log(${i})`)] }, config);
  return (savedBytes(saver) - before) / calls - (write ? 1024 : 0);
}

/**
 * Checkpoint bytes per call of an agent loop of your own (a model node and a ToolNode), one
 * invoke of `calls` code calls after the one that brought the 1 MiB: what a call costs inside a
 * run, without a graph input per call (the rows above invoke the graph once per call, so each
 * call also stores an input checkpoint and its input message twice).
 */
async function perLoopCall(sandbox: Sandbox, write: boolean, fileContents: "checkpoint" | "store", calls = MAX_UPDATES_BETWEEN_COPIES): Promise<number> {
  const saver = new MemorySaver();
  let script: AIMessage[] = [];
  const schema = new StateSchema({ messages: MessagesDeltaValue as unknown as typeof MessagesValue, ...codeModeStateFields });
  const graph = new StateGraph(schema)
    .addNode("agent", async () => ({ messages: [script.shift() ?? new AIMessage({ content: "done" })] }))
    .addNode("tools", new ToolNode([createCodeInterpreterTool({ sandbox, persistence: "thread", languages: ["javascript"], fileContents })]))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (state) => ((state.messages.at(-1) as AIMessage | undefined)?.tool_calls?.length ? "tools" : END))
    .addEdge("tools", "agent")
    .compile({ checkpointer: saver, store: new InMemoryStore() });
  const config = { configurable: { thread_id: "bench-loop-bytes" }, recursionLimit: 4 * calls + 10 };
  script = [call("l0", "files.list().length")];
  await graph.invoke({ messages: [{ role: "user", content: "go" }], files: oneMiB() }, config);
  const before = savedBytes(saver);
  script = Array.from({ length: calls }, (_, i) => call(`l${i + 1}`, write ? `files.write('/out${i}.txt', 'z'.repeat(1024));` : `console.log(${i})`));
  await graph.invoke({ messages: [{ role: "user", content: "more" }] }, config);
  return (savedBytes(saver) - before) / calls - (write ? 1024 : 0);
}

/**
 * The same 1 MiB thread in `createAgent` with the middleware: bytes per call. `version: "v1"`
 * runs the tool calls of a message in one tools task instead of one `Send` each.
 */
async function perAgentCall(sandbox: Sandbox, version?: "v1", fileContents: "checkpoint" | "store" = "checkpoint"): Promise<number> {
  const { createAgent } = await import("langchain");
  const { fakeModel } = await import("@langchain/core/testing");
  const { codeModeMiddleware } = await import("../src/tools/code-mode-middleware.js");
  const saver = new MemorySaver();
  const store = new InMemoryStore();
  const config = { configurable: { thread_id: "bench-agent-bytes" } };
  const make = (codes: string[], tag: string) => {
    let model = fakeModel();
    codes.forEach((code, i) => (model = model.respond(call(`${tag}${i}`, code))));
    return createAgent({
      model: model.respond(new AIMessage({ id: `${tag}-end`, content: "done" })),
      middleware: [codeModeMiddleware({ sandbox, languages: ["javascript"], fileContents })],
      checkpointer: saver,
      store,
      ...(version ? { version } : {}),
    });
  };
  await make(["files.list().length"], "a").invoke({ messages: [{ role: "user", content: "go" }], files: oneMiB() }, config);
  const before = savedBytes(saver);
  const codes = Array.from({ length: 10 }, (_, i) => `console.log(${i})`);
  await make(codes, "b").invoke({ messages: [{ role: "user", content: "more" }] }, config);
  return (savedBytes(saver) - before) / codes.length;
}

/**
 * A whole `createAgent` thread: one 100 KB file and six cells (the first reads or writes the
 * file, five print a line), one invoke, MemorySaver: the bytes it stores. `how`: the file given
 * by the middleware's `files` option, as the graph's input, or written by the first cell;
 * `store`: the agent has an InMemoryStore (the default `fileContents` then keeps contents there).
 */
export async function agentThreadBytes(sandbox: Sandbox, how: "option" | "input" | "written", store: boolean): Promise<number> {
  const { createAgent } = await import("langchain");
  const { fakeModel } = await import("@langchain/core/testing");
  const { codeModeMiddleware } = await import("../src/tools/code-mode-middleware.js");
  const big = "y".repeat(100 * KiB);
  const saver = new MemorySaver();
  const codes = [how === "written" ? "files.write('/big.txt', 'y'.repeat(100 * 1024)); 1" : "files.read('/big.txt').length", ...Array.from({ length: 5 }, (_, i) => `console.log('cell ${i}')`)];
  let model = fakeModel();
  codes.forEach((code, i) => (model = model.respond(call(`t-${how}-${i}`, code))));
  const agent = createAgent({
    model: model.respond(new AIMessage({ id: `t-${how}-end`, content: "done" })),
    middleware: [codeModeMiddleware({ sandbox, languages: ["javascript"], ...(how === "option" ? { files: { "/big.txt": big } } : {}) })],
    checkpointer: saver,
    ...(store ? { store: new InMemoryStore() } : {}),
  });
  await agent.invoke({ messages: [{ role: "user", content: "go" }], ...(how === "input" ? { files: { "/big.txt": big } } : {}) } as never, { configurable: { thread_id: `bench-thread-${how}` } });
  return savedBytes(saver);
}

/** A full-value files channel (what deepagents' own ReducedValue does): the baseline. */
const fullValueFiles = new ReducedValue(z.record(z.string(), z.any()).default(() => ({})) as unknown as z.ZodType<ThreadFiles>, {
  inputSchema: z.record(z.string(), z.any()).optional() as unknown as z.ZodType<ThreadFilesUpdate | undefined>,
  reducer: (current: ThreadFiles, update: ThreadFilesUpdate | undefined) => mergeFiles(current, [update]),
});

/** Checkpoint rows. */
export async function checkpointRows(sandbox: Sandbox): Promise<BenchRow[]> {
  // Ours over MAX_UPDATES_BETWEEN_COPIES calls, so the amortised full copies are in the numbers
  // (the full-value baselines over 10: they store the whole set at every step anyway).
  const quiet = await perCall(sandbox, codeModeStateFields.files, false, MAX_UPDATES_BETWEEN_COPIES);
  const quietFull = await perCall(sandbox, fullValueFiles, false);
  const writing = await perCall(sandbox, codeModeStateFields.files, true, MAX_UPDATES_BETWEEN_COPIES);
  const writingFull = await perCall(sandbox, fullValueFiles, true);
  const quietInline = await perCall(sandbox, codeModeStateFields.files, false, MAX_UPDATES_BETWEEN_COPIES, false);
  const writingInline = await perCall(sandbox, codeModeStateFields.files, true, MAX_UPDATES_BETWEEN_COPIES, false);
  const agent = await perAgentCall(sandbox);
  const agentV1 = await perAgentCall(sandbox, "v1");
  const quietStore = await perCall(sandbox, codeModeStateFields.files, false, MAX_UPDATES_BETWEEN_COPIES, true, "store");
  const writingStore = await perCall(sandbox, codeModeStateFields.files, true, MAX_UPDATES_BETWEEN_COPIES, true, "store");
  const loop = { quiet: await perLoopCall(sandbox, false, "checkpoint"), writing: await perLoopCall(sandbox, true, "checkpoint") };
  const loopStore = { quiet: await perLoopCall(sandbox, false, "store"), writing: await perLoopCall(sandbox, true, "store") };
  const agentStore = await perAgentCall(sandbox, undefined, "store");
  const agentV1Store = await perAgentCall(sandbox, "v1", "store");
  const goal = 4 * KiB;
  const kib = (n: number) => `${(n / KiB).toFixed(1)} KiB`;
  const kb = (n: number) => `${Math.round(n / 1000)} KB`;
  const threadRows: BenchRow[] = [];
  for (const how of ["option", "written", "input"] as const) {
    const [withStore, without] = [await agentThreadBytes(sandbox, how, true), await agentThreadBytes(sandbox, how, false)];
    threadRows.push({
      section: "code-mode",
      metric: `createAgent thread, one 100 KB file ${how === "option" ? "(middleware's files option)" : how === "input" ? "(graph input)" : "(written by the first cell)"} and six cells, whole thread's checkpoint bytes (MemorySaver), a store in the agent (fileContents unset)`,
      ours: kb(withStore),
      baseline: kb(without),
      baselineName: "the same agent without a store (contents in the checkpoint)",
      goal: how === "input" ? "<= 300 KB (the graph input itself is stored twice by LangGraph: 205 KB of it)" : "<= 300 KB",
      met: withStore <= 300_000,
    });
  }
  const storeRows: BenchRow[] = [
    {
      section: "code-mode",
      metric: `fileContents: "store" (contents in the graph's InMemoryStore, references in the checkpoint), the same ToolNode graph, call writes nothing (over ${MAX_UPDATES_BETWEEN_COPIES} calls)`,
      ours: kib(quietStore),
      baseline: kib(quiet),
      baselineName: 'fileContents: "checkpoint" (the first row)',
      goal: "<= 4 KiB beyond what the call wrote",
      met: quietStore <= goal,
    },
    {
      section: "code-mode",
      metric: 'fileContents: "store", the same graph, call writes a 1 KiB file (bytes beyond it; the 1 KiB goes to the store)',
      ours: kib(writingStore),
      baseline: kib(writing),
      baselineName: 'fileContents: "checkpoint" (the second row)',
      goal: "<= 4 KiB beyond what the call wrote",
      met: writingStore <= goal,
    },
    {
      section: "code-mode",
      metric: `agent loop of your own (model node + ToolNode, one invoke of ${MAX_UPDATES_BETWEEN_COPIES} calls), 1 MiB of thread files, fileContents: "store", call writes nothing`,
      ours: kib(loopStore.quiet),
      baseline: kib(loop.quiet),
      baselineName: 'fileContents: "checkpoint", same loop',
      goal: "<= 4 KiB beyond what the call wrote",
      met: loopStore.quiet <= goal,
    },
    {
      section: "code-mode",
      metric: 'the same loop, fileContents: "store", call writes a 1 KiB file (bytes beyond it)',
      ours: kib(loopStore.writing),
      baseline: kib(loop.writing),
      baselineName: 'fileContents: "checkpoint", same loop',
      goal: "<= 4 KiB beyond what the call wrote",
      met: loopStore.writing <= goal,
    },
    {
      section: "code-mode",
      metric: 'createAgent with codeModeMiddleware({ fileContents: "store" }) and a store, 1 MiB of files, call writes nothing',
      ours: kib(agentStore),
      baseline: `${(agent / KiB).toFixed(0)} KiB`,
      baselineName: 'fileContents: "checkpoint" (each Send carries the whole state)',
      goal: "<= 4 KiB beyond what the call wrote",
      met: agentStore <= goal,
    },
    {
      section: "code-mode",
      metric: 'the same in createAgent({ version: "v1" }), fileContents: "store"',
      ours: kib(agentV1Store),
      baseline: `${(agentV1 / KiB).toFixed(0)} KiB`,
      baselineName: 'fileContents: "checkpoint"',
      goal: "<= 4 KiB beyond what the call wrote",
      met: agentV1Store <= goal,
    },
  ];
  return [
    {
      section: "code-mode",
      metric: `checkpoint bytes per code call, 1 MiB of thread files, graph with ToolNode and MessagesDeltaValue (MemorySaver), call writes nothing (over ${MAX_UPDATES_BETWEEN_COPIES} calls: amortised full copies included)`,
      ours: `${(quiet / KiB).toFixed(1)} KiB`,
      baseline: `${(quietFull / KiB).toFixed(0)} KiB`,
      baselineName: "files in a full-value channel",
      goal: "<= 4 KiB beyond what the call wrote",
      met: quiet <= goal,
    },
    {
      section: "code-mode",
      metric: "the same, call writes a 1 KiB file (bytes beyond it)",
      ours: `${(writing / KiB).toFixed(1)} KiB`,
      baseline: `${(writingFull / KiB).toFixed(0)} KiB`,
      baselineName: "files in a full-value channel",
      goal: "<= 4 KiB beyond what the call wrote",
      met: writing <= goal,
    },
    {
      section: "code-mode",
      metric: "the same two, the graph without codeFileContents (the log keeps the contents of the files it saw inline: the format before)",
      ours: `${(quietInline / KiB).toFixed(1)} KiB, ${(writingInline / KiB).toFixed(1)} KiB beyond the write`,
      baselineName: "call writes nothing, call writes 1 KiB",
      goal: "<= 4 KiB beyond what the call wrote",
      met: quietInline <= goal && writingInline <= goal,
    },
    {
      section: "code-mode",
      metric: "the same thread in createAgent with codeModeMiddleware, call writes nothing",
      ours: `${(agent / KiB).toFixed(0)} KiB`,
      baselineName: "createAgent stores each tool call's Send (the whole state) and feeds the state back in on invoke",
      goal: "<= 4 KiB beyond what the call wrote",
      met: agent <= goal,
    },
    {
      section: "code-mode",
      metric: "the same in createAgent({ version: \"v1\" }) (a message's tool calls in one tools task, no Send per call)",
      ours: `${(agentV1 / KiB).toFixed(0)} KiB`,
      baselineName: "what remains is createAgent's input: every invoke feeds the whole state back in (per invoke, here 10 calls)",
      goal: "<= 4 KiB beyond what the call wrote",
      met: agentV1 <= goal,
    },
    ...storeRows,
    ...threadRows,
  ];
}

/** A snapshot store in a directory (one file per snapshot), shared by the bench's processes. */
export function directoryStore(dir: string): SnapshotStore {
  return {
    get: async (key) => (existsSync(join(dir, key)) ? readFileSync(join(dir, key)) : undefined),
    put: async (key, value) => writeFileSync(join(dir, key), value),
  };
}

/** The secret the bench's processes sign their snapshots with. */
export const BENCH_SNAPSHOT_SECRET = "codegen-sandbox bench secret";

/** The runner both sides of the restore row use: no tools, code mode's default caps; snapshots in `snapshotDir` when given. */
export function benchRunner(sandbox: Sandbox, snapshotDir?: string): CodeModeRunner {
  return new CodeModeRunner({
    ...(snapshotDir ? { snapshots: { store: directoryStore(snapshotDir), secret: BENCH_SNAPSHOT_SECRET } } : {}),
    tools: new Map(),
    hostFunctions: {},
    sandbox,
    limits: {},
    caps: { maxFileBytes: 1 << 20, maxThreadFilesBytes: 10 << 20, maxThreadFiles: 1000 },
    record: { maxHostResultBytes: 1 << 20, maxCellRecordBytes: 8 << 20 },
    maxSessions: 2,
  });
}

/** A 200-cell log of `language`, made live by a runner. */
async function longLog(sandbox: Sandbox, language: Language, n: number, snapshotDir?: string): Promise<CodeCell[]> {
  const runner = benchRunner(sandbox, snapshotDir);
  const cells: CodeCell[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const code = language === "python" ? `def f${i}(x):\n    return x * ${i}\nlast = f${i}(2)` : `function f${i}(x) { return x * ${i}; }\nvar last = f${i}(2);`;
      const outcome = await runner.run({ code, language, persistence: "thread", threadId: `bench-long-${language}`, cells, files: new Map() });
      if (outcome.cell) cells.push(outcome.cell);
    }
  } finally {
    await runner.dispose();
  }
  return cells;
}

function child(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    c.stdout.on("data", (d) => (out += d));
    c.stderr.on("data", (d) => (err += d));
    c.on("close", (code) => (code === 0 ? resolve(out.trim().split("\n").at(-1)!) : reject(new Error(`child exited ${code}: ${err.slice(-1000)}`))));
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Restore rows: a child process replays a 200-cell log. */
export async function restoreRows(sandbox: Sandbox): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), "cm-bench-"));
  try {
    for (const [language, goalMs] of [["javascript", 200], ["python", 1500]] as const) {
      // The live run that makes the log keeps snapshots (every 16 cells) in a directory both sides can read.
      const snapshotDir = join(dir, `${language}-snapshots`);
      mkdirSync(snapshotDir);
      const cells = await longLog(sandbox, language, 200, snapshotDir);
      const file = join(dir, `${language}.json`);
      writeFileSync(file, JSON.stringify(cells));
      const script = fileURLToPath(new URL("./code-mode-restore-child.js", import.meta.url));
      const restore = async (...mode: string[]) => {
        const r = JSON.parse(await child([script, file, language, ...mode])) as { restoreMs: number; totalMs: number; result: unknown; failures: number; fromSnapshot: number };
        if (r.result !== 398 || r.failures !== 0) throw new Error(`bench code-mode: the ${language} 200-cell restore did not work: ${JSON.stringify(r)}`);
        if (mode[0] === "snapshots" && r.fromSnapshot !== 192) throw new Error(`bench code-mode: the ${language} restore did not use its snapshot: ${JSON.stringify(r)}`);
        return r;
      };
      // Both restore from their latest snapshot (cell 192) and replay 8 cells; the baseline is the
      // same log replayed whole without snapshots (main's restore), in a fresh process too,
      // alternating to share the load. Python: median of 3 (one restore swung by ±40 % with the load).
      const runs = language === "javascript" ? 5 : 3;
      const ours: number[] = [];
      const base: number[] = [];
      for (let i = 0; i < runs; i++) {
        const r = await restore("snapshots", snapshotDir);
        ours.push(r.restoreMs);
        base.push((await restore()).restoreMs);
      }
      const restoreMs = median(ours);
      rows.push({
        section: "code-mode",
        metric: `${language}: restore of a 200-cell thread in a fresh process (session start + snapshot + replay of the cells after it${runs > 1 ? `, median of ${runs}` : ""})`,
        ours: ms(restoreMs),
        baseline: ms(median(base)),
        baselineName: "the same log replayed whole, no snapshots",
        goal: `<= ${goalMs} ms`,
        met: restoreMs <= goalMs,
      });
      // The same restore with the session's engine started ahead, 500 ms before the call (what
      // codeModeMiddleware does before each model call).
      const ahead: number[] = [];
      for (let i = 0; i < runs; i++) ahead.push((await restore("snapshots", snapshotDir, "prestart")).restoreMs);
      const aheadMs = median(ahead);
      rows.push({
        section: "code-mode",
        metric: `${language}: the same restore, its engine started ahead (sandbox.prestartSession 500 ms before the call, as codeModeMiddleware does before each model call)${runs > 1 ? `, median of ${runs}` : ""}`,
        ours: ms(aheadMs),
        baseline: ms(restoreMs),
        baselineName: "the engine started by the call (the row above)",
        goal: `<= ${goalMs} ms`,
        met: aheadMs <= goalMs,
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** RSS rows: 250 tool calls of 900 kB in one cell, in a child process each. */
export async function rssRows(): Promise<BenchRow[]> {
  const fixture = fileURLToPath(new URL("../../test/code-mode/fixtures/memory-attack.mjs", import.meta.url));
  const bound = 2 * (DEFAULT_MAX_CELL_RECORD_BYTES + DEFAULT_MAX_THREAD_FILES_BYTES) + 64 * 1024 * 1024;
  const rows: BenchRow[] = [];
  for (const attack of ["js-many", "py-many", "js-huge"]) {
    const r = JSON.parse(await child(["--expose-gc", fixture, attack])) as { peakOverBaselineBytes: number; logBytes: number };
    rows.push({
      section: "code-mode",
      metric: `host RSS peak over its baseline, ${attack === "js-huge" ? "a 11.8 MB tool result six times (JS)" : `250 tool calls of 900 kB in one cell (${attack.startsWith("js") ? "JS" : "Python"})`}`,
      ours: mib(r.peakOverBaselineBytes),
      baseline: mib(r.logBytes),
      baselineName: "what the log keeps",
      goal: `<= 2 x the caps + 64 MiB (${mib(bound)})`,
      met: r.peakOverBaselineBytes <= bound,
    });
  }
  return rows;
}
