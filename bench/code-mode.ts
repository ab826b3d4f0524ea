/**
 * Bench section "code-mode": what code mode costs and saves.
 * - The 10-item task (one tool call per item): model calls and tokens, code mode vs plain tool calling.
 * - Checkpoint bytes each code call adds (the replay-log cell), beside the whole checkpoint's growth.
 * - Restore time of a thread of 20 calls in a process without its live session (replay), JS and Python.
 * - A thread's state (code-mode-state.ts): checkpoint bytes per call with 1 MiB of files, restore
 *   of a 200-cell thread in a fresh process, host RSS under the tool-result attacks.
 */
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { codeModeMiddleware } from "../src/tools/code-mode-middleware.js";
import { createSandbox } from "../src/sandbox/index.js";
import type { Language } from "../src/sandbox/types.js";
import type { ExecuteCodeArtifact } from "../src/tools/code-interpreter-tool.js";
import { runTenItemTask } from "./code-mode-scenario.js";
import { checkpointRows, restoreRows, rssRows } from "./code-mode-state.js";
import { ms, type BenchRow, type BenchSection } from "./table.js";

const CALLS = 20;

const getWeather = tool(async ({ city }) => `${city}: 21 C`, {
  name: "get_weather",
  description: "Current weather of a city.",
  schema: z.object({ city: z.string() }),
});

function cell(language: Language, i: number): string {
  return language === "python"
    ? `def f${i}(x):\n    return x * ${i}\nw${i} = await tools.get_weather(city='city${i}')\nf${i}(2)`
    : `function f${i}(x) { return x * ${i}; }\nconst w${i} = await tools.get_weather({ city: 'city${i}' });\nf${i}(2)`;
}

function codeTurns(cells: { language: Language; code: string }[]) {
  let model = fakeModel();
  for (const c of cells) {
    const id = randomUUID();
    model = model.respond(new AIMessage({ id, content: "", tool_calls: [{ name: "execute_code", args: c, id: `call-${id}`, type: "tool_call" }] }));
  }
  return model.respond(new AIMessage({ id: randomUUID(), content: "done" }));
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value ?? null));
}

async function threadOfCalls(language: Language, sandbox: ReturnType<typeof createSandbox>) {
  const checkpointer = new MemorySaver();
  const config = { configurable: { thread_id: `bench-${language}` }, recursionLimit: 100 };
  const make = (cells: { language: Language; code: string }[]) =>
    createAgent({ model: codeTurns(cells), middleware: [codeModeMiddleware({ sandbox, tools: [getWeather], languages: [language] })], checkpointer });
  const first = await make([{ language, code: cell(language, 0) }]).invoke({ messages: [{ role: "user", content: "go" }] }, config);
  const before = (await checkpointer.getTuple(config))!.checkpoint.channel_values;
  const cells = Array.from({ length: CALLS - 1 }, (_, i) => ({ language, code: cell(language, i + 1) }));
  const state = await make(cells).invoke({ messages: [{ role: "user", content: "more" }] }, config);
  const after = (await checkpointer.getTuple(config))!.checkpoint.channel_values;
  // The log is a delta channel (not in channel_values): a cell's own size is what a call adds to it.
  const logBytesPerCall = (jsonBytes(state.codeCells) - jsonBytes(first.codeCells)) / (CALLS - 1);
  const checkpointBytesPerCall = (jsonBytes(after) - jsonBytes(before)) / (CALLS - 1);
  // A fresh middleware has no live session: its first call replays the 20 cells.
  const restored = await make([{ language, code: language === "python" ? "f19(1)" : "f19(1)" }]).invoke({ messages: [{ role: "user", content: "again" }] }, config);
  const message = restored.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).at(-1)!;
  const artifact = message.artifact as ExecuteCodeArtifact;
  if (artifact.result.result !== 19 || !artifact.restore || artifact.restore.failures.length > 0) {
    throw new Error(`bench code-mode: the ${language} restore did not work: ${String(message.content)}`);
  }
  return { logBytesPerCall, checkpointBytesPerCall, restoreMs: artifact.restore.durationMs, cells: state.codeCells!.length };
}

const section: BenchSection = async () => {
  const rows: BenchRow[] = [];
  const sandbox = createSandbox({ poolSize: 1 });
  try {
    const code = await runTenItemTask("code", sandbox);
    const plain = await runTenItemTask("tools");
    rows.push(
      { section: "code-mode", metric: "10-item task: model calls", ours: `${code.modelCalls}`, baseline: `${plain.modelCalls}`, baselineName: "plain tool calling", goal: "2 vs 11+", met: code.modelCalls === 2 && plain.modelCalls >= 11 },
      { section: "code-mode", metric: "10-item task: tokens reported by the server (message text / 4)", ours: `${code.reportedTokens}`, baseline: `${plain.reportedTokens}`, baselineName: "plain tool calling" },
      { section: "code-mode", metric: "10-item task: tokens sent incl. tool definitions (JSON / 4)", ours: `${code.sentTokens}`, baseline: `${plain.sentTokens}`, baselineName: "plain tool calling" },
    );
    for (const language of ["javascript", "python"] as const) {
      const r = await threadOfCalls(language, sandbox);
      rows.push(
        {
          section: "code-mode",
          metric: `${language}: checkpoint bytes added per code call (replay-log cell)`,
          ours: `${Math.round(r.logBytesPerCall)} B`,
          baseline: `${Math.round(r.checkpointBytesPerCall)} B`,
          baselineName: "whole checkpoint growth per call (messages included)",
        },
        { section: "code-mode", metric: `${language}: restore of a ${CALLS}-call thread in a fresh process (replay)`, ours: ms(r.restoreMs) },
      );
    }
    rows.push(...(await checkpointRows(sandbox)), ...(await restoreRows(sandbox)), ...(await rssRows()));
  } finally {
    await sandbox.dispose();
  }
  return rows;
};

export default section;
