/**
 * The contents of the files a cell saw are stored once, apart from the log
 * (src/code-mode/thread/file-contents.ts): the log holds digests, `codeFileContents` the contents. A
 * restore in a fresh tool (no live session: like another process) and time travel stay exact;
 * a log written with the contents inline (the format before, or a graph without the channel) is
 * read as it is; only calls that bring new contents or write files update the store (so its
 * copies keep pace with those of `files`, and a quiet call stores no copy of the input files).
 */
import { afterAll, describe, expect, it } from "vitest";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesDeltaValue, MessagesValue, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { createHash } from "node:crypto";
import { Command } from "@langchain/langgraph";
import { z } from "zod";
import { planCommand } from "../../src/code-mode/tools/command-updates.js";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { MAX_UPDATES_BETWEEN_COPIES } from "../../src/code-mode/thread/copy-policy.js";
import { codeModeStateFields } from "../../src/code-mode/thread/state.js";
import { addContents, isContentRef, moveContentsOut, putContentsBack } from "../../src/code-mode/thread/file-contents.js";
import type { CodeCell } from "../../src/code-mode/replay/cell-log.js";
import { createCodeInterpreterTool, type ExecuteCodeArtifact } from "../../src/tools/code-interpreter-tool.js";

const KiB = 1024;
const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const call = (id: string, code: string) => new AIMessage({ id, content: "", tool_calls: [{ id: `c-${id}`, name: "execute_code", args: { language: "javascript", code }, type: "tool_call" }] });

type Fields = Record<string, unknown>;
/** A ToolNode graph with `fields`; a new one has a new tool, so no live session (like another process). */
function graph(checkpointer: MemorySaver, fields: Fields = codeModeStateFields, messages: unknown = MessagesValue) {
  return new StateGraph(new StateSchema({ messages: messages as typeof MessagesValue, ...(fields as typeof codeModeStateFields) }))
    .addNode("tools", new ToolNode([createCodeInterpreterTool({ sandbox, persistence: "thread", languages: ["javascript"] })]))
    .addEdge(START, "tools")
    .addEdge("tools", END)
    .compile({ checkpointer });
}

let n = 0;
async function run(g: ReturnType<typeof graph>, config: object, code: string, extra: Fields = {}): Promise<unknown> {
  const state = await g.invoke({ messages: [call(`m${n++}`, code)], ...extra }, config);
  const last = (state.messages as unknown[]).filter((m): m is ToolMessage => ToolMessage.isInstance(m)).at(-1)!;
  const result = (last.artifact as ExecuteCodeArtifact).result;
  expect(result.status, JSON.stringify(result)).toBe("success");
  return result.result;
}

