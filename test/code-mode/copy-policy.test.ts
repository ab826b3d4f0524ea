/**
 * The copy policy of code mode's delta channels (src/code-mode/thread/copy-policy.ts), on a plain
 * graph whose node writes files (no sandbox, so hundreds of steps run in a second): a full copy
 * is stored once the writes since the last one reach the value's size, or after
 * MAX_UPDATES_BETWEEN_COPIES updates; so checkpoint bytes per step follow what the step wrote,
 * a read never walks past MAX_UPDATES_BETWEEN_COPIES updates, and every checkpoint's files are
 * exactly that checkpoint's (time travel, forks).
 */
import { describe, expect, it } from "vitest";
import { END, MemorySaver, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { z } from "zod";
import { codeModeStateFields } from "../../src/code-mode/thread/state.js";
import { MAX_UPDATES_BETWEEN_COPIES, withCopyPolicy } from "../../src/code-mode/thread/copy-policy.js";
import type { ThreadFile, ThreadFiles } from "../../src/code-mode/thread/files.js";
import { savedBytes } from "./helpers.js";

const KiB = 1024;

/** A graph whose node writes `/out{i % distinct}.txt` (1 KiB) on each invoke with `{ i }`. */
function fileWriter(checkpointer: MemorySaver, distinct = 1_000_000) {
  return new StateGraph(new StateSchema({ files: codeModeStateFields.files, i: z.number().default(0) }))
    .addNode("write", (s: { i: number }) => ({ files: { [`/out${s.i % distinct}.txt`]: `${s.i}:`.padEnd(KiB, "z") } }))
    .addEdge(START, "write")
    .addEdge("write", END)
    .compile({ checkpointer });
}

function set(bytes: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: 8 }, (_, k) => [`/data/part${k}.txt`, String(k).repeat(bytes / 8)]));
}


/** Ids of the checkpoints of `thread` that hold a full copy of `files`, oldest first. */
function copies(saver: MemorySaver, thread: string): string[] {
  const storage = (saver as unknown as { storage: Record<string, Record<string, Record<string, [Uint8Array]>>> }).storage;
  return Object.entries(storage[thread]![""]!)
    .filter(([, [cp]]) => (JSON.parse(new TextDecoder().decode(cp)) as { channel_values: Record<string, unknown> }).channel_values.files !== undefined)
    .map(([id]) => id)
    .sort();
}

/** Short and exact: a content's head and length (the failures stay readable). */
const digest = (content: unknown) => (typeof content === "string" ? `${content.slice(0, 12)}…${content.length}` : typeof content);

/** The files the writer's thread holds after invokes 0..n on `start` (the first invoke writes too), computed without LangGraph. */
function expected(start: Record<string, string>, n: number, distinct = 1_000_000): Record<string, string> {
  const out: Record<string, string> = Object.fromEntries(Object.entries(start).map(([p, c]) => [p, digest(c)]));
  for (let i = 0; i <= n; i++) out[`/out${i % distinct}.txt`] = digest(`${i}:`.padEnd(KiB, "z"));
  return out;
}

const contents = (files: ThreadFiles) => Object.fromEntries(Object.entries(files).map(([p, f]) => [p, digest((f as ThreadFile).content)]));

