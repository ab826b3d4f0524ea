/**
 * The thread's virtual files: given by the caller (tool option, graph input), written by code,
 * kept in the `files` channel (so in the checkpoint), binary-safe, capped per file and per thread.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { ToolMessage } from "@langchain/core/messages";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import { decodeFile, diffFiles, encodeFile, mergeFiles } from "../../src/code-mode/files.js";
import type { ExecuteCodeArtifact } from "../../src/tools/code-interpreter-tool.js";
import { scriptedCodeModel, type Turn } from "./helpers.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const ask = (content: string, extra: Record<string, unknown> = {}) => ({ messages: [{ role: "user", content }], ...extra });
const lastTool = (state: { messages: unknown[] }) => state.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).at(-1)!;

function agentFor(checkpointer: MemorySaver, turns: Turn[], options: Parameters<typeof codeModeMiddleware>[0] = {}) {
  return createAgent({ model: scriptedCodeModel(...turns), middleware: [codeModeMiddleware({ sandbox, languages: ["python"], ...options })], checkpointer });
}

describe("files in state", () => {
  it("text stays readable, other bytes are base64; both round-trip", () => {
    expect(encodeFile(new TextEncoder().encode("héllo"))).toEqual({ encoding: "utf-8", content: "héllo" });
    const bytes = new Uint8Array([0, 255, 1, 128]);
    const stored = encodeFile(bytes);
    expect(stored.encoding).toBe("base64");
    expect([...decodeFile(JSON.parse(JSON.stringify(stored)))]).toEqual([0, 255, 1, 128]);
    expect(mergeFiles({ a: stored }, { a: null, b: "text" })).toEqual({ b: { encoding: "utf-8", content: "text" } });
  });

  it("caps refuse a file over the per-file cap or the thread cap, with what to do", () => {
    const change = diffFiles({}, { "big.bin": new Uint8Array(2000), "ok.txt": new Uint8Array(10), "more.txt": new Uint8Array(995) }, { maxFileBytes: 1000, maxThreadFilesBytes: 1000 });
    // In path order: more.txt fits, then ok.txt would pass the thread's cap.
    expect(change.written).toEqual(["more.txt"]);
    expect(change.refused[0]).toMatch(/^big\.bin \(2\.0 KiB\) is larger than the per-file cap of 1000 B: write less data to it/);
    expect(change.refused[1]).toMatch(/^ok\.txt \(10 B\) would take this thread's files over their cap of 1000 B: delete files/);
  });
});

describe("code mode files (Python)", { timeout: 180_000 }, () => {
  it("caller files are visible; written files come back in the artifact and the state, and persist in the thread", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "files-1" } };
    const first = await agentFor(
      checkpointer,
      [
        { language: "python", code: "import os\nrows = open('input.csv').read().splitlines()\nos.makedirs('out', exist_ok=True)\nopen('out/summary.txt', 'w').write(f'{len(rows)} rows')\nopen('blob.bin', 'wb').write(bytes([0, 255, 7]))\nsorted(os.listdir('.'))" },
        "done",
      ],
      { files: { "input.csv": "a,b\n1,2\n3,4" } },
    ).invoke(ask("summarise"), config);
    const message = lastTool(first);
    const artifact = message.artifact as ExecuteCodeArtifact;
    expect(artifact.result.status).toBe("success");
    expect(String(message.content)).toContain("files written: blob.bin, out/summary.txt");
    expect(new TextDecoder().decode(artifact.files!.written["out/summary.txt"])).toBe("3 rows");
    expect(first.files["out/summary.txt"]).toEqual({ encoding: "utf-8", content: "3 rows" });
    expect(first.files["blob.bin"]).toEqual({ encoding: "base64", content: Buffer.from([0, 255, 7]).toString("base64") });
    // Caller files are not copied into the thread's state: they are the tool's own.
    expect(first.files["input.csv"]).toBeUndefined();

    // A fresh process (new middleware) on the same checkpointer reads them back, bytes intact.
    const second = await agentFor(checkpointer, [{ language: "python", code: "list(open('blob.bin', 'rb').read()) + [open('out/summary.txt').read()]" }, "ok"]).invoke(ask("again"), config);
    expect((lastTool(second).artifact as ExecuteCodeArtifact).result.result).toEqual([0, 255, 7, "3 rows"]);
  });

  it("files given in the graph input are visible; deletes reach the state", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "files-2" } };
    const state = await agentFor(checkpointer, [{ language: "python", code: "import os\nt = open('notes.md').read()\nos.remove('notes.md')\nt" }, "ok"]).invoke(
      ask("read my notes", { files: { "notes.md": "# hello" } }),
      config,
    );
    expect((lastTool(state).artifact as ExecuteCodeArtifact).result.result).toBe("# hello");
    expect(String(lastTool(state).content)).toContain("files deleted: notes.md");
    expect(state.files).toEqual({});
  });

  it("a file over the cap is not saved and the model is told why", async () => {
    const checkpointer = new MemorySaver();
    const state = await agentFor(checkpointer, [{ language: "python", code: "open('big.txt', 'w').write('x' * 5000)\nopen('small.txt', 'w').write('ok')" }, "ok"], { maxFileBytes: 1000 }).invoke(
      ask("write"),
      { configurable: { thread_id: "files-3" } },
    );
    expect(String(lastTool(state).content)).toContain("file not saved: big.txt (4.9 KiB) is larger than the per-file cap of 1000 B");
    expect(Object.keys(state.files)).toEqual(["small.txt"]);
  });
});
