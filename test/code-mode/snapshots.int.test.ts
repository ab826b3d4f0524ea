/**
 * Snapshots of JavaScript sessions (docs/code-mode.md, "Snapshots"): a session restored from a
 * snapshot answers any later cell exactly as the live session and as a replay of the whole log
 * do, at every checkpoint (time travel); a record that is corrupted, signed by another key
 * (planted), standing for other cells, or taken by another engine build is refused, and the log
 * is replayed instead.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { CodeModeRunner, type CellOutcome } from "../../src/code-mode/replay/runner.js";
import { snapshotStoreFromBaseStore, ThreadSnapshots, type SnapshotOptions, type SnapshotStore } from "../../src/code-mode/replay/snapshots.js";
import type { CodeCell } from "../../src/code-mode/replay/cell-log.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import { InvalidOptionError } from "../../src/errors.js";
import { artifact, ask, scriptedCodeModel } from "./helpers.js";

const sandbox = createSandbox({ poolSize: 1 });
const runners: CodeModeRunner[] = [];
afterAll(async () => {
  await Promise.all(runners.map((r) => r.dispose()));
  await sandbox.dispose();
});

const SECRET = "snapshot test secret, 32 bytes..";

/** A store in a Map, whose records a test can read and replace. */
function mapStore(): SnapshotStore & { map: Map<string, Uint8Array> } {
  const map = new Map<string, Uint8Array>();
  return { map, get: async (k) => map.get(k), put: async (k, v) => void map.set(k, v) };
}

function runner(snapshots?: SnapshotOptions): CodeModeRunner {
  const r = new CodeModeRunner({
    tools: new Map(),
    hostFunctions: {},
    sandbox,
    limits: { timeoutMs: 2000, maxOutputBytes: 2000 },
    caps: { maxFileBytes: 1 << 20, maxThreadFilesBytes: 10 << 20, maxThreadFiles: 1000 },
    record: { maxHostResultBytes: 1 << 20, maxCellRecordBytes: 8 << 20 },
    maxSessions: 4,
    ...(snapshots ? { snapshots } : {}),
  });
  runners.push(r);
  return r;
}

/** A thread's log and files, as a graph would keep them. */
interface Thread {
  cells: CodeCell[];
  files: Map<string, Uint8Array>;
}

async function step(r: CodeModeRunner, thread: Thread, code: string, threadId = "t", language: "javascript" | "python" = "javascript"): Promise<CellOutcome> {
  const outcome = await r.run({ code, language, persistence: "thread", threadId, cells: thread.cells, files: thread.files });
  if (outcome.cell) thread.cells.push(outcome.cell);
  for (const [path, bytes] of outcome.files.written) thread.files.set(path, bytes);
  for (const path of outcome.files.deleted) thread.files.delete(path);
  return outcome;
}

/** Failing after assigning, output-limited (rolled back), file-rewriting, random- and clock-using cells. */
const MIXED = [
  "var n = 1;\nfiles.write('/data.txt', 'v1');\nvar r1 = Math.random();",
  "function twice(x) { return 2 * x; }\nclass Box { constructor(v) { this.v = v; } }",
  "n = 99;\nvar before = 'set';\nthrow new Error('after assigning');",
  "var early = files.read('/data.txt');\nfiles.write('/data.txt', 'v2');",
  "var lost = 1;\nconsole.log('x'.repeat(5000));",
  "var t1 = Date.now();\nvar d1 = new Date().toISOString();\nvar r2 = Math.random();",
  "var box = new Box(twice(n));\nglobalThis.counter = (globalThis.counter ?? 0) + 1;",
  "files.delete('/data.txt');\nfiles.write('/other.txt', String(r1));",
  "var closure = (() => { let hidden = r2; return () => hidden; })();\nvar big = 'y'.repeat(100000);",
  "console.log('kept');\nvar last = [n, before, early].join(',');",
];
const QUERY =
  "JSON.stringify({ n: typeof n === 'undefined' ? null : n, before: typeof before === 'undefined' ? null : before, early: typeof early === 'undefined' ? null : early, lost: typeof lost, r1: typeof r1 === 'undefined' ? null : r1, r2: typeof r2 === 'undefined' ? null : r2, t1: typeof t1 === 'undefined' ? null : t1, box: typeof box === 'undefined' ? null : box.v, counter: globalThis.counter ?? null, closure: typeof closure === 'undefined' ? null : closure(), big: typeof big === 'undefined' ? null : big.length, files: files.list(), data: files.exists('/data.txt') ? files.read('/data.txt') : null, now: Date.now() > 0, twice: typeof twice })";

