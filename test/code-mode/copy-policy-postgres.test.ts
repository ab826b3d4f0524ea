/**
 * The copy policy (src/code-mode/thread/copy-policy.ts) on PostgreSQL, whose saver reads a delta
 * channel by walking ancestors with one `getTuple` each (MemorySaver has its own walk): copies
 * come by size, and the files of any checkpoint, a fork's included, are that checkpoint's.
 * On a throwaway cluster (never skipped).
 */
import { describe, expect, it } from "vitest";
import { END, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { z } from "zod";
import { usePostgresSaver } from "../support/postgres-saver.js";
import { codeModeStateFields } from "../../src/code-mode/thread/state.js";
import type { ThreadFile, ThreadFiles } from "../../src/code-mode/thread/files.js";

const KiB = 1024;
const pg = usePostgresSaver();

const write = (i: number) => `${i}:`.padEnd(KiB, "z");
const digest = (content: unknown) => (typeof content === "string" ? `${content.slice(0, 12)}…${content.length}` : typeof content);
const contents = (files: ThreadFiles) => Object.fromEntries(Object.entries(files).map(([p, f]) => [p, digest((f as ThreadFile).content)]));

describe("copy policy on PostgreSQL", { timeout: 120_000 }, () => {
  it("copies by size; time travel and a fork across copies give each checkpoint's own files", async () => {
    const graph = new StateGraph(new StateSchema({ files: codeModeStateFields.files, i: z.number().default(0) }))
      .addNode("write", (s: { i: number }) => ({ files: { [`/out${s.i % 2}.txt`]: write(s.i) } }))
      .addEdge(START, "write")
      .addEdge("write", END)
      .compile({ checkpointer: pg.get() });
    const config = { configurable: { thread_id: "pg-policy" } };
    const start = Object.fromEntries(Array.from({ length: 8 }, (_, k) => [`/data/part${k}.txt`, String(k).repeat(16)]));
    const expected = (n: number, extra: (out: Record<string, string>) => void = () => {}) => {
      const out: Record<string, string> = Object.fromEntries(Object.entries(start).map(([p, c]) => [p, digest(c)]));
      for (let i = 0; i <= n; i++) out[`/out${i % 2}.txt`] = digest(write(i));
      extra(out);
      return out;
    };
    await graph.invoke({ files: start }, config);
    const after: string[] = [];
    for (let i = 1; i <= 30; i++) {
      await graph.invoke({ i }, config);
      after.push((await graph.getState(config)).config.configurable!.checkpoint_id as string);
    }
    // Copies are blobs of type json holding a delta snapshot; deltas are "empty" blobs.
    const { rows } = await (pg.get() as unknown as { pool: { query(sql: string, args: unknown[]): Promise<{ rows: { n: number }[] }> } }).pool.query("select count(*)::int as n from checkpoint_blobs where thread_id = $1 and channel = 'files' and type <> 'empty'", ["pg-policy"]);
    // ~3.5 KiB of files as stored (8 tiny ones, 2 of 1 KiB), ~1 KiB per write: a copy every ~3-4
    // writes, the first input's included (a fixed count of 10 would make 4).
    expect(rows[0].n).toBeGreaterThanOrEqual(7);
    expect(rows[0].n).toBeLessThanOrEqual(12);
    for (const n of [1, 6, 13, 22, 30]) {
      const past = await graph.getState({ configurable: { thread_id: "pg-policy", checkpoint_id: after[n - 1] } });
      expect(contents(past.values.files as ThreadFiles)).toEqual(expected(n));
    }
    await graph.updateState({ configurable: { thread_id: "pg-policy", checkpoint_id: after[12] } }, { files: { "/fork.txt": "f", "/data/part0.txt": null } });
    for (let i = 100; i < 112; i++) await graph.invoke({ i }, config);
    const forked = expected(13, (out) => {
      delete out["/data/part0.txt"];
      out["/fork.txt"] = digest("f");
      for (let i = 100; i < 112; i++) out[`/out${i % 2}.txt`] = digest(write(i));
    });
    expect(contents((await graph.getState(config)).values.files as ThreadFiles)).toEqual(forked);
    const main = await graph.getState({ configurable: { thread_id: "pg-policy", checkpoint_id: after[29] } });
    expect(contents(main.values.files as ThreadFiles)).toEqual(expected(30));
  });
});
