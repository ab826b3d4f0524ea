/**
 * `fileContents: "store"` across processes on PostgreSQL (PostgresSaver + PostgresStore on one
 * throwaway cluster, never skipped): process A gives a thread ~1 MiB of files as graph input and
 * runs cells that read them, fail after assigning, use randomness, write and rewrite a file; a
 * fresh process B answers A's query exactly, and as of an earlier checkpoint when asked. The
 * `files` channel in PostgreSQL holds references, and the checkpoint bytes a writing call adds
 * are far below those of `fileContents: "checkpoint"` on the same sequence (a size, not a time).
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { startPostgres, type PostgresCluster } from "../support/postgres.js";
import { lastJsonLineOf } from "../support/child-json.js";

const fixture = fileURLToPath(new URL("./fixtures/agent-process.mjs", import.meta.url));

interface Result {
  content: string;
  status: string;
  result: unknown;
  restore: { replayed: number; failures: string[]; fromSnapshot?: number; snapshotRefused?: string } | null;
}
interface FileState {
  content?: number;
  contentSha256?: string;
  size?: number;
}
interface InvokeReport {
  results: Result[];
  checkpointId: string;
  checkpointBytes: number;
  fileState?: Record<string, FileState>;
}
interface ProcessReport {
  pid: number;
  invokes: InvokeReport[];
}
type Cell = { language: string; code: string };
interface Plan {
  invokes: { cells: Cell[]; checkpointId?: string; files?: Record<string, string> }[];
  options?: Record<string, unknown>;
  store?: boolean;
  snapshotsEvery?: number;
}

let pg: PostgresCluster;
let planDir: string;
beforeAll(async () => {
  pg = await startPostgres();
  // The tables once, here: processes that set them up at the same time race on the migrations.
  const saver = PostgresSaver.fromConnString(pg.url);
  const store = PostgresStore.fromConnString(pg.url);
  try {
    await saver.setup();
    await store.setup();
  } finally {
    await saver.end();
    await store.stop();
  }
  planDir = mkdtempSync(join(tmpdir(), "codegen-pg-plan-"));
}, 60_000);
afterAll(async () => {
  await pg?.stop();
  if (planDir) rmSync(planDir, { recursive: true, force: true });
});

let plans = 0;
async function agentProcess(threadId: string, plan: Plan): Promise<ProcessReport> {
  // The plan goes through a file: it holds ~1 MiB of files, more than one argument may.
  const planFile = join(planDir, `plan-${plans++}.json`);
  writeFileSync(planFile, JSON.stringify(plan));
  return lastJsonLineOf<ProcessReport>(fixture, [pg.url, threadId, `@${planFile}`]);
}

/** Text that does not compress (hex of a hash chain), so no layer can make it look small. */
function noise(bytes: number, seed: string): string {
  let out = "";
  let h = seed;
  while (out.length < bytes) out += h = createHash("sha256").update(h).digest("hex");
  return out.slice(0, bytes);
}
const KiB = 1024;
const INPUT = { "/data/a.txt": noise(512 * KiB, "a"), "/data/b.txt": noise(500 * KiB, "b"), "/notes.txt": "v1" };

const js = (code: string): Cell => ({ language: "javascript", code });
const py = (code: string): Cell => ({ language: "python", code });
const WRITES = 3;

