/**
 * `fileContents: "store"`: a thread's file contents live in the graph's LangGraph store, once per
 * content under its SHA-256, and the checkpoint holds references (src/code-mode/thread/content-store.ts).
 * Code in both languages reads and writes the files as before; a fresh tool (no live session:
 * like another process) restores exactly; time travel gives each checkpoint's own bytes; the
 * checkpoint's channels stay small with 1 MiB of files; misuse names the fix.
 */
import { afterAll, describe, expect, it } from "vitest";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { END, InMemoryStore, MemorySaver, MessagesDeltaValue, MessagesValue, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { createAgent } from "langchain";
import { createDeepAgent, StoreBackend } from "deepagents";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { codeModeStateFields } from "../../src/code-mode/thread/state.js";
import { fileContentsNamespace, readStoredFile, sha256Hex, type StoredFileRef } from "../../src/code-mode/thread/content-store.js";
import { mergeFiles, type ThreadFiles } from "../../src/code-mode/thread/files.js";
import { ContentCache } from "../../src/code-mode/thread/content-cache.js";
import { createCodeInterpreterTool, type ArtifactFileRef, type ExecuteCodeArtifact } from "../../src/tools/code-interpreter-tool.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import { InvalidOptionError } from "../../src/errors.js";
import type { Language } from "../../src/sandbox/types.js";
import { savedBytes } from "./helpers.js";

const KiB = 1024;
const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

let n = 0;
const call = (code: string, language: Language = "javascript") => {
  const id = `m${n++}`;
  return new AIMessage({ id, content: "", tool_calls: [{ id: `c-${id}`, name: "execute_code", args: { language, code }, type: "tool_call" }] });
};

/** A ToolNode graph in store mode; a new one has a new tool, so no live session (like another process). */
function graph(checkpointer: MemorySaver, store: InMemoryStore | undefined, fileContents: "store" | "checkpoint" = "store") {
  return new StateGraph(new StateSchema({ messages: MessagesValue, ...codeModeStateFields }))
    .addNode("tools", new ToolNode([createCodeInterpreterTool({ sandbox, persistence: "thread", languages: ["javascript", "python"], fileContents, timeoutMs: 30_000 })]))
    .addEdge(START, "tools")
    .addEdge("tools", END)
    .compile({ checkpointer, ...(store ? { store } : {}) });
}

type Graph = ReturnType<typeof graph>;
async function run(g: Graph, config: object, code: string, language: Language = "javascript", extra: Record<string, unknown> = {}) {
  const state = await g.invoke({ messages: [call(code, language)], ...extra }, config);
  const last = (state.messages as unknown[]).filter((m): m is ToolMessage => ToolMessage.isInstance(m)).at(-1)!;
  const artifact = last.artifact as ExecuteCodeArtifact;
  expect(artifact.result.status, JSON.stringify(artifact.result)).toBe("success");
  return { value: artifact.result.result, artifact, state, content: String(last.content) };
}

const isRef = (file: unknown) => typeof file === "object" && file !== null && "contentSha256" in file && !("content" in file);
const PNG = Uint8Array.from([137, 80, 78, 71, 0, 255, 1, 128]);

describe("file contents in the graph's store", { timeout: 120_000 }, () => {
  it("moves the thread's files to the store; code reads and writes them in both languages; the checkpoint holds references", async () => {
    const saver = new MemorySaver();
    const store = new InMemoryStore();
    const g = graph(saver, store);
    const config = { configurable: { thread_id: "store-1" } };
    const image = { content: Buffer.from(PNG).toString("base64"), mimeType: "image/png", created_at: "2026-01-01T00:00:00.000Z", modified_at: "2026-01-01T00:00:00.000Z" };
    const first = await run(g, config, "[files.read('/notes.txt'), [...files.readBytes('/img.png')]]", "javascript", { files: { "/notes.txt": "alpha", "/img.png": image } });
    expect(first.value).toEqual(["alpha", [...PNG]]);
    // The input's files are references now, and their contents are in the thread's namespace.
    const files = first.state.files as ThreadFiles;
    expect(isRef(files["/notes.txt"]) && isRef(files["/img.png"])).toBe(true);
    expect((files["/img.png"] as StoredFileRef).size).toBe(PNG.byteLength);
    expect(files["/img.png"]!.created_at).toBe(image.created_at);
    const ns = fileContentsNamespace("store-1");
    expect((await store.get(ns, sha256Hex("alpha")))?.value).toEqual({ content: "alpha" });
    expect(first.state.codeFileContents).toEqual({});

    const py = await run(g, config, "from pathlib import Path\nPath('/report.txt').write_text(Path('/notes.txt').read_text() + ' beta')\nlist(Path('/img.png').read_bytes())", "python");
    expect(py.value).toEqual([...PNG]);
    const written = py.artifact.files!.written["/report.txt"] as ArtifactFileRef;
    expect(written).toEqual({ contentSha256: sha256Hex("alpha beta"), size: 10, mimeType: "text/plain" });
    expect(py.content).toContain("/report.txt");
    expect(isRef((py.state.files as ThreadFiles)["/report.txt"])).toBe(true);
    expect(new TextDecoder().decode(await readStoredFile(store, "store-1", written))).toBe("alpha beta");
    expect([...(await readStoredFile(store, "store-1", files["/img.png"] as StoredFileRef))!]).toEqual([...PNG]);
    // No content anywhere in the checkpoint's code-mode channels.
    const stateJson = JSON.stringify({ files: py.state.files, codeCells: py.state.codeCells, codeFileContents: py.state.codeFileContents });
    expect(stateJson).not.toContain("alpha");
    const back = await run(g, config, "files.read('/report.txt')");
    expect(back.value).toBe("alpha beta");
  });

  it("a fresh tool restores exactly (a file read, rewritten by another node and by code), and time travel gives each checkpoint's own bytes", async () => {
    const saver = new MemorySaver();
    const store = new InMemoryStore();
    const live = graph(saver, store);
    for (const language of ["javascript", "python"] as const) {
      const read = language === "javascript" ? "files.read('/doc.txt')" : "__import__('pathlib').Path('/doc.txt').read_text()";
      const thread = { configurable: { thread_id: `store-2-${language}` } };
      const c1 = language === "javascript" ? `var v1 = ${read}; var r1 = Math.random();` : `v1 = ${read}\nimport random\nr1 = random.random()`;
      await run(live, thread, c1, language, { files: { "/doc.txt": "v1" } });
      const afterFirst = (await live.getState(thread)).config;
      // Another node rewrites the file inline (as deepagents' write_file would).
      await live.updateState(thread, { files: { "/doc.txt": "v2" } });
      const c2 = language === "javascript" ? `var v2 = ${read}; files.write('/doc.txt', 'v3');` : `v2 = ${read}\n__import__('pathlib').Path('/doc.txt').write_text('v3')`;
      await run(live, thread, c2, language);
      const query = language === "javascript" ? `[v1, v2, ${read}, r1]` : `[v1, v2, ${read}, r1]`;
      const liveAnswer = (await run(live, thread, query, language)).value as unknown[];
      expect(liveAnswer.slice(0, 3)).toEqual(["v1", "v2", "v3"]);
      const fresh = graph(saver, store);
      expect((await run(fresh, thread, query, language)).value).toEqual(liveAnswer);
      // Back to the checkpoint after the first cell: its file and its definitions, never later ones.
      const pastQuery = language === "javascript" ? `[v1, ${read}, typeof v2]` : `[v1, ${read}, 'v2' in globals()]`;
      const past = await graph(saver, store).invoke({ messages: [call(pastQuery, language)] }, afterFirst);
      const answer = ((past.messages as ToolMessage[]).at(-1)!.artifact as ExecuteCodeArtifact).result.result;
      expect(answer).toEqual(language === "javascript" ? ["v1", "v1", "undefined"] : ["v1", "v1", false]);
    }
  });

  it("keeps code mode's channels small with 1 MiB of files: bytes per writing call follow the write", async () => {
    const oneMiB = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`/data/part${i}.txt`, String(i).repeat(128 * KiB)]));
    const measure = async (fileContents: "store" | "checkpoint") => {
      const saver = new MemorySaver();
      const g = new StateGraph(new StateSchema({ messages: MessagesDeltaValue as unknown as typeof MessagesValue, ...codeModeStateFields }))
        .addNode("tools", new ToolNode([createCodeInterpreterTool({ sandbox, persistence: "thread", languages: ["javascript"], fileContents })]))
        .addEdge(START, "tools")
        .addEdge("tools", END)
        .compile({ checkpointer: saver, store: new InMemoryStore() });
      const config = { configurable: { thread_id: `bytes-${fileContents}` } };
      await g.invoke({ messages: [call("files.list().length")], files: oneMiB }, config);
      for (let i = 0; i < 5; i++) await g.invoke({ messages: [call(`files.write('/out${i}.txt', 'z'.repeat(1024))`)] }, config);
      const values = (await g.getState(config)).values;
      return JSON.stringify({ files: values.files, codeCells: values.codeCells, codeFileContents: values.codeFileContents }).length;
    };
    // What a full copy of the channels costs: the whole file set in the checkpoint mode, references in the store mode.
    const [stored, inCheckpoint] = [await measure("store"), await measure("checkpoint")];
    expect(inCheckpoint).toBeGreaterThan(2 * 1024 * KiB);
    expect(stored).toBeLessThan(8 * KiB);
  });

  it("with createAgent and the middleware, a call no longer stores the 1 MiB in its Send", async () => {
    const saver = new MemorySaver();
    const store = new InMemoryStore();
    const config = { configurable: { thread_id: "agent-store" } };
    const bytes = () => savedBytes(saver);
    const agent = (codes: string[]) => {
      let model = fakeModel();
      for (const code of codes) model = model.respond(call(code));
      return createAgent({ model: model.respond(new AIMessage({ id: `end${n++}`, content: "done" })), middleware: [codeModeMiddleware({ sandbox, languages: ["javascript"], fileContents: "store" })], checkpointer: saver, store });
    };
    const oneMiB = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`/data/part${i}.txt`, String(i).repeat(128 * KiB)]));
    await agent(["files.list().length"]).invoke({ messages: [{ role: "user", content: "go" }], files: oneMiB }, config);
    const before = bytes();
    const state = await agent(["var k = files.read('/data/part3.txt').length", "files.write('/k.txt', String(k)); k"]).invoke({ messages: [{ role: "user", content: "more" }] }, config);
    const perCall = (bytes() - before) / 2;
    expect(((state.messages as ToolMessage[]).filter((m) => ToolMessage.isInstance(m)).at(-1)!.artifact as ExecuteCodeArtifact).result.result).toBe(128 * KiB);
    // Checkpoint mode stores ~4.7 MB per call here (each Send carries the state); references keep it to kilobytes.
    expect(perCall).toBeLessThan(64 * KiB);
  });

  it("a thread moves between the two modes in a graph without codeFileContents: each reads the other's files and restores exactly", async () => {
    const saver = new MemorySaver();
    const store = new InMemoryStore();
    const { codeFileContents: _dropped, ...fields } = codeModeStateFields;
    const make = (fileContents: "store" | "checkpoint") =>
      new StateGraph(new StateSchema({ messages: MessagesValue, ...fields }))
        .addNode("tools", new ToolNode([createCodeInterpreterTool({ sandbox, persistence: "thread", languages: ["javascript"], fileContents })]))
        .addEdge(START, "tools")
        .addEdge("tools", END)
        .compile({ checkpointer: saver, store });
    const config = { configurable: { thread_id: "modes" } };
    const ask = async (g: ReturnType<typeof make>, code: string, extra: Record<string, unknown> = {}) => {
      const state = await g.invoke({ messages: [call(code)], ...extra }, config);
      const artifact = ((state.messages as ToolMessage[]).at(-1)!.artifact as ExecuteCodeArtifact);
      expect(artifact.result.status, JSON.stringify(artifact.result)).toBe("success");
      return { value: artifact.result.result, state };
    };
    expect((await ask(make("store"), "var a = files.read('/a.txt'); a", { files: { "/a.txt": "one" } })).value).toBe("one");
    // Checkpoint mode reads the stored file, and a content the log sees stays inline (no channel for it).
    const checkpointMode = make("checkpoint");
    await checkpointMode.updateState(config, { files: { "/b.txt": "two" } });
    const second = await ask(checkpointMode, "var b = files.read('/b.txt'); a + b");
    expect(second.value).toBe("onetwo");
    expect(JSON.stringify((second.state.codeCells as { filesIn?: unknown }[]).at(-1)!.filesIn)).toContain('"content":"two"');
    // A fresh graph in either mode restores the thread exactly.
    expect((await ask(make("store"), "a + b + files.read('/a.txt')")).value).toBe("onetwoone");
    expect((await ask(make("checkpoint"), "a + b + files.read('/b.txt')")).value).toBe("onetwotwo");
  });

  it("a move applies only while the file still has the content it moves (a write of the same step wins, in any order)", () => {
    const file = (content: string) => ({ content, mimeType: "text/plain", created_at: "t", modified_at: "t" });
    const ref = { contentSha256: sha256Hex("old"), size: 3, mimeType: "text/plain", created_at: "t", modified_at: "t" };
    const move = { ...ref, sameContentOnly: true as const };
    expect(mergeFiles({ "/a": file("old") }, [{ "/a": move }])).toEqual({ "/a": ref });
    expect(mergeFiles({ "/a": file("old") }, [{ "/a": file("new") }, { "/a": move }])).toEqual({ "/a": file("new") });
    expect(mergeFiles({ "/a": file("old") }, [{ "/a": move }, { "/a": file("new") }])).toEqual({ "/a": file("new") });
    expect(mergeFiles({ "/a": file("old") }, [{ "/a": null }, { "/a": move }])).toEqual({});
  });

  it("keeps what it read or wrote per namespace, within its bound, least recently used out first", async () => {
    const store = new InMemoryStore();
    let gets = 0;
    const counted = { get: (ns: string[], key: string) => (gets++, store.get(ns, key)), put: store.put.bind(store), search: store.search.bind(store) };
    const cache = new ContentCache(2 * 30); // 30 characters
    const [a, b] = [["t", "a"], ["t", "b"]];
    const ten = (c: string) => c.repeat(10);
    await cache.put(counted, a, new Map([[sha256Hex(ten("x")), ten("x")], [sha256Hex(ten("y")), ten("y")]]));
    expect((await cache.get(counted, a, [sha256Hex(ten("x"))])).get(sha256Hex(ten("x")))).toBe(ten("x"));
    expect(gets).toBe(0);
    // Another namespace never gets this one's entries from the cache: the store decides (it has none).
    expect((await cache.get(counted, b, [sha256Hex(ten("x"))])).size).toBe(0);
    expect(gets).toBe(1);
    // Past the bound (three entries) the least recently used goes: y (x was read after it).
    await cache.put(counted, a, new Map([[sha256Hex(ten("z")), ten("z")], [sha256Hex(ten("w")), ten("w")]]));
    gets = 0;
    const got = await cache.get(counted, a, [ten("x"), ten("y"), ten("z"), ten("w")].map(sha256Hex));
    expect(got.size).toBe(4);
    expect(gets).toBe(1); // y, from the store
  });

  it("names its namespace with labels every store accepts (PostgresStore refuses '.', '%', '_' and backslashes)", () => {
    for (const thread of ["t.1", "100%_done", "a\\b", "thread-1"]) {
      const ns = fileContentsNamespace(thread);
      expect(ns).toHaveLength(3);
      for (const label of ns) expect(label).toMatch(/^[a-z0-9-]+$/);
    }
    expect(fileContentsNamespace("a")).not.toEqual(fileContentsNamespace("b"));
  });

  it("names the fix: no store in the graph, no thread persistence, or an unknown value", async () => {
    const g = graph(new MemorySaver(), undefined);
    const state = await g.invoke({ messages: [call("1")] }, { configurable: { thread_id: "no-store" } });
    const message = (state.messages as ToolMessage[]).at(-1)!;
    expect(message.status).toBe("error");
    expect(String(message.content)).toMatch(/fileContents.*compile\(\{ checkpointer, store \}\)/s);
    expect(() => createCodeInterpreterTool({ sandbox, fileContents: "store" })).toThrow(InvalidOptionError);
    expect(() => createCodeInterpreterTool({ sandbox, fileContents: "store" })).toThrow(/persistence: "thread"/);
    expect(() => createCodeInterpreterTool({ sandbox, persistence: "thread", fileContents: "disk" as "store" })).toThrow(/fileContents.*"checkpoint".*"store"/s);
  });

  it("inside createDeepAgent: refused without a backend (deepagents' tools read contents), shared with a StoreBackend given to both", async () => {
    const store = new InMemoryStore();
    const scripted = (...messages: AIMessage[]) => {
      let model = fakeModel();
      for (const m of messages) model = model.respond(m);
      return model.respond(new AIMessage({ id: `end${n++}`, content: "done" }));
    };
    const toolCall = (name: string, args: Record<string, unknown>) => new AIMessage({ id: `d${n++}`, content: "", tool_calls: [{ id: `dc${n++}`, name, args, type: "tool_call" }] });
    const refused = createDeepAgent({ model: scripted(call("1")), middleware: [codeModeMiddleware({ sandbox, languages: ["javascript"], fileContents: "store" })], checkpointer: new MemorySaver(), store });
    await expect(refused.invoke({ messages: [{ role: "user", content: "go" }] }, { configurable: { thread_id: "deep-refused" } })).rejects.toThrow(/fileContents.*backend/s);

    const backend = new StoreBackend({ store, namespace: ["deep-fs"] });
    const saver = new MemorySaver();
    const middleware = codeModeMiddleware({ sandbox, languages: ["javascript", "python"], fileContents: "store", backend });
    const agent = createDeepAgent({
      model: scripted(
        toolCall("write_file", { file_path: "/plan.md", content: "step one" }),
        call("files.write('/done.txt', files.read('/plan.md') + ' done'); files.read('/plan.md')"),
        toolCall("read_file", { file_path: "/done.txt" }),
      ),
      middleware: [middleware],
      backend,
      checkpointer: saver,
      store,
    });
    const config = { configurable: { thread_id: "deep-store" } };
    const state = await agent.invoke({ messages: [{ role: "user", content: "go" }] }, config);
    const results = (state.messages as ToolMessage[]).filter((m) => ToolMessage.isInstance(m));
    const code = results.find((m) => m.name === "execute_code")!;
    expect((code.artifact as ExecuteCodeArtifact).result.result).toBe("step one");
    expect(JSON.stringify(results.at(-1)!.content)).toContain("step one done");
    // The log saw /plan.md from outside: its content is in the graph's store, not in codeFileContents.
    expect(state.codeFileContents ?? {}).toEqual({});
    expect((await store.get(fileContentsNamespace("deep-store"), sha256Hex("step one")))?.value).toEqual({ content: "step one" });
    // A fresh middleware (another process) restores the log from the store's contents.
    const fresh = createDeepAgent({
      model: scripted(call("typeof undefinedName + '|' + files.read('/done.txt')")),
      middleware: [codeModeMiddleware({ sandbox, languages: ["javascript"], fileContents: "store", backend })],
      backend,
      checkpointer: saver,
      store,
    });
    const again = await fresh.invoke({ messages: [{ role: "user", content: "again" }] }, config);
    const last = (again.messages as ToolMessage[]).filter((m) => ToolMessage.isInstance(m) && m.name === "execute_code").at(-1)!;
    const artifact = last.artifact as ExecuteCodeArtifact;
    expect(artifact.result.result).toBe("undefined|step one done");
    expect(artifact.restore?.replayed).toBe(1);
    expect(artifact.restore?.failures ?? []).toEqual([]);
  });
});
