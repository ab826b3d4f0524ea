/**
 * Red team of `fileContents: "store"`: what an untrusted program, a hand-edited state
 * (`updateState`) or a tampered store can do to a thread whose file contents are in the graph's
 * LangGraph store. Code must see only bytes whose digest its references name, within the caps on
 * the real bytes, from its own thread; a move of a content into the store never wins over a write.
 * MemorySaver + InMemoryStore, ToolNode graphs (as custom-graph.test.ts).
 */
import { afterAll, describe, expect, it } from "vitest";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { InMemoryStore, MemorySaver, MessagesValue, START, END, StateGraph, StateSchema } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { codeModeStateFields } from "../../src/code-mode/thread/state.js";
import { fileContentsNamespace, readStoredFile, sha256Hex, type StoredFileRef } from "../../src/code-mode/thread/content-store.js";
import type { ThreadFile, ThreadFiles } from "../../src/code-mode/thread/files.js";
import { createCodeInterpreterTool } from "../../src/tools/code-interpreter-tool.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

/** An InMemoryStore that counts the keys it is asked for and the largest batch it was given. */
class CountingStore extends InMemoryStore {
  gets = 0;
  largestBatch = 0;
  /** Refuse the next puts (a store that is down). */
  failPuts = false;
  override async batch<Op extends Parameters<InMemoryStore["batch"]>[0]>(operations: Op) {
    if (this.failPuts && operations.some((op) => "value" in op)) throw new Error("store is down");
    for (const op of operations) if ("key" in op && !("value" in op)) this.gets++;
    this.largestBatch = Math.max(this.largestBatch, operations.length);
    return super.batch(operations);
  }
}

let calls = 0;
const callCode = (code: string, language = "javascript") => {
  const id = `m${++calls}`;
  return new AIMessage({ id, content: "", tool_calls: [{ id: `call-${id}`, name: "execute_code", args: { language, code }, type: "tool_call" }] });
};

function codeGraph(
  options: Record<string, unknown> = {},
  extra?: (files: ThreadFiles) => Record<string, unknown>,
  extraName = "writer",
  shared: { store?: CountingStore; checkpointer?: MemorySaver } = {},
) {
  const codeTool = createCodeInterpreterTool({ sandbox, persistence: "thread", languages: ["javascript"], fileContents: "store", ...options });
  const store = shared.store ?? new CountingStore();
  const checkpointer = shared.checkpointer ?? new MemorySaver();
  const schema = new StateSchema({ messages: MessagesValue, ...codeModeStateFields });
  const base = new StateGraph(schema).addNode("tools", new ToolNode([codeTool])).addEdge(START, "tools").addEdge("tools", END);
  // A node beside the tools, in the same step: deepagents' write_file, or any node of the user's.
  const builder = extra
    ? (base.addNode(extraName, (s: { files?: ThreadFiles }) => extra(s.files ?? {})).addEdge(START, extraName).addEdge(extraName, END) as unknown as typeof base)
    : base;
  const graph = builder.compile({ checkpointer, store });
  const run = async (thread: string, code: string, input: Record<string, unknown> = {}, language?: string) => {
    const state = await graph.invoke({ messages: [callCode(code, language)], ...input }, { configurable: { thread_id: thread } });
    const message = state.messages.at(-1) as ToolMessage;
    return { text: String(message.content), message, files: state.files as ThreadFiles };
  };
  const config = (thread: string, checkpoint_id?: string) => ({ configurable: { thread_id: thread, ...(checkpoint_id ? { checkpoint_id } : {}) } });
  // As a user edits the thread by hand: a node of the graph's own (`tools`) wrote it.
  const edit = (thread: string, files: Record<string, unknown>) => graph.updateState(config(thread), { files }, "tools");
  return { graph, store, checkpointer, run, edit, config };
}

const now = new Date(0).toISOString();
const refOf = (content: string, extra: Partial<StoredFileRef> = {}): StoredFileRef => ({
  contentSha256: sha256Hex(content),
  size: Buffer.byteLength(content),
  mimeType: "text/plain",
  created_at: now,
  modified_at: now,
  ...extra,
});

