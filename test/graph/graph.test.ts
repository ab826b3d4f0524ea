import { afterAll, describe, expect, it } from "vitest";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { createCodeGenGraph } from "../../src/graph/index.js";
import type { CodeGenEvent } from "../../src/graph/index.js";
import { disposeDefaultSandbox } from "../../src/sandbox/index.js";

afterAll(async () => {
  await disposeDefaultSandbox();
});

const fence = (lang: string, code: string) => "```" + lang + "\n" + code + "\n```";

function scripted(...replies: string[]) {
  return new FakeListChatModel({ responses: replies });
}

describe("code-generation graph with the real sandbox", () => {
  it("solves a task on the first attempt", async () => {
    const graph = createCodeGenGraph({ model: scripted(fence("js", "let f = 1;\nfor (let i = 2; i <= 10; i++) f *= i;\nconsole.log(f);")) });
    const state = await graph.invoke({ task: "Print the factorial of 10" });
    expect(state.status).toBe("success");
    expect(state.result?.stdout.trim()).toBe("3628800");
    expect(state.attempts).toHaveLength(1);
    expect(state.attempts[0]).toMatchObject({ number: 1, phase: "execute", status: "success" });
    expect(state.explanation).toBeUndefined();
    expect(state.language).toBe("javascript");
  });

  it("refines a first attempt that throws, quoting the failing line to the model", async () => {
    const model = scripted(
      fence("javascript", "const values = [1, 2, 3];\nconsole.log(totl(values));"),
      fence("javascript", "const values = [1, 2, 3];\nconsole.log(values.reduce((a, b) => a + b, 0));"),
    );
    const prompts: string[] = [];
    const graph = createCodeGenGraph({ model });
    const state = await graph.invoke(
      { task: "Print the sum of 1, 2, 3" },
      { callbacks: [{ handleChatModelStart: (_llm: unknown, messages: { content: unknown }[][]) => void prompts.push(String(messages[0].at(-1)?.content)) }] },
    );
    expect(state.status).toBe("success");
    expect(state.result?.stdout.trim()).toBe("6");
    expect(state.attempts.map((a) => [a.number, a.phase, a.status])).toEqual([
      [1, "execute", "runtime_error"],
      [2, "execute", "success"],
    ]);
    expect(state.attempts[0].error).toMatch(/totl/);
    expect(prompts[1]).toContain("console.log(totl(values));");
    expect(prompts[1]).toMatch(/line 2/);
  });
});