describe("copy policy of the delta channels", () => {
  it("1 MiB of files and 1 KiB writes: bytes per step stay O(written) over many steps, and a copy comes within MAX_UPDATES_BETWEEN_COPIES updates", async () => {
    const saver = new MemorySaver();
    const graph = fileWriter(saver);
    const config = { configurable: { thread_id: "many" } };
    await graph.invoke({ files: set(1024 * KiB) }, config);
    const before = savedBytes(saver);
    const copiesBefore = copies(saver, "many").length;
    const steps = MAX_UPDATES_BETWEEN_COPIES + 20;
    for (let i = 1; i <= steps; i++) await graph.invoke({ i }, config);
    const perStep = (savedBytes(saver) - before) / steps;
    // A copy of the 1 MiB set every 10 updates (the policy before) was ~100 KiB per step; a copy
    // every MAX_UPDATES_BETWEEN_COPIES updates costs 1 MiB / that, amortised.
    expect(perStep).toBeLessThan(KiB + 2 * KiB + (1024 * KiB * 1.2) / MAX_UPDATES_BETWEEN_COPIES);
    expect(copies(saver, "many").length - copiesBefore).toBe(1);
    const state = await graph.getState(config);
    expect(contents(state.values.files as ThreadFiles)).toEqual(expected(set(1024 * KiB), steps));
  });

  it("a small set copies as soon as the writes since the last copy reach its size: reads stay short", async () => {
    const saver = new MemorySaver();
    const graph = fileWriter(saver, 4);
    const config = { configurable: { thread_id: "small" } };
    await graph.invoke({ files: set(1 * KiB) }, config);
    const first = copies(saver, "small").length;
    for (let i = 1; i <= 40; i++) await graph.invoke({ i }, config);
    // ~6.7 KiB of files as stored (8 of 128 B, 4 of 1 KiB, each with its path and timestamps),
    // ~1 KiB per write: a copy every ~6-7 writes (a fixed count of 10 would make 4).
    const made = copies(saver, "small").length - first;
    expect(made).toBeGreaterThanOrEqual(5);
    expect(made).toBeLessThanOrEqual(8);
    expect(contents((await graph.getState(config)).values.files as ThreadFiles)).toEqual(expected(set(1 * KiB), 40, 4));
  });

  it("files that JSON escapes (control characters, 6 bytes each) are measured as stored: a copy still costs no more than the writes", async () => {
    const saver = new MemorySaver();
    const graph = fileWriter(saver, 4);
    const config = { configurable: { thread_id: "escaped" } };
    // 8 KiB of characters that serialize to 48 KiB; by their length a copy would be due every ~6 writes.
    await graph.invoke({ files: { "/control.txt": "\u0001".repeat(8 * KiB) } }, config);
    const before = savedBytes(saver);
    const steps = 92;
    for (let i = 1; i <= steps; i++) await graph.invoke({ i }, config);
    const perStep = (savedBytes(saver) - before) / steps;
    // Each step writes ~1 KiB, its checkpoints ~2 KiB, and a ~52 KiB copy every ~46 steps ~1 KiB;
    // measured by the characters' count, a copy every ~7 steps would add ~7 KiB.
    expect(perStep).toBeLessThan(5 * KiB);
  });

  it("time travel and forks across copies: every checkpoint's files are that checkpoint's", async () => {
    const saver = new MemorySaver();
    const graph = fileWriter(saver, 4);
    const config = { configurable: { thread_id: "travel" } };
    const start = set(2 * KiB);
    await graph.invoke({ files: start }, config);
    const after: string[] = [];
    for (let i = 1; i <= 30; i++) {
      await graph.invoke({ i }, config);
      after.push((await graph.getState(config)).config.configurable!.checkpoint_id as string);
    }
    expect(copies(saver, "travel").length).toBeGreaterThan(2);
    for (const n of [1, 7, 12, 19, 25, 30]) {
      const past = await graph.getState({ configurable: { thread_id: "travel", checkpoint_id: after[n - 1] } });
      expect(contents(past.values.files as ThreadFiles)).toEqual(expected(start, n, 4));
    }
    // A fork from invoke 12: an update there, then more steps on the fork; the main line is untouched.
    const fork = await graph.updateState({ configurable: { thread_id: "travel", checkpoint_id: after[11] } }, { files: { "/fork.txt": "f", "/data/part0.txt": null } });
    expect(fork.configurable?.checkpoint_id).toBeDefined();
    for (let i = 100; i < 125; i++) await graph.invoke({ i }, config);
    const forked = expected(start, 12, 4);
    delete forked["/data/part0.txt"];
    forked["/fork.txt"] = digest("f");
    for (let i = 100; i < 125; i++) forked[`/out${i % 4}.txt`] = digest(`${i}:`.padEnd(KiB, "z"));
    expect(contents((await graph.getState(config)).values.files as ThreadFiles)).toEqual(forked);
    const main = await graph.getState({ configurable: { thread_id: "travel", checkpoint_id: after[29] } });
    expect(contents(main.values.files as ThreadFiles)).toEqual(expected(start, 30, 4));
  });

  it("a hand-written log the measure cannot serialise still reduces (the measure never throws)", () => {
    const reduce = (codeModeStateFields.codeCells as unknown as { reducer: unknown }).reducer as (this: unknown, current: unknown[], writes: unknown[][]) => unknown[];
    const channelLike = { lc_graph_name: "DeltaChannel", snapshotFrequency: 7 };
    const cells = reduce.call(channelLike, [], [[{ id: "a", language: "javascript", code: "1", big: 1n }]]);
    expect(cells).toHaveLength(1);
    expect(channelLike.snapshotFrequency).toBe(1);
  });

  it("outside a channel the reducer is the plain reducer", () => {
    const reduce = withCopyPolicy((current: number, writes: number[]) => writes.reduce((a, b) => a + b, current), { valueBytes: () => 1, writeBytes: () => 1 });
    expect(reduce(1, [2, 3])).toBe(6);
    const channelLike = { lc_graph_name: "DeltaChannel", snapshotFrequency: 7 };
    reduce.call(channelLike, 0, [1]);
    expect(channelLike.snapshotFrequency).toBe(1);
  });
});