describe("file contents stored once, apart from the log", { timeout: 120_000 }, () => {
  it("moves contents out by digest, once each, and puts them back; a content the store lacks is given as deleted", () => {
    const file = (content: string) => ({ content, mimeType: "text/plain", created_at: "t", modified_at: "t" });
    const cell: CodeCell = { id: "c1", language: "javascript", code: "1", filesIn: { "/a": file("same"), "/b": file("same"), "/c": null, "/d": "plain" } };
    const { cell: logged, added } = moveContentsOut(cell, {});
    expect(Object.values(added)).toEqual(["same"]);
    expect(isContentRef(logged.filesIn!["/a"])).toBe(true);
    expect(JSON.stringify(logged)).not.toContain('"same"');
    expect(logged.filesIn!["/c"]).toBeNull();
    expect(logged.filesIn!["/d"]).toBe("plain");
    expect(moveContentsOut(cell, added).added).toEqual({});
    const back = putContentsBack([logged], added);
    expect(back).toEqual({ cells: [cell], missing: 0 });
    const lacking = putContentsBack([logged], {});
    expect(lacking.missing).toBe(2);
    expect(lacking.cells[0]!.filesIn).toEqual({ "/a": null, "/b": null, "/c": null, "/d": "plain" });
  });

  it("the log holds digests; a fresh tool restores exactly, across an outside rewrite, and at an earlier checkpoint", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "refs" } };
    const live = graph(checkpointer);
    const a1 = "one:".padEnd(64 * KiB, "1");
    await run(live, config, "globalThis.first = files.read('/a.txt').slice(0, 5); files.list().length", { files: { "/a.txt": a1, "/b.txt": "b".repeat(64 * KiB) } });
    const afterFirst = (await live.getState(config)).config;
    const state = (await live.getState(config)).values as { codeCells: CodeCell[]; codeFileContents: Record<string, string> };
    expect(JSON.stringify(state.codeCells).length).toBeLessThan(2 * KiB);
    expect(Object.values(state.codeFileContents).sort((x, y) => x.length - y.length || (x < y ? -1 : 1))).toEqual([a1, "b".repeat(64 * KiB)].sort((x, y) => x.length - y.length || (x < y ? -1 : 1)));
    // Rewritten outside code (a graph input), then by code: each cell must see its own version.
    await run(live, config, "globalThis.second = files.read('/a.txt').slice(0, 5); files.write('/a.txt', 'three'); 0", { files: { "/a.txt": "two:" } });
    const query = "[first, second, files.read('/a.txt'), files.read('/b.txt').length].join(' ')";
    const expected = "one:1 two: three 65536";
    expect(await run(live, config, query)).toBe(expected);
    expect(await run(graph(checkpointer), config, query)).toBe(expected);
    // Back to the checkpoint after the first cell, in a fresh tool: that checkpoint's state.
    const past = { configurable: { ...afterFirst.configurable } };
    expect(await run(graph(checkpointer), past, "[first, typeof second, files.read('/a.txt').slice(0, 5)].join(' ')")).toBe("one:1 undefined one:1");
  });

  it("reads a log written with the contents inline (a graph without codeFileContents: the format before), and goes on with digests", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "inline" } };
    const { codeFileContents: _store, ...inlineFields } = codeModeStateFields;
    const old = graph(checkpointer, inlineFields);
    await run(old, config, "globalThis.first = files.read('/a.txt'); 0", { files: { "/a.txt": "old" } });
    const inline = ((await old.getState(config)).values as { codeCells: CodeCell[] }).codeCells;
    expect(inline[0]!.filesIn!["/a.txt"]).toMatchObject({ content: "old" });
    // The same thread in a graph with the channel: the inline cell replays, a new one logs digests.
    await run(graph(checkpointer), config, "globalThis.second = files.read('/a.txt'); 0", { files: { "/a.txt": "new" } });
    const cells = ((await old.getState(config)).values as { codeCells: CodeCell[] }).codeCells;
    expect(isContentRef(cells[1]!.filesIn!["/a.txt"])).toBe(true);
    expect(await run(graph(checkpointer), config, "first + ' ' + second")).toBe("old new");
  });

  it("a call that writes nothing leaves the store alone; a call that writes files updates it (empty when nothing is new)", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "touch" } };
    const g = graph(checkpointer, codeModeStateFields, MessagesDeltaValue);
    await run(g, config, "files.list().length", { files: { "/in.txt": "x".repeat(64 * KiB) } });
    const storeWrites = () => {
      const writes = (checkpointer as unknown as { writes: Record<string, Record<string, [string, string, Uint8Array]>> }).writes;
      return Object.values(writes).flatMap((w) => Object.values(w)).filter((r) => r[1] === "codeFileContents").map((r) => new TextDecoder().decode(r[2]));
    };
    const first = storeWrites();
    expect(first.join("").length).toBeGreaterThan(64 * KiB);
    await run(g, config, "1");
    expect(storeWrites()).toHaveLength(first.length);
    await run(g, config, "files.write('/out.txt', 'o'); 2");
    expect(storeWrites().slice(first.length)).toEqual(["{}"]);
  });

  it("the store copies after MAX_UPDATES_BETWEEN_COPIES updates, empty ones included, and never without one", async () => {
    const saver = new MemorySaver();
    const g = new StateGraph(new StateSchema({ codeFileContents: codeModeStateFields.codeFileContents, touch: z.boolean().default(false) }))
      .addNode("step", (s: { touch: boolean }) => (s.touch ? { codeFileContents: {} } : {}))
      .addEdge(START, "step")
      .addEdge("step", END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "copies" } };
    const content = "c".repeat(256 * KiB);
    const digest = createHash("sha256").update(content).digest("hex");
    await g.invoke({ codeFileContents: { [digest]: content } }, config);
    const copies = () => Object.values((saver as unknown as { storage: Record<string, Record<string, Record<string, [Uint8Array]>>> }).storage.copies![""]!).filter(([cp]) => (JSON.parse(new TextDecoder().decode(cp)) as { channel_values: Record<string, unknown> }).channel_values.codeFileContents !== undefined).length;
    const initial = copies();
    for (let i = 0; i < MAX_UPDATES_BETWEEN_COPIES + 5; i++) await g.invoke({ touch: false }, config);
    expect(copies()).toBe(initial);
    for (let i = 0; i < MAX_UPDATES_BETWEEN_COPIES + 5; i++) await g.invoke({ touch: true }, config);
    expect(copies()).toBe(initial + 1);
    expect(((await g.getState(config)).values as { codeFileContents: Record<string, string> }).codeFileContents[digest]).toBe(content);
  });

  it("attack: a write that names another content's digest is dropped, so a later cell's content cannot be planted ahead of it; tools called from code cannot write the store", async () => {
    const right = "the bytes the cell saw";
    const digest = createHash("sha256").update(right).digest("hex");
    // Planted first (by a node, a subagent's state, an input): dropped, so the right one gets in.
    const planted = addContents({}, [{ [digest]: "other bytes" }]);
    expect(planted).toEqual({});
    expect(addContents(planted, [{ [digest]: right }])).toEqual({ [digest]: right });
    expect(addContents({}, [{ [digest]: 42 as unknown as string }])).toEqual({});
    const plan = planCommand(new Command({ update: { codeFileContents: { [digest]: "other bytes" }, other: 1 } }), "c1", new Set(Object.keys(codeModeStateFields).filter((k) => k !== "files")));
    expect(plan).toMatchObject({ ok: true, writes: [["other", 1]], ignored: ["codeFileContents"] });
  });
});
