/**
 * End to end through deepagents itself: `createDeepAgent({ backend })` with a scripted model
 * that calls deepagents' own `write_file`, `execute`, `read_file`, `edit_file`, `ls`, `glob`
 * and `grep` tools, all served by one `CodeGenSandbox`.
 */
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { createDeepAgent } from "deepagents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeGenSandbox } from "../../src/deepagents/index.js";
import { fakeModel } from "../support/scripted-model.js";

type Call = { name: string; args: Record<string, unknown> };

/** A scripted model: each turn makes the given tool calls; the last turn answers. */
function scripted(turns: Call[][], answer: string) {
  let model = fakeModel();
  turns.forEach((calls, t) => {
    model = model.respond(new AIMessage({ id: `turn-${t}`, content: "", tool_calls: calls.map((c, i) => ({ ...c, id: `call-${t}-${i}`, type: "tool_call" as const })) }));
  });
  return model.respond(new AIMessage({ id: "answer", content: answer }));
}

let backend: CodeGenSandbox;

beforeAll(async () => {
  backend = await CodeGenSandbox.create({ initialFiles: { "/data/numbers.txt": "3\n4\n5\n" } });
});

afterAll(async () => {
  await backend.close();
});

describe("createDeepAgent with CodeGenSandbox as its backend", () => {
  it("the model's write_file, execute and read_file all act on the sandbox", async () => {
    const model = scripted(
      [
        [{ name: "write_file", args: { file_path: "/notes.txt", content: "alpha\nbeta\n" } }],
        [{ name: "execute", args: { command: "cat /notes.txt /data/numbers.txt | wc -l && echo gamma >> /notes.txt && ls /" } }],
        [{ name: "read_file", args: { file_path: "/notes.txt" } }],
        [{ name: "edit_file", args: { file_path: "/notes.txt", old_string: "beta", new_string: "BETA" } }],
        [
          { name: "ls", args: { path: "/" } },
          { name: "glob", args: { pattern: "**/*.txt" } },
          { name: "grep", args: { pattern: "BETA" } },
        ],
        [{ name: "execute", args: { command: "exit 3" } }],
      ],
      "done",
    );
    const agent = createDeepAgent({ model, backend });
    const state = await agent.invoke({ messages: [{ role: "user", content: "take notes" }] }, { recursionLimit: 50 });
    const tools = state.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
    const text = (m: ToolMessage): string => (typeof m.content === "string" ? m.content : m.content.map((b) => ("text" in b ? String(b.text) : JSON.stringify(b))).join(""));
    const byName = (name: string) => tools.filter((m) => m.name === name).map(text);

    expect(byName("write_file")).toEqual(["Successfully wrote to '/notes.txt'"]);
    const [listing, failure] = byName("execute");
    expect(listing).toBe("5\ndata\nnotes.txt\n\n[Command succeeded with exit code 0]");
    expect(failure).toBe("\n[Command failed with exit code 3]");
    expect(byName("read_file")).toEqual(["@@ lines 1-3 of 3 @@\nalpha\nbeta\ngamma"]);
    expect(byName("edit_file")).toEqual(["Successfully replaced 1 occurrence(s) in '/notes.txt'"]);
    expect(byName("ls")[0]).toBe("/data/ (directory)\n/notes.txt (17 bytes)");
    expect(byName("glob")[0]).toBe("/data/numbers.txt\n/notes.txt");
    expect(byName("grep")[0]).toContain("/notes.txt");
    expect(state.messages.at(-1)!.content).toBe("done");

    // The files live in the sandbox, not in the agent's state.
    expect(backend.read("/notes.txt").content).toBe("alpha\nBETA\ngamma");
    expect((await backend.execute("cat /notes.txt")).output).toBe("alpha\nBETA\ngamma\n");
  });
});