const SEQUENCES = {
  javascript: {
    set: js("var n = 1;"),
    cells: [
      js("n = 99;\nvar x = 100;\nthrow new Error('after assigning');"),
      js("var r1 = Math.random();\nvar a = files.read('/data/a.txt');\nvar sum = 0;\nfor (let i = 0; i < a.length; i += 997) sum += a.charCodeAt(i);\nvar early = files.read('/notes.txt');"),
      js("files.write('/notes.txt', 'v2 ' + r1);"),
      js("files.write('/notes.txt', files.read('/notes.txt') + ' v3');\nfiles.write('/new.txt', 'new');\nfunction describe(s) { return s + '!'; }"),
    ],
    writes: Array.from({ length: WRITES }, (_, i) => js(`files.write('/counter.txt', 'count ${i} '.repeat(8));`)),
    query: js("JSON.stringify({ n, x, r1, sum, early, now: files.read('/notes.txt'), added: files.read('/new.txt'), d: describe('q'), b: files.read('/data/b.txt').length, counter: files.read('/counter.txt') })"),
    back: js("JSON.stringify([n, typeof x, files.read('/notes.txt'), typeof describe, files.read('/data/a.txt').length])"),
    backAnswer: [1, "undefined", "v1", "undefined", 512 * KiB],
  },
  python: {
    set: py("n = 1"),
    cells: [
      py("n = 99\nx = 100\nraise ValueError('after assigning')"),
      py("import random\nr1 = random.random()\na = open('/data/a.txt').read()\nsm = sum(ord(a[i]) for i in range(0, len(a), 997))\nearly = open('/notes.txt').read()"),
      py("open('/notes.txt', 'w').write('v2 ' + str(r1))"),
      py("t = open('/notes.txt').read()\nopen('/notes.txt', 'w').write(t + ' v3')\nopen('/new.txt', 'w').write('new')\ndef describe(s):\n    return s + '!'"),
    ],
    writes: Array.from({ length: WRITES }, (_, i) => py(`open('/counter.txt', 'w').write('count ${i} ' * 8)`)),
    query: py("import json\njson.dumps([n, x, r1, sm, early, open('/notes.txt').read(), open('/new.txt').read(), describe('q'), len(open('/data/b.txt').read()), open('/counter.txt').read()])"),
    back: py("import json\njson.dumps([n, 'x' in globals(), open('/notes.txt').read(), 'describe' in globals(), len(open('/data/a.txt').read())])"),
    backAnswer: [1, false, "v1", false, 512 * KiB],
  },
} as const;

