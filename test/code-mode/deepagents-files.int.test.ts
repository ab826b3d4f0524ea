/**
 * Code mode inside `createDeepAgent` shares the agent's file system, in both directions and
 * both languages: what `write_file` wrote, code reads at the same absolute path; what code
 * writes, `read_file`, `ls`, `glob` and `grep` find; an `edit_file` is seen by the next cell;
 * binary files round-trip. With deepagents' default state backend (its `files` channel, which
 * is ours too) and with a backend given to both (a FilesystemBackend in a temporary directory).
 * The thread restores exactly in a fresh process with the backend's files.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createDeepAgent, FilesystemBackend } from "deepagents";
import { fakeModel } from "@langchain/core/testing";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import type { ExecuteCodeArtifact } from "../../src/tools/code-interpreter-tool.js";

const sandbox = createSandbox({ poolSize: 1 });
const dirs: string[] = [];
afterAll(async () => {
  await sandbox.dispose();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

let n = 0;
const call = (name: string, args: Record<string, unknown>) => new AIMessage({ id: `m${++n}`, content: "", tool_calls: [{ id: `c${n}`, name, args, type: "tool_call" }] });
const done = () => new AIMessage({ id: `m${++n}`, content: "done" });

function scripted(...messages: AIMessage[]) {
  let model = fakeModel();
  for (const m of messages) model = model.respond(m);
  return model.respond(done());
}

function toolResults(messages: BaseMessage[]): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
}

const PNG = [137, 80, 78, 71, 13, 10, 26, 10, 0, 255];

/** The scenario in one language; `code` gives each cell in that language. */
function scenario(language: "javascript" | "python") {
  const py = language === "python";
  return [
    call("write_file", { file_path: "/notes.txt", content: "hello from the agent" }),
    call("write_file", { file_path: "/pic.png", content: Buffer.from(PNG).toString("base64") }),
    call("execute_code", {
      language,
      code: py
        ? `t = open('/notes.txt').read()\nopen('/out.txt', 'w').write(t.upper() + ' needle')\nopen('/img.png', 'wb').write(bytes(${JSON.stringify(PNG)}))\n[t, list(open('/pic.png', 'rb').read())]`
        : `const t = files.read('/notes.txt');\nfiles.write('/out.txt', t.toUpperCase() + ' needle');\nfiles.write('/img.png', new Uint8Array(${JSON.stringify(PNG)}));\n[t, [...files.readBytes('/pic.png')]]`,
    }),
    call("read_file", { file_path: "/out.txt" }),
    call("ls", { path: "/" }),
    call("glob", { pattern: "*.txt" }),
    call("grep", { pattern: "needle" }),
    call("edit_file", { file_path: "/out.txt", old_string: "HELLO", new_string: "HOWDY" }),
    call("execute_code", { language, code: py ? "open('/out.txt').read()" : "files.read('/out.txt')" }),
    call("read_file", { file_path: "/img.png" }),
  ];
}

function checkScenario(messages: BaseMessage[]): void {
  const results = toolResults(messages);
  const by = (name: string) => results.filter((m) => m.name === name);
  const [firstCode, secondCode] = by("execute_code").map((m) => m.artifact as ExecuteCodeArtifact);
  expect(firstCode!.result.result).toEqual(["hello from the agent", PNG]);
  expect(JSON.stringify(by("read_file")[0]!.content)).toContain("HELLO FROM THE AGENT needle");
  expect(String(by("ls")[0]!.content)).toMatch(/\/out\.txt/);
  expect(String(by("ls")[0]!.content)).toMatch(/\/img\.png/);
  expect(String(by("glob")[0]!.content)).toContain("/out.txt");
  expect(String(by("grep")[0]!.content)).toContain("/out.txt");
  expect(secondCode!.result.result).toBe("HOWDY FROM THE AGENT needle");
  // A binary file code wrote reads back as the same bytes through deepagents' read_file.
  const image = (by("read_file")[1]!.content as { type: string; data?: string }[])[0]!;
  expect(image.type).toBe("image");
  expect([...Buffer.from(image.data!, "base64")]).toEqual(PNG);
}

describe("code mode in createDeepAgent shares the agent's files", { timeout: 240_000 }, () => {
  for (const language of ["javascript", "python"] as const) {
    it(`${language}: deepagents' state backend (its files channel) in both directions; a fresh process restores the thread`, async () => {
      const checkpointer = new MemorySaver();
      const config = { configurable: { thread_id: `da-state-${language}` } };
      const agent = createDeepAgent({ model: scripted(...scenario(language)), middleware: [codeModeMiddleware({ sandbox, languages: [language] })], checkpointer });
      const state = await agent.invoke({ messages: [{ role: "user", content: "go" }] }, config);
      checkScenario(state.messages);
      // The files are deepagents' data: text as text, binary as base64 of a binary MIME type, or bytes.
      const files = (state as unknown as { files: Record<string, { content: unknown; mimeType: string }> }).files;
      expect(files["/out.txt"]).toMatchObject({ content: "HOWDY FROM THE AGENT needle", mimeType: "text/plain" });
      expect(files["/img.png"]!.mimeType).toBe("image/png");
      // Another process: the log replays with the files each cell saw (the first saw the original notes).
      const again = createDeepAgent({
        model: scripted(call("execute_code", { language, code: language === "python" ? "t" : "t" })),
        middleware: [codeModeMiddleware({ sandbox, languages: [language] })],
        checkpointer,
      });
      const next = await again.invoke({ messages: [{ role: "user", content: "again" }] }, config);
      const a = toolResults(next.messages).at(-1)!.artifact as ExecuteCodeArtifact;
      expect(a.restore).toMatchObject({ replayed: 2, failures: [] });
      expect(a.result.result).toBe("hello from the agent");
    });
  }

  it("a backend given to both (FilesystemBackend): code reads and writes the backend, both languages", async () => {
    const root = mkdtempSync(join(tmpdir(), "cm-backend-"));
    dirs.push(root);
    const backend = new FilesystemBackend({ rootDir: root, virtualMode: true });
    for (const language of ["javascript", "python"] as const) {
      const checkpointer = new MemorySaver();
      const agent = createDeepAgent({ model: scripted(...scenario(language)), backend, middleware: [codeModeMiddleware({ sandbox, languages: [language], backend })], checkpointer });
      const state = await agent.invoke({ messages: [{ role: "user", content: "go" }] }, { configurable: { thread_id: `da-fs-${language}` } });
      checkScenario(state.messages);
      // The files are the backend's, not a channel's.
      expect((state as unknown as { files?: Record<string, unknown> }).files ?? {}).not.toHaveProperty("/out.txt");
      // With no files channel the store of file contents is written with every logged cell, so its
      // copies keep pace with the log's (a read's walk stays as short as before it existed).
      const writes = Object.values((checkpointer as unknown as { writes: Record<string, Record<string, [string, string]>> }).writes).flatMap((w) => Object.values(w));
      const cells = (state as unknown as { codeCells: unknown[] }).codeCells.length;
      expect(cells).toBeGreaterThan(0);
      expect(writes.filter((w) => w[1] === "codeFileContents").length).toBeGreaterThanOrEqual(cells);
    }
  });
});