describe("snapshots of JavaScript sessions", () => {
  it("a session restored from a snapshot answers as the live session and as a whole replay, at every checkpoint", async () => {
    const store = mapStore();
    const live = runner({ store, secret: SECRET, every: 3 });
    const thread: Thread = { cells: [], files: new Map() };
    const kept: Thread[] = [];
    for (const code of MIXED) {
      const outcome = await step(live, thread, code);
      if (code.includes("repeat(5000)")) expect(outcome.result.status).toBe("output_limit");
      kept.push({ cells: [...thread.cells], files: new Map(thread.files) });
    }
    expect(thread.cells).toHaveLength(9);
    // Snapshots after 3, 6 and 9 cells of the log.
    expect(store.map.size).toBe(3);
    const query = (r: CodeModeRunner, at: Thread) => r.run({ code: QUERY, language: "javascript", persistence: "thread", threadId: "t", cells: at.cells, files: at.files });
    const answer = (o: CellOutcome) => {
      expect(o.result.status).toBe("success");
      return o.result.result;
    };
    const liveAnswer = answer(await query(live, thread));
    const fromSnapshot = await query(runner({ store, secret: SECRET, every: 3 }), thread);
    expect(fromSnapshot.restore).toMatchObject({ fromSnapshot: 9, replayed: 0, failures: [] });
    const replayed = await query(runner(), thread);
    expect(replayed.restore?.fromSnapshot).toBeUndefined();
    expect(answer(fromSnapshot)).toEqual(liveAnswer);
    expect(answer(replayed)).toEqual(liveAnswer);

    // Time travel: every earlier checkpoint, from its snapshot plus the cells after it, as a replay gives it.
    const travel = runner({ store, secret: SECRET, every: 3 });
    const replay = runner();
    for (const at of [kept[1]!, kept[3]!, kept[5]!, kept[7]!]) {
      const a = await query(travel, at);
      const b = await query(replay, at);
      expect(a.restore?.fromSnapshot ?? 0).toBe(at.cells.length - (at.cells.length % 3));
      expect(answer(a)).toEqual(answer(b));
    }
  });

  it("refuses a corrupted, planted, misplaced or other-engine snapshot and replays the log instead", async () => {
    const store = mapStore();
    const live = runner({ store, secret: SECRET, every: 2 });
    const thread: Thread = { cells: [], files: new Map() };
    for (const code of MIXED.slice(0, 4)) await step(live, thread, code, "t2");
    const liveAnswer = (await live.run({ code: QUERY, language: "javascript", persistence: "thread", threadId: "t2", cells: thread.cells, files: thread.files })).result.result;
    const [key2, key4] = [...store.map.keys()];
    const original = store.map.get(key4!)!;
    const restoreWith = async (record: Uint8Array, secret = SECRET) => {
      store.map.set(key4!, record);
      const o = await runner({ store, secret, every: 2 }).run({ code: QUERY, language: "javascript", persistence: "thread", threadId: "t2", cells: thread.cells, files: thread.files });
      expect(o.result.result).toEqual(liveAnswer);
      return o.restore!;
    };
    // Corrupted: one byte of the body flipped (the signature no longer matches): the snapshot after 2 cells is used.
    const corrupted = Buffer.from(original);
    corrupted[corrupted.byteLength - 100]! ^= 0xff;
    expect(await restoreWith(corrupted)).toMatchObject({ fromSnapshot: 2, replayed: 2 });
    // Planted: a well-formed record signed by another key (what code that could write to the store could make).
    const otherStore = mapStore();
    const other = runner({ store: otherStore, secret: "not the host's secret, 32 bytes.", every: 2 });
    const otherThread: Thread = { cells: [], files: new Map() };
    for (const cell of thread.cells) otherThread.cells.push(cell);
    await other.run({ code: "1", language: "javascript", persistence: "thread", threadId: "x", cells: otherThread.cells, files: thread.files });
    const planted = [...otherStore.map.values()].at(-1)!;
    expect(await restoreWith(planted)).toMatchObject({ fromSnapshot: 2 });
    // Misplaced: a valid record of this host's, for other cells (the snapshot after 2), under the key of 4.
    expect(await restoreWith(store.map.get(key2!)!)).toMatchObject({ fromSnapshot: 2 });
    // With no usable snapshot at all, the whole log is replayed.
    store.map.set(key2!, corrupted);
    expect((await restoreWith(corrupted)).fromSnapshot).toBeUndefined();
    store.map.set(key4!, original);
    // A store that fails: the restore replays, and a live cell whose snapshot cannot be kept still runs.
    const failing: SnapshotStore = { get: () => Promise.reject(new Error("store down")), put: () => Promise.reject(new Error("store down")) };
    const down = runner({ store: failing, secret: SECRET, every: 1 });
    const o = await down.run({ code: QUERY, language: "javascript", persistence: "thread", threadId: "t2", cells: thread.cells, files: thread.files });
    expect(o.result.result).toEqual(liveAnswer);
    expect(o.restore?.fromSnapshot).toBeUndefined();
    expect((await down.run({ code: "var more = 1;", language: "javascript", persistence: "thread", threadId: "t3", cells: [], files: new Map() })).result.status).toBe("success");
    // Another engine build: a record signed by this host whose engine is not this one is refused by the engine.
    const snapshots = new ThreadSnapshots({ store, secret: SECRET, every: 2 });
    const found = (await snapshots.find("javascript", thread.cells))!;
    expect(found.position).toBe(4);
    await snapshots.save("javascript", thread.cells, { ...found.snapshot, engine: "quickjs-0.31.0-0000" }, found.files);
    const refused = await restoreWith(store.map.get(key4!)!);
    expect(refused.fromSnapshot).toBeUndefined();
    expect(refused.snapshotRefused).toMatch(/another engine build/);
    // A state that does not fit the fresh session's layout is refused by the engine too.
    const state = JSON.parse(found.snapshot.state) as { layout: string };
    const shifted = { ...state, layout: state.layout.replace(/"owned":\[(\d+)/, (_, p: string) => `"owned":[${Number(p) + 16}`) };
    expect(shifted.layout).not.toBe(state.layout);
    await snapshots.save("javascript", thread.cells, { ...found.snapshot, state: JSON.stringify(shifted) }, found.files);
    expect((await restoreWith(store.map.get(key4!)!)).snapshotRefused).toMatch(/laid out differently/);
    // A record of this host's whose memory is larger than the session's memory may grow to (its
    // limit + margin): refused before the engine is touched. The restore replays the log, and
    // answers as the live session.
    await snapshots.save("javascript", thread.cells, { ...found.snapshot, memoryBytes: 4 * 1024 ** 3 - 4096 }, found.files);
    const tooLarge = await restoreWith(store.map.get(key4!)!);
    expect(tooLarge.fromSnapshot).toBeUndefined();
    expect(tooLarge.snapshotRefused).toMatch(/larger than this session's memory limit allows/);
    expect(tooLarge.failures).toEqual([]);
  });

  it("a session restored from a snapshot is byte for byte the one it came from; only a session that ran nothing takes one", async () => {
    const a = await sandbox.createSession({ language: "javascript" });
    const b = await sandbox.createSession({ language: "javascript" });
    try {
      // The guest replaces console and holds on to host functions: the snapshot keeps both.
      await a.run("var kept = 41;\nvar oldLog = console.log;\nvar keepFiles = files;\nconsole = { log: (...a) => oldLog('wrapped', ...a) };\ntry { throw new Error('marked'); } catch {}", { files: {} });
      const snapshot = await a.snapshot!();
      if (typeof snapshot === "string") throw new Error(snapshot);
      // Restored, then given the same next run as the session it came from: the same memory, byte for byte.
      const c = await sandbox.createSession({ language: "javascript" });
      try {
        expect(await c.restoreSnapshot!(snapshot)).toBeUndefined();
        const next = { inputs: { seed: "00112233445566778899aabbccddeeff" }, files: {} };
        const code = "kept += 1;\nconsole.log(kept);\nfiles.write('/k.txt', String(kept));\n[kept, Math.random()]";
        const [ra, rc] = [await a.run(code, next), await c.run(code, next)];
        expect(rc.result).toEqual(ra.result);
        expect(rc.stdout).toBe("wrapped 42\n");
        expect(rc.stdout).toBe(ra.stdout);
        expect(rc.files).toEqual(ra.files);
        const [sa, sc] = [await a.snapshot!(), await c.snapshot!()];
        if (typeof sa === "string" || typeof sc === "string") throw new Error("no snapshot");
        expect(Buffer.from(sc.pages).equals(Buffer.from(sa.pages))).toBe(true);
        expect([...sc.pageIndex]).toEqual([...sa.pageIndex]);
        expect(sc.state).toBe(sa.state);
      } finally {
        await c.dispose();
      }
      await b.run("var other = 1;");
      expect(await b.restoreSnapshot!(snapshot)).toMatch(/already run code/);
      expect((await b.run("typeof kept")).result).toBe("undefined");
      await expect(b.restoreSnapshot!("nope" as never)).rejects.toThrow(InvalidOptionError);
    } finally {
      await a.dispose();
      await b.dispose();
    }
  });

  it("checks its options", () => {
    expect(() => runner({ store: {} as SnapshotStore })).toThrow(/snapshots.store/);
    expect(() => runner({ store: mapStore(), secret: "short" })).toThrow(/snapshots.secret/);
    expect(() => runner({ store: mapStore(), every: 0 })).toThrow(/snapshots.every/);
  });

  it("the middleware keeps snapshots in a LangGraph store; a new process (new middleware) restores from them", async () => {
    const store = new InMemoryStore();
    const checkpointer = new MemorySaver();
    const options = { sandbox, languages: ["javascript" as const], snapshots: { store: snapshotStoreFromBaseStore(store), secret: SECRET, every: 2 } };
    const config = { configurable: { thread_id: "mw" } };
    const first = createAgent({ model: scriptedCodeModel({ code: "var a = 1;" }, { code: "var b = a + 1;" }, "done"), middleware: [codeModeMiddleware(options)], checkpointer });
    await first.invoke(ask("go"), config);
    expect((await store.search(["codegen-sandbox", "snapshots"])).length).toBe(1);
    const second = createAgent({ model: scriptedCodeModel({ code: "a + b" }, "done"), middleware: [codeModeMiddleware(options)], checkpointer });
    const state = await second.invoke(ask("again"), config);
    expect(artifact(state).result.result).toBe(3);
    expect(artifact(state).restore).toMatchObject({ fromSnapshot: 2, replayed: 0 });
  });
});

/** Python: failing after assigning, output-limited, file-rewriting, random- and clock-using cells, a file in /tmp, a half-used generator. */
const PY_MIXED = [
  "n = 1\nopen('/data.txt', 'w').write('v1')\nimport random, time, os\nr1 = random.random()",
  "def twice(x):\n    return 2 * x\nclass Box:\n    def __init__(self, v):\n        self.v = v",
  "n = 99\nbefore = 'set'\nraise ValueError('after assigning')",
  "early = open('/data.txt').read()\nopen('/data.txt', 'w').write('v2')",
  "lost = 1\nprint('x' * 5000)",
  "t1 = time.time()\nr2 = random.random()\nos.makedirs('/tmp/scratch', exist_ok=True)\nopen('/tmp/scratch/a', 'w').write('tmp')",
  "box = Box(twice(n))\nimport collections\ncounter = collections.Counter('hello')",
  "os.remove('/data.txt')\nopen('/other.txt', 'w').write(str(r1))",
  "gen = (i * i for i in range(10))\nnext(gen)\nbig = 'y' * 100000",
  "print('kept')",
];
const PY_QUERY = [
  "import os, random",
  "g = globals()",
  "{'n': g.get('n'), 'before': g.get('before'), 'early': g.get('early'), 'lost': 'lost' in g, 'r1': g.get('r1'), 'r2': g.get('r2'), 't1': g.get('t1'),",
  " 'box': box.v if 'box' in g else None, 'counter': dict(counter) if 'counter' in g else None, 'gen': next(gen) if 'gen' in g else None,",
  " 'big': len(big) if 'big' in g else None, 'files': sorted(os.listdir('/')), 'tmp': open('/tmp/scratch/a').read() if os.path.exists('/tmp/scratch/a') else None,",
  " 'ino': os.stat('/other.txt').st_ino if os.path.exists('/other.txt') else None, 'tmp_times': os.stat('/tmp').st_mtime, 'cwd': os.getcwd()}",
].join("\n");

const pyStep = (r: CodeModeRunner, thread: Thread, code: string) => step(r, thread, code, "py", "python");

describe("snapshots of Python sessions", () => {
  const pyQuery = (r: CodeModeRunner, at: Thread) => r.run({ code: PY_QUERY, language: "python", persistence: "thread", threadId: "py", cells: at.cells, files: at.files });
  const answer = (o: CellOutcome) => {
    expect(o.result.status, o.result.error?.message).toBe("success");
    return o.result.result;
  };

  it("a session restored from an image answers as the live session and as a whole replay, at earlier checkpoints too", { timeout: 120_000 }, async () => {
    const store = mapStore();
    const live = runner({ store, secret: SECRET, every: 3 });
    const thread: Thread = { cells: [], files: new Map() };
    const kept: Thread[] = [];
    for (const code of PY_MIXED) {
      const outcome = await pyStep(live, thread, code);
      if (code.includes("'x' * 5000")) expect(outcome.result.status).toBe("output_limit");
      kept.push({ cells: [...thread.cells], files: new Map(thread.files) });
    }
    expect(thread.cells).toHaveLength(9);
    expect(store.map.size).toBe(3);
    const liveAnswer = answer(await pyQuery(live, thread));
    const fromImage = await pyQuery(runner({ store, secret: SECRET, every: 3 }), thread);
    expect(fromImage.restore).toMatchObject({ fromSnapshot: 9, replayed: 0, failures: [] });
    const replayed = await pyQuery(runner(), thread);
    expect(replayed.restore?.fromSnapshot).toBeUndefined();
    expect(answer(fromImage)).toEqual(liveAnswer);
    expect(answer(replayed)).toEqual(liveAnswer);
    // Going back: the image of the checkpoint's own prefix, plus the cells after it.
    for (const at of [kept[3]!, kept[7]!]) {
      const a = await pyQuery(runner({ store, secret: SECRET, every: 3 }), at);
      expect(a.restore?.fromSnapshot).toBe(at.cells.length - (at.cells.length % 3));
      // Not /tmp's times before a cell touched it: a fresh process's own start (the image keeps the live one's).
      const withoutStart = (o: CellOutcome) => ({ ...(answer(o) as Record<string, unknown>), tmp_times: undefined });
      expect(withoutStart(a)).toEqual(withoutStart(await pyQuery(runner(), at)));
    }
  });

  it("takes no image while the session holds what an image cannot carry (an open file), and the restore replays", { timeout: 120_000 }, async () => {
    const store = mapStore();
    const live = runner({ store, secret: SECRET, every: 2 });
    const thread: Thread = { cells: [], files: new Map() };
    for (const code of ["a = 1", "keep = open('/tmp/open.txt', 'w')\nkeep.write('held')", "b = 2", "keep.close()"]) await pyStep(live, thread, code);
    // After cell 2 the file is open: no image; after cell 4 it is closed: an image.
    expect(store.map.size).toBe(1);
    const restored = await pyQuery(runner({ store, secret: SECRET, every: 2 }), thread);
    expect(restored.restore).toMatchObject({ fromSnapshot: 4, replayed: 0 });
    const check = "open('/tmp/open.txt').read() + str(a + b)";
    const a = await live.run({ code: check, language: "python", persistence: "thread", threadId: "py", cells: thread.cells, files: thread.files });
    const b = await runner({ store, secret: SECRET, every: 2 }).run({ code: check, language: "python", persistence: "thread", threadId: "py", cells: thread.cells, files: thread.files });
    expect(b.result.result).toBe("held3");
    expect(a.result.result).toBe("held3");
  });
});
