/**
 * The thread's virtual files: given by the caller (tool option, graph input), written by code,
 * kept in the `files` channel (so in the checkpoint), binary-safe, capped per file and per thread.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import { diffFiles, fileBytes, mergeFiles, toThreadFile, type ThreadFile } from "../../src/code-mode/thread/files.js";
import type { ExecuteCodeArtifact } from "../../src/tools/code-interpreter-tool.js";
import { scriptedCodeModel, type Turn, ask, lastTool } from "./helpers.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());


function agentFor(checkpointer: MemorySaver, turns: Turn[], options: Parameters<typeof codeModeMiddleware>[0] = {}) {
  return createAgent({ model: scriptedCodeModel(...turns), middleware: [codeModeMiddleware({ sandbox, languages: ["python"], ...options })], checkpointer });
}

describe("files in state", () => {
  it("deepagents' file data: text stays text, other bytes are base64 strings; every stored form reads back", () => {
    expect(toThreadFile("/a.txt", new TextEncoder().encode("héllo"), undefined, "T")).toEqual({ content: "héllo", mimeType: "text/plain", created_at: "T", modified_at: "T" });
    const bytes = new Uint8Array([0, 255, 1, 128]);
    // Not UTF-8 under a text name: base64, typed so that deepagents' read_file treats it as binary.
    const stored = toThreadFile("/a.txt", bytes);
    expect(stored.mimeType).toBe("application/octet-stream");
    expect(typeof stored.content).toBe("string");
    expect([...fileBytes(JSON.parse(JSON.stringify(stored)))!]).toEqual([0, 255, 1, 128]);
    expect(toThreadFile("/p.png", new TextEncoder().encode("x")).mimeType).toBe("image/png");
    // What deepagents' own StateBackend stores (Uint8Array), the same after a JSON round trip, and V1 line arrays.
    expect([...fileBytes({ content: bytes, mimeType: "image/png", created_at: "", modified_at: "" })!]).toEqual([0, 255, 1, 128]);
    expect([...fileBytes(JSON.parse(JSON.stringify({ content: bytes, mimeType: "image/png" })))!]).toEqual([0, 255, 1, 128]);
    expect(new TextDecoder().decode(fileBytes({ content: ["a", "b"], created_at: "", modified_at: "" }))).toBe("a\nb");
    const merged = mergeFiles({ "/a": stored }, [{ "/a": null, "/b": "text" }]);
    expect(Object.keys(merged)).toEqual(["/b"]);
    expect((merged["/b"] as ThreadFile).content).toBe("text");
  });

  it("caps count bytes, names and entries, and the number of files; a file cannot sit under a file", () => {
    const caps = { maxFileBytes: 1000, maxThreadFilesBytes: 1200, maxThreadFiles: 3 };
    const change = diffFiles(new Map(), { "big.bin": new Uint8Array(2000), "ok.txt": new Uint8Array(10), "more.txt": new Uint8Array(980) }, caps);
    // In path order: more.txt fits (980 + name + entry), then ok.txt would pass the thread's cap.
    expect([...change.written.keys()]).toEqual(["/more.txt"]);
    expect(change.refused[0]).toMatch(/^\/big\.bin \(2\.0 KiB\) is larger than the per-file cap of 1000 B \(maxFileBytes\): write less data to it/);
    expect(change.refused[1]).toMatch(/^\/ok\.txt \(10 B\) would take this thread's files over their cap .* \(maxThreadFilesBytes; paths count too\)/);
    const many = diffFiles(new Map(), Object.fromEntries(["a", "b", "c", "d"].map((n) => [n, new Uint8Array(0)])), caps);
    expect([...many.written.keys()]).toEqual(["/a", "/b", "/c"]);
    expect(many.refused[0]).toMatch(/^\/d \(0 B\) would make this thread more than 3 files \(maxThreadFiles\)/);
    const nested = diffFiles(new Map([["/a", new Uint8Array(1)]]), { a: new Uint8Array(1), "a/b": new Uint8Array(1) }, caps);
    expect(nested.refused[0]).toMatch(/^\/a\/b .* \/a is a file, so nothing can be under it/);
    expect(diffFiles(new Map(), { "tmp/x": new Uint8Array(1) }, caps).refused[0]).toMatch(/interpreter's own directory/);
  });
});

describe("code mode files (Python)", { timeout: 180_000 }, () => {
  it("caller files are visible; written files come back in the artifact and the state, and persist in the thread", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "files-1" } };
    const first = await agentFor(
      checkpointer,
      [
        { language: "python", code: "import os\nrows = open('/input.csv').read().splitlines()\nos.makedirs('out', exist_ok=True)\nopen('out/summary.txt', 'w').write(f'{len(rows)} rows')\nopen('/blob.bin', 'wb').write(bytes([0, 255, 7]))\nsorted(os.listdir('/'))" },
        "done",
      ],
      { files: { "input.csv": "a,b\n1,2\n3,4" } },
    ).invoke(ask("summarise"), config);
    const message = lastTool(first);
    const artifact = message.artifact as ExecuteCodeArtifact;
    expect(artifact.result.status).toBe("success");
    expect(String(message.content)).toContain("files written: /blob.bin, /input.csv, /out/summary.txt");
    expect((artifact.files!.written["/out/summary.txt"] as ThreadFile).content).toBe("3 rows");
    // The artifact holds only what the run wrote, as strings (no file set, no bytes).
    expect(artifact.result).not.toHaveProperty("files");
    expect(first.files!["/out/summary.txt"]).toMatchObject({ content: "3 rows", mimeType: "text/plain" });
    expect(first.files!["/blob.bin"]).toMatchObject({ content: Buffer.from([0, 255, 7]).toString("base64"), mimeType: "application/octet-stream" });
    // The tool's own files become the thread's on its first call (so a later delete sticks).
    expect(first.files!["/input.csv"]).toMatchObject({ content: "a,b\n1,2\n3,4" });

    // A fresh process (new middleware) on the same checkpointer reads them back, bytes intact.
    const second = await agentFor(checkpointer, [{ language: "python", code: "list(open('/blob.bin', 'rb').read()) + [open('/out/summary.txt').read()]" }, "ok"]).invoke(ask("again"), config);
    expect((lastTool(second).artifact as ExecuteCodeArtifact).result.result).toEqual([0, 255, 7, "3 rows"]);
  });

  it("files given in the graph input are visible; deletes reach the state", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "files-2" } };
    const state = await agentFor(checkpointer, [{ language: "python", code: "import os\nt = open('/notes.md').read()\nos.remove('/notes.md')\nt" }, "ok"]).invoke(
      ask("read my notes", { files: { "/notes.md": "# hello" } }),
      config,
    );
    expect((lastTool(state).artifact as ExecuteCodeArtifact).result.result).toBe("# hello");
    expect(String(lastTool(state).content)).toContain("files deleted: /notes.md");
    expect(state.files).toEqual({});
  });

  it("a file over the cap is not saved and the model is told why", async () => {
    const checkpointer = new MemorySaver();
    const state = await agentFor(checkpointer, [{ language: "python", code: "open('big.txt', 'w').write('x' * 5000)\nopen('small.txt', 'w').write('ok')" }, "ok"], { maxFileBytes: 1000 }).invoke(
      ask("write"),
      { configurable: { thread_id: "files-3" } },
    );
    expect(String(lastTool(state).content)).toContain("file not saved: /big.txt (4.9 KiB) is larger than the per-file cap of 1000 B");
    expect(Object.keys(state.files!)).toEqual(["/small.txt"]);
  });
});