// The two languages at once: each test's processes wait mostly on their engines and the database.
describe.concurrent("fileContents: store across processes on PostgreSQL", { timeout: 300_000 }, () => {
  // `fileContents` unset (JavaScript): the store by default, since the agent has one.
  const runs = [["javascript", "store"], ["python", "store"], ["javascript", undefined]] as const;
  for (const [language, fileContents] of runs) {
    it(`${language}${fileContents ? "" : ", fileContents unset"}: B answers as A did and as of an earlier checkpoint; files hold references; a writing call adds far fewer checkpoint bytes than in checkpoint mode`, async () => {
      const s = SEQUENCES[language];
      const invokes = [{ cells: [s.set], files: INPUT }, { cells: [...s.cells] }, { cells: [...s.writes] }, { cells: [s.query] }];
      const options = { languages: [language] };
      const storeOptions = { ...options, ...(fileContents ? { fileContents } : {}) };
      const thread = `${fileContents ?? "default"}-${language}`;
      // Checkpoint mode beside it, in parallel (another thread of the database): the same input
      // and writes (the other cells change the files by a few bytes; left out, as they cost ~6 MB
      // of checkpoints each there).
      const [a, inline] = await Promise.all([
        agentProcess(`store-${thread}`, { store: true, options: storeOptions, invokes }),
        agentProcess(`inline-${thread}`, { options, invokes: [invokes[0]!, invokes[2]!] }),
      ]);
      expect(a.invokes[1]!.results.map((r) => r.status), a.invokes[1]!.results.map((r) => r.content).join("\n---\n")).toEqual(["runtime_error", "success", "success", "success"]);
      expect(a.invokes[2]!.results.map((r) => r.status)).toEqual(Array(WRITES).fill("success"));
      const live = a.invokes[3]!.results[0]!;
      expect(live.status).toBe("success");
      const answer = JSON.parse(String(live.result)) as unknown;
      const counter = `count ${WRITES - 1} `.repeat(8);
      if (language === "javascript") {
        const r1 = (answer as { r1: number }).r1;
        expect(answer).toMatchObject({ n: 99, x: 100, early: "v1", now: `v2 ${r1} v3`, added: "new", d: "q!", b: 500 * KiB, counter });
      } else {
        const r1 = (answer as unknown[])[2] as number;
        expect(answer).toEqual([99, 100, r1, expect.any(Number), "v1", `v2 ${r1} v3`, "new", "q!", 500 * KiB, counter]);
      }

      // The files channel as PostgreSQL holds it: references only, sizes of the real bytes.
      const saved = a.invokes[3]!.fileState!;
      expect(Object.keys(saved).sort()).toEqual(["/counter.txt", "/data/a.txt", "/data/b.txt", "/new.txt", "/notes.txt"]);
      for (const [path, file] of Object.entries(saved)) {
        expect(file, path).not.toHaveProperty("content");
        expect(file.contentSha256, path).toMatch(/^[0-9a-f]{64}$/);
      }
      expect(saved["/data/a.txt"]!.size).toBe(512 * KiB);
      expect(saved["/counter.txt"]).toMatchObject({ size: counter.length, contentSha256: createHash("sha256").update(counter).digest("hex") });

      // Checkpoint bytes a writing call adds (one small file rewritten), in each mode.
      const perWrite = (r: ProcessReport, writes: number) => (r.invokes[writes]!.checkpointBytes - r.invokes[writes - 1]!.checkpointBytes) / WRITES;
      const [storeBytes, inlineBytes] = [perWrite(a, 2), perWrite(inline, 1)];
      console.info(`${language}: checkpoint bytes per writing call: store ${Math.round(storeBytes)}, checkpoint ${Math.round(inlineBytes)}; whole thread: store ${a.invokes[2]!.checkpointBytes}, checkpoint ${inline.invokes[1]!.checkpointBytes}`);
      expect(storeBytes).toBeGreaterThan(0);
      expect(storeBytes).toBeLessThan(inlineBytes / 3);
      // The whole thread too (store mode with four calls more). Store mode still has the input's
      // megabyte a few times (the input's write, `__start__`, the first tool call's task, until
      // the move), once per thread.
      expect(a.invokes[2]!.checkpointBytes).toBeLessThan(inline.invokes[1]!.checkpointBytes / 3);

      // A fresh process: the same answer, then the state of the checkpoint after the first call.
      const b = await agentProcess(`store-${thread}`, {
        store: true,
        options: storeOptions,
        invokes: [{ cells: [s.query] }, { cells: [s.back], checkpointId: a.invokes[0]!.checkpointId }],
      });
      expect(b.pid).not.toBe(a.pid);
      const restored = b.invokes[0]!.results[0]!;
      expect(restored.restore).toMatchObject({ failures: [] });
      expect(restored.restore!.replayed).toBeGreaterThanOrEqual(1 + s.cells.length);
      expect(restored.result).toBe(live.result);
      // B read the same references back from PostgreSQL (its query wrote no file).
      expect(b.invokes[0]!.fileState).toEqual(saved);
      const back = b.invokes[1]!.results[0]!;
      expect(back.status).toBe("success");
      expect(JSON.parse(String(back.result))).toEqual(s.backAnswer);
    });
  }
});

describe("Python images in a PostgresStore across processes", { timeout: 300_000 }, () => {
  it("process B restores a Python thread from the image process A kept, replays only the cell after it, and answers as A did; back in time it replays", async () => {
    const s = SEQUENCES.python;
    const plan = { store: true, snapshotsEvery: 4, options: { languages: ["python"], fileContents: "store" } };
    // 1 + 4 + 3 cells and A's query: images after cells 4 and 8, then the query is replayed.
    const a = await agentProcess("images-python", { ...plan, invokes: [{ cells: [s.set], files: INPUT }, { cells: [...s.cells] }, { cells: [...s.writes] }, { cells: [s.query] }] });
    const live = a.invokes[3]!.results[0]!;
    expect(live.status, live.content).toBe("success");
    const b = await agentProcess("images-python", { ...plan, invokes: [{ cells: [s.query] }, { cells: [s.back], checkpointId: a.invokes[0]!.checkpointId }] });
    expect(b.pid).not.toBe(a.pid);
    const restored = b.invokes[0]!.results[0]!;
    expect(restored.restore).toMatchObject({ fromSnapshot: 8, replayed: 1, failures: [] });
    expect(restored.restore!.snapshotRefused).toBeUndefined();
    expect(restored.result).toBe(live.result);
    const back = b.invokes[1]!.results[0]!;
    expect(back.restore).toMatchObject({ replayed: 1, failures: [] });
    expect(JSON.parse(String(back.result))).toEqual(s.backAnswer);
  });
});