describe("fileContents: store under attack", { timeout: 60_000 }, () => {
  it("a store entry replaced with other bytes is not shown to code, and the note says so", async () => {
    const first = codeGraph();
    await first.run("tamper", "files.write('/a.txt', 'the original')");
    const digest = sha256Hex("the original");
    const store = first.store;
    await store.put(fileContentsNamespace("tamper"), digest, { content: "evil bytes" });
    // The tool that wrote it keeps the bytes the digest names (its cache), never the others.
    expect((await first.run("tamper", "files.read('/a.txt')")).text).toContain('result: "the original"');
    // A tool without them (another process, a restart) reads the store, and refuses the entry.
    const { run } = codeGraph({}, undefined, undefined, { store, checkpointer: first.checkpointer });
    const { text } = await run("tamper", "JSON.stringify([files.exists('/a.txt'), files.list()])");
    expect(text).toContain('result: "[false,[]]"');
    expect(text).toMatch(/\/a\.txt is not visible to code: its content is not in the graph's store \(no entry under its digest, or one whose bytes do not match it\)/);
    expect(text).not.toContain("evil bytes");
    expect(await readStoredFile(store, "tamper", { contentSha256: digest })).toBeUndefined();
  });

  it("a tampered entry the log refers to: a restore (a new tool, no live session) gives the cell the file as deleted, never the other bytes", async () => {
    const first = codeGraph();
    await first.run("log", "var seen = files.read('/in.txt');", { files: { "/in.txt": "input bytes" } });
    await first.store.put(fileContentsNamespace("log"), sha256Hex("input bytes"), { content: "evil bytes" });
    // A new tool on the same checkpointer and store: no live session, the log is replayed.
    const second = codeGraph({}, undefined, undefined, { store: first.store, checkpointer: first.checkpointer });
    const { text, message } = await second.run("log", "typeof seen === 'string' ? seen : 'none'");
    expect(text).not.toContain("evil bytes");
    expect(text).toMatch(/restore: 1 file\(s\) the log refers to are not in the thread's codeFileContents or the graph's store/);
    expect(text).toMatch(/\/in\.txt is not visible to code: its content is not in the graph's store/);
    expect((message.artifact as { restore?: { failures: string[] } }).restore?.failures.length).toBeGreaterThan(0);
  });

  it("a store that refuses the contents: the call keeps nothing, and the next call sees the thread as it was", async () => {
    const { run, store } = codeGraph();
    await run("down", "var a = 1; files.write('/x.txt', 'one')");
    store.failPuts = true;
    const failed = await run("down", "a = 2; var b = 3; files.write('/x.txt', 'two')");
    expect(failed.text).toMatch(/store is down/);
    store.failPuts = false;
    const { text } = await run("down", "JSON.stringify([a, typeof b, files.read('/x.txt')])");
    expect(text).toContain(String.raw`result: "[1,\"undefined\",\"one\"]"`);
  });

  it("a ref whose size lies: the caps count the real bytes", async () => {
    const { run, edit, store } = codeGraph({ maxFileBytes: 1000, maxThreadFilesBytes: 1500 });
    await run("size", "1");
    const big = "b".repeat(5000);
    const medium = "m".repeat(900);
    await store.put(fileContentsNamespace("size"), sha256Hex(big), { content: big });
    await store.put(fileContentsNamespace("size"), sha256Hex(medium), { content: medium });
    await edit("size", { "/big.txt": refOf(big, { size: 1 }), "/m1.txt": refOf(medium, { size: 1 }), "/m2.txt": refOf(medium, { size: 1 }) });
    const { text } = await run("size", "JSON.stringify(files.list())");
    // big is over maxFileBytes; of the two mediums, only one fits maxThreadFilesBytes.
    expect(text).toContain(String.raw`result: "[\"/m1.txt\"]"`);
    expect(text).toMatch(/\/big\.txt is not visible to code: it is over code mode's file caps/);
    expect(text).toMatch(/\/m2\.txt is not visible to code: it is over code mode's file caps/);
    // A reference that says it is over maxFileBytes is not even read (the note of that check, not of the one on the bytes read).
    await edit("size", { "/big.txt": refOf(big), "/m1.txt": null, "/m2.txt": null });
    const again = await run("size", "JSON.stringify(files.list())");
    expect(again.text).toContain(String.raw`result: "[]"`);
    expect(again.text).toMatch(/\/big\.txt is not visible to code: it is over code mode's file caps \(maxFileBytes, maxThreadFiles\)/);
  });

  it("a ref naming another thread's content does not resolve (namespaces are per thread)", async () => {
    const { run, edit, store } = codeGraph();
    await run("owner", "files.write('/secret.txt', 'owner secret')");
    await run("thief", "1");
    await edit("thief", { "/stolen.txt": refOf("owner secret") });
    const { text } = await run("thief", "files.exists('/stolen.txt') ? files.read('/stolen.txt') : 'absent'");
    expect(text).toContain('result: "absent"');
    expect(text).not.toContain("owner secret");
    expect(text).toMatch(/\/stolen\.txt is not visible to code: its content is not in the graph's store/);
    // The owner still reads it.
    expect((await run("owner", "files.read('/secret.txt')")).text).toContain('result: "owner secret"');
    expect(await readStoredFile(store, "thief", refOf("owner secret"))).toBeUndefined();
  });

  it("a ContentMove written by hand for a file with other content (or held by reference) does not apply", async () => {
    const { run, edit, store, graph, config } = codeGraph();
    await run("move", "files.write('/ref.txt', 'by reference')");
    await store.put(fileContentsNamespace("move"), sha256Hex("forged"), { content: "forged" });
    // An inline file another node wrote, then forged moves of it and of the stored one.
    await edit("move", { "/inline.txt": "kept inline" });
    await edit("move", {
      "/inline.txt": { ...refOf("forged"), sameContentOnly: true },
      "/ref.txt": { ...refOf("forged"), sameContentOnly: true },
      "/new.txt": { ...refOf("forged"), sameContentOnly: true },
    });
    const files = (await graph.getState(config("move"))).values.files as ThreadFiles;
    expect((files["/inline.txt"] as ThreadFile).content).toBe("kept inline");
    expect((files["/ref.txt"] as StoredFileRef).contentSha256).toBe(sha256Hex("by reference"));
    expect(files["/new.txt"]).toBeUndefined();
    const { text } = await run("move", "JSON.stringify([files.read('/inline.txt'), files.read('/ref.txt'), files.exists('/new.txt')])");
    expect(text).toContain(String.raw`result: "[\"kept inline\",\"by reference\",false]"`);
  });

  it("refs under an interpreter directory or at a bad path are not shown to code", async () => {
    const { run, edit, store } = codeGraph();
    await run("paths", "1");
    await store.put(fileContentsNamespace("paths"), sha256Hex("x"), { content: "x" });
    await edit("paths", { "/tmp/x.txt": refOf("x"), "rel.txt": refOf("x"), "/a/../b.txt": refOf("x"), "/ok.txt": refOf("x"), "/proc/self": refOf("x") });
    const { text } = await run("paths", "JSON.stringify(files.list())");
    expect(text).toContain(String.raw`result: "[\"/ok.txt\"]"`);
    expect(text).toMatch(/\/tmp is the interpreter's own directory/);
    expect(text).toMatch(/rel\.txt is not visible to code: it is not absolute/);
    expect(text).toMatch(/\/a\/\.\.\/b\.txt is not visible to code: it has an empty, '\.' or '\.\.' part/);
  });

  it("a huge number of refs: bounded store reads, bounded notes, caps hold", async () => {
    const { run, edit, store } = codeGraph({ maxThreadFiles: 50 });
    await run("many", "1");
    const many: Record<string, StoredFileRef> = {};
    for (let i = 0; i < 20_000; i++) many[`/f/${String(i).padStart(5, "0")}.txt`] = refOf(`content ${i}`);
    // The first 100 are in the store; the others name contents it never held.
    for (let i = 0; i < 100; i++) await store.put(fileContentsNamespace("many"), sha256Hex(`content ${i}`), { content: `content ${i}` });
    await edit("many", many);
    store.gets = 0;
    const started = performance.now();
    const { text } = await run("many", "files.list().length");
    const elapsed = performance.now() - started;
    expect(text).toContain("result: 50");
    // One note per missing content was a 2 MB reply; now five and a count.
    expect(text.length).toBeLessThan(20_000);
    expect(text).toMatch(/and 19\d\d\d more files like these/);
    // Only what the caps can show is read (maxThreadFiles references, in path order), in
    // bounded batches of the store itself: through LangGraph's AsyncBatchedStore, 20,000 single
    // gets were one batch resolved in quadratic time (~6 s); before the count bound all 20,000 were read.
    expect(store.gets).toBe(50);
    expect(store.largestBatch).toBeLessThanOrEqual(500);
    console.info(`20,000 refs: ${store.gets} store reads, ${Math.round(elapsed)} ms, reply ${text.length} chars`);
  });

  it("binary files (base64 content) round-trip exactly through the store, in both languages", async () => {
    const { run, store } = codeGraph({ languages: ["javascript", "python"] });
    const { files } = await run("bin", "const b = new Uint8Array(256); for (let i = 0; i < 256; i++) b[i] = 255 - i; files.write('/data.bin', b); files.write('/bad-utf8.txt', new Uint8Array([0xff, 0xfe, 0x00, 0x41]))");
    const ref = files["/data.bin"] as StoredFileRef;
    expect(ref).not.toHaveProperty("content");
    expect(ref).toMatchObject({ size: 256, mimeType: "application/octet-stream" });
    const bytes = await readStoredFile(store, "bin", ref);
    expect([...bytes!]).toEqual(Array.from({ length: 256 }, (_, i) => 255 - i));
    expect([...(await readStoredFile(store, "bin", files["/bad-utf8.txt"] as StoredFileRef))!]).toEqual([0xff, 0xfe, 0x00, 0x41]);
    const { text } = await run("bin", "const r = files.readBytes('/data.bin'); const q = files.readBytes('/bad-utf8.txt'); JSON.stringify([r.length, r.every((v, i) => v === 255 - i), [...q]])");
    expect(text).toContain(String.raw`result: "[256,true,[255,254,0,65]]"`);
    // Python reads them as the same bytes, and its own binary write round-trips too.
    const python = await run("bin", "a = open('/data.bin', 'rb').read()\nopen('/py.bin', 'wb').write(bytes(range(256)) + b'\\x00')\n[len(a), a == bytes(range(255, -1, -1)), list(open('/bad-utf8.txt', 'rb').read())]", {}, "python");
    expect(python.text).toContain("result: [256,true,[255,254,0,65]]");
    expect([...(await readStoredFile(store, "bin", python.files["/py.bin"] as StoredFileRef))!]).toEqual([...Array.from({ length: 256 }, (_, i) => i), 0]);
  });

  // The writer's name sorts before and after "tools": LangGraph applies a step's writes in task order.
  it.each(["a-writer", "writer"])("a node (%s) writing the same path in the same step as a move: the write wins (other content, the same content with another type, a deletion)", async (name) => {
    let written: Record<string, unknown> = {};
    const { run, edit, graph, config } = codeGraph({}, () => ({ files: written }), name);
    await edit("race", { "/p.txt": "old", "/q.txt": "aGVsbG8=", "/r.txt": "to delete" });
    // Same step: the code call moves /p.txt and /q.txt to the store; the writer rewrites them.
    const later = new Date(Date.now() + 1000).toISOString();
    written = {
      "/p.txt": { content: "new", mimeType: "text/plain", created_at: now, modified_at: later },
      // The same string, now meaning the bytes it encodes ("hello").
      "/q.txt": { content: "aGVsbG8=", mimeType: "application/octet-stream", created_at: now, modified_at: later },
      "/r.txt": null,
    };
    await run("race", "files.read('/p.txt')");
    const files = (await graph.getState(config("race"))).values.files as ThreadFiles;
    expect(files["/p.txt"]).toMatchObject({ content: "new", modified_at: later });
    expect(files["/q.txt"]).toMatchObject({ mimeType: "application/octet-stream", modified_at: later });
    expect(files["/r.txt"]).toBeUndefined();
    written = {};
    const { text } = await run("race", "JSON.stringify([files.read('/p.txt'), [...files.readBytes('/q.txt')]])");
    expect(text).toContain(String.raw`result: "[\"new\",[104,101,108,108,111]]"`);
  });

  it("time travel and a fork after rewrites give each checkpoint's own bytes", async () => {
    const { run, graph, store, config } = codeGraph();
    const ids: string[] = [];
    for (const v of ["v1", "v2", "v3"]) {
      await run("travel", `files.write('/f.txt', '${v}'.repeat(100)); var last = '${v}';`);
      ids.push((await graph.getState(config("travel"))).config.configurable!.checkpoint_id as string);
    }
    for (const [i, v] of ["v1", "v2", "v3"].entries()) {
      const past = await graph.getState(config("travel", ids[i]));
      const ref = (past.values.files as ThreadFiles)["/f.txt"] as StoredFileRef;
      expect(Buffer.from((await readStoredFile(store, "travel", ref))!).toString()).toBe(v.repeat(100));
    }
    // A fork from the first checkpoint reads v1 and its definitions, then writes its own.
    const fork = await graph.invoke({ messages: [callCode("var before = files.read('/f.txt').slice(0, 4); files.write('/f.txt', 'fork'); JSON.stringify([last, before])")] }, config("travel", ids[0]));
    expect(String((fork.messages.at(-1) as ToolMessage).content)).toContain(String.raw`result: "[\"v1\",\"v1v1\"]"`);
    const main = await graph.getState(config("travel", ids[2]));
    const ref = (main.values.files as ThreadFiles)["/f.txt"] as StoredFileRef;
    expect(Buffer.from((await readStoredFile(store, "travel", ref))!).toString()).toBe("v3".repeat(100));
    expect((await run("travel", "files.read('/f.txt')")).text).toContain('result: "fork"');
  });
});
