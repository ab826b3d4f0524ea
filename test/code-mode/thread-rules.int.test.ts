/**
 * The rules around a thread's state: misuse is loud (thread persistence in a graph without the
 * channels), subgraphs with the channels work, the tool's own files become the thread's (a
 * delete sticks), `persistence: "none"` says nothing is kept, and a restore never acts on the
 * world: plain host functions are answered from the recording like tools, and a call the
 * recording does not have fails the replay without reaching the real function.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesValue, Overwrite, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import { createCodeInterpreterTool, type ExecuteCodeArtifact } from "../../src/tools/code-interpreter-tool.js";
import { codeModeStateFields } from "../../src/code-mode/thread/state.js";
import type { CodeCell } from "../../src/code-mode/replay/cell-log.js";
import { scriptedCodeModel, type Turn, ask, lastTool, artifact } from "./helpers.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const call = (id: string, code: string, language = "javascript") =>
  new AIMessage({ id, content: "", tool_calls: [{ id: `call-${id}`, name: "execute_code", args: { language, code }, type: "tool_call" }] });

describe("misuse is loud", { timeout: 120_000 }, () => {
  it('persistence "thread" in a graph without code mode\'s channels fails on the first call and names the fix (JavaScript and Python)', async () => {
    for (const language of ["javascript", "python"] as const) {
      const codeTool = createCodeInterpreterTool({ sandbox, persistence: "thread" });
      const agent = createAgent({ model: scriptedCodeModel({ language, code: language === "python" ? "def f():\n    return 1" : "function f() { return 1; }" }, "ok"), tools: [codeTool], checkpointer: new MemorySaver() });
      const state = await agent.invoke(ask("go"), { configurable: { thread_id: `no-channels-${language}` } });
      const text = String(lastTool(state).content);
      expect(text).toContain("codeModeMiddleware");
      expect(text).toContain("codeModeStateFields");
      expect(lastTool(state).status).toBe("error");
    }
  });

  it("inside a subgraph that has the channels, definitions and files persist", async () => {
    const codeTool = createCodeInterpreterTool({ sandbox, persistence: "thread", languages: ["javascript", "python"] });
    const inner = new StateGraph(new StateSchema({ messages: MessagesValue, ...codeModeStateFields }))
      .addNode("tools", new ToolNode([codeTool]))
      .addEdge(START, "tools")
      .addEdge("tools", END)
      .compile();
    const outer = new StateGraph(new StateSchema({ messages: MessagesValue, ...codeModeStateFields }))
      .addNode("inner", inner)
      .addEdge(START, "inner")
      .addEdge("inner", END)
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "subgraph" } };
    await outer.invoke({ messages: [call("s1", "def area(r):\n    return 3 * r * r\nopen('/r.txt', 'w').write('2')", "python")] }, config);
    const state = await outer.invoke({ messages: [call("s2", "area(int(open('/r.txt').read()))", "python")] }, config);
    expect((state.messages.at(-1) as ToolMessage).content).toBe("status: success\nresult: 12");
  });
});

describe("files given with the tool", { timeout: 120_000 }, () => {
  it("become the thread's on its first call: a file the code deletes stays deleted", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "option-files" } };
    const make = (turns: Turn[]) =>
      createAgent({ model: scriptedCodeModel(...turns), middleware: [codeModeMiddleware({ sandbox, languages: ["javascript"], files: { "seed.txt": "given" } })], checkpointer });
    const first = await make([{ code: "const t = files.read('/seed.txt');\nfiles.delete('/seed.txt');\nt" }, "done"]).invoke(ask("go"), config);
    expect(artifact(first).result.result).toBe("given");
    const second = await make([{ code: "files.exists('/seed.txt')" }, "ok"]).invoke(ask("again"), config);
    expect(artifact(second).result.result).toBe(false);
  });

  it('with persistence "none" the result says the files are not kept', async () => {
    const codeTool = createCodeInterpreterTool({ sandbox, languages: ["python"], files: { "in.txt": "a" } });
    const message = await codeTool.invoke({ type: "tool_call", id: "n1", name: "execute_code", args: { language: "python", code: "open('/out.txt', 'w').write(open('/in.txt').read() * 2)" } });
    expect(String(message.content)).toContain("files written (not kept: every call starts fresh): /out.txt");
    expect((message.artifact as ExecuteCodeArtifact).files!.written["/out.txt"]).toMatchObject({ content: "aa" });
  });
});

describe("a restore never acts on the world", { timeout: 240_000 }, () => {
  for (const language of ["javascript", "python"] as const) {
    it(`${language}: plain host functions are answered from the recording; an unrecorded call fails the replay and never reaches them`, async () => {
      const notified: string[] = [];
      const hostFunctions = { notify: (text: unknown) => (notified.push(String(text)), `sent ${String(text)}`) };
      const checkpointer = new MemorySaver();
      const config = { configurable: { thread_id: `armed-${language}` } };
      const py = language === "python";
      // Cell 1 calls notify only when armed; cell 2 arms it through a file. Live: one call (cell 3).
      const turns: Turn[] = [
        { language, code: py ? "import os\nif os.path.exists('/armed'):\n    await notify('from a replay')" : "if (files.exists('/armed')) await notify('from a replay');" },
        { language, code: py ? "open('/armed', 'w').write('1')" : "files.write('/armed', '1');" },
        { language, code: py ? "sent = await notify('live')" : "var sent = await notify('live');" },
        "done",
      ];
      const make = (t: Turn[]) => createAgent({ model: scriptedCodeModel(...t), middleware: [codeModeMiddleware({ sandbox, languages: [language], hostFunctions })], checkpointer });
      const agent = make(turns);
      await agent.invoke(ask("go"), config);
      expect(notified).toEqual(["live"]);
      // A fresh process replays all three cells: the recording answers, nothing is sent again.
      const restored = await make([{ language, code: "sent" }, "ok"]).invoke(ask("again"), config);
      expect(artifact(restored).restore).toMatchObject({ replayed: 3, failures: [] });
      expect(artifact(restored).result.result).toBe("sent live");
      expect(notified).toEqual(["live"]);
      // A recording with the call taken out: the replay's call is unrecorded, so it fails and is reported.
      const { values } = (await agent.getState(config)) as unknown as { values: { codeCells: CodeCell[] } };
      const forged = values.codeCells.map((c) => ({ ...c, id: `${c.id}-f`, hostCalls: [] }));
      await agent.updateState(config, { codeCells: new Overwrite(forged) });
      const refused = await make([{ language, code: py ? "'sent' in globals()" : "typeof sent" }, "ok"]).invoke(ask("again"), config);
      expect(String(lastTool(refused).content)).toContain("the replayed cell made a host call the recording does not have (notify, call 1)");
      expect(artifact(refused).result.result).toBe(py ? false : "undefined");
      expect(notified).toEqual(["live"]);
    });
  }
});
