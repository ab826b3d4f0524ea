/**
 * Code mode in `createDeepAgent` cannot split the agent's files: without `backend`, an agent whose
 * files live in another backend (`CodeGenSandbox`, a `FilesystemBackend`, a `CompositeBackend`
 * with routes) is refused before its first model call with an error naming the `backend` option;
 * deepagents' state backend (the default, a factory of it, or a zero-argument one) needs nothing.
 * With the backend given, a file `write_file` wrote is read by Python and JavaScript code, and a
 * file code wrote is seen by `execute` and `read_file`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CompositeBackend, createDeepAgent, FilesystemBackend, StateBackend, StoreBackend } from "deepagents";
import { fakeModel } from "@langchain/core/testing";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import { CodeGenSandbox } from "../../src/deepagents/index.js";
import { InvalidOptionError } from "../../src/errors.js";
import type { ExecuteCodeArtifact } from "../../src/tools/code-interpreter-tool.js";

const sandbox = createSandbox({ poolSize: 1 });
const dirs: string[] = [];
afterAll(async () => {
  await sandbox.dispose();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

let n = 0;
const call = (name: string, args: Record<string, unknown>) => new AIMessage({ id: `bm${++n}`, content: "", tool_calls: [{ id: `bc${n}`, name, args, type: "tool_call" }] });

function scripted(...messages: AIMessage[]) {
  let model = fakeModel();
  for (const m of messages) model = model.respond(m);
  return model.respond(new AIMessage({ id: `bm${++n}`, content: "done" }));
}

type StateConfig = { state: unknown };

const results = (messages: BaseMessage[], name: string) => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m) && m.name === name);

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "cm-agent-backend-"));
  dirs.push(d);
  return d;
}

/** The agent writes a file, code in both languages reads it and writes one each, the agent reads them back. */
function crossing(withExecute: boolean) {
  return [
    call("write_file", { file_path: "/in.txt", content: "from write_file" }),
    call("execute_code", { language: "python", code: "t = open('/in.txt').read()\nopen('/py.txt', 'w').write('py saw: ' + t)\nt" }),
    call("execute_code", { language: "javascript", code: "const t = files.read('/in.txt');\nfiles.write('/js.txt', 'js saw: ' + t);\nt" }),
    call("read_file", { file_path: "/py.txt" }),
    call("read_file", { file_path: "/js.txt" }),
    ...(withExecute ? [call("execute", { command: "cat /py.txt /js.txt" })] : []),
  ];
}

function checkCrossing(messages: BaseMessage[], withExecute: boolean): void {
  const code = results(messages, "execute_code").map((m) => (m.artifact as ExecuteCodeArtifact).result);
  expect(code.map((r) => r.status)).toEqual(["success", "success"]);
  expect(code.map((r) => r.result)).toEqual(["from write_file", "from write_file"]);
  const reads = results(messages, "read_file").map((m) => JSON.stringify(m.content));
  expect(reads[0]).toContain("py saw: from write_file");
  expect(reads[1]).toContain("js saw: from write_file");
  if (withExecute) expect(String(results(messages, "execute")[0]!.content)).toContain("py saw: from write_filejs saw: from write_file");
}

async function refusedBeforeTheModel(backend: NonNullable<Parameters<typeof createDeepAgent>[0]>["backend"]): Promise<void> {
  const model = scripted(call("execute_code", { language: "python", code: "open('/in.txt').read()" }));
  const agent = createDeepAgent({ model, backend, middleware: [codeModeMiddleware({ sandbox, languages: ["python", "javascript"] })], checkpointer: new MemorySaver() });
  const run = agent.invoke({ messages: [{ role: "user", content: "go" }] }, { configurable: { thread_id: `refused-${++n}` } });
  // langchain wraps a middleware's error; the name and the message are ours.
  await expect(run).rejects.toMatchObject({ name: InvalidOptionError.name });
  await expect(agent.invoke({ messages: [{ role: "user", content: "go" }] }, { configurable: { thread_id: `refused-${++n}` } })).rejects.toThrow(
    /Invalid option "backend": not given, but this deepagents agent keeps its files in a backend other than its state.*codeModeMiddleware\(\{ backend/s,
  );
}

describe("code mode in createDeepAgent uses the agent's backend or refuses", { timeout: 240_000 }, () => {
  it("CodeGenSandbox: refused without backend before the model runs; with it, write_file → Python/JS code → execute and read_file", async () => {
    const backend = await CodeGenSandbox.create();
    try {
      await refusedBeforeTheModel(backend);
      const agent = createDeepAgent({ model: scripted(...crossing(true)), backend, middleware: [codeModeMiddleware({ sandbox, backend, languages: ["python", "javascript"] })], checkpointer: new MemorySaver() });
      const state = await agent.invoke({ messages: [{ role: "user", content: "go" }] }, { configurable: { thread_id: "agent-backend-sandbox" } });
      checkCrossing(state.messages, true);
      expect((await backend.execute("cat /js.txt")).output).toBe("js saw: from write_file");
    } finally {
      await backend.close();
    }
  });

  it("FilesystemBackend (a temporary directory): refused without backend; with it, the files cross both ways and are on disk", async () => {
    const root = tempDir();
    const backend = new FilesystemBackend({ rootDir: root, virtualMode: true });
    await refusedBeforeTheModel(backend);
    // Files on the disk before the run (the listing is the backend's, not empty) change nothing.
    writeFileSync(join(root, "before.txt"), "x");
    await refusedBeforeTheModel(backend);
    const agent = createDeepAgent({ model: scripted(...crossing(false)), backend, middleware: [codeModeMiddleware({ sandbox, backend, languages: ["python", "javascript"] })], checkpointer: new MemorySaver() });
    const state = await agent.invoke({ messages: [{ role: "user", content: "go" }] }, { configurable: { thread_id: "agent-backend-fs" } });
    checkCrossing(state.messages, false);
    expect(readFileSync(join(root, "py.txt"), "utf8")).toBe("py saw: from write_file");
  });

  it("a CompositeBackend that routes a path elsewhere is refused; a state backend in every form is not", async () => {
    const store = new InMemoryStore();
    await refusedBeforeTheModel((config: StateConfig) => new CompositeBackend(new StateBackend(config as never), { "/memories/": new StoreBackend({ store, namespace: ["m"] }) as never }));
    for (const backend of [undefined, (config: StateConfig) => new StateBackend(config as never), new StateBackend()]) {
      const agent = createDeepAgent({
        model: scripted(...crossing(false)),
        ...(backend === undefined ? {} : { backend }),
        middleware: [codeModeMiddleware({ sandbox, languages: ["python", "javascript"] })],
        checkpointer: new MemorySaver(),
        store,
      });
      const state = await agent.invoke({ messages: [{ role: "user", content: "go" }] }, { configurable: { thread_id: `agent-backend-state-${++n}` } });
      checkCrossing(state.messages, false);
    }
  });
});
