/** The graph type-checks TypeScript that calls code-mode tools against the tools' declarations. */
import { afterAll, describe, expect, it } from "vitest";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { createCodeGenGraph } from "../../src/graph/graph.js";
import { fence, scriptedModel } from "../support/scripted-model.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const price = tool(async ({ sku }) => ({ sku, cents: sku.length * 100 }), {
  name: "get_price",
  description: "Price of an item, in cents.",
  schema: z.object({ sku: z.string().describe("Item code") }),
});

describe("type checks with tools", { timeout: 120_000 }, () => {
  it("a wrong tool input is a type error before running; the repaired program runs", async () => {
    const coder = scriptedModel(
      fence("ts", "const p = await tools.get_price({ sku: 42 });\nconsole.log(p.cents);"),
      fence("ts", "const p = await tools.get_price({ sku: 'abc' });\nconsole.log(p.cents);"),
    );
    const prompts: string[] = [];
    const graph = createCodeGenGraph({ model: coder, sandbox, tools: [price], defaultLanguage: "typescript", maxRetries: 1 });
    const out = await graph.invoke(
      { task: "Print the price of abc in cents" },
      { callbacks: [{ handleChatModelStart: (_model: unknown, messages: { content: unknown }[][]) => void prompts.push(String(messages[0]!.at(-1)?.content)) }] },
    );
    expect(out.attempts.map((a) => [a.phase, a.status])).toEqual([
      ["validate", "type_error"],
      ["execute", "success"],
    ]);
    expect(out.attempts[0]!.error).toMatch(/^line 1:\d+ TS2322: Type 'number' is not assignable to type 'string'/);
    expect(prompts[1]).toContain("The code does not type-check.");
    expect(out.result?.stdout).toBe("300\n");
  });
});
