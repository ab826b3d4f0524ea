/**
 * Generated programs may call tools: `createCodeGenGraph({ tools })` and `solve_with_code`
 * (`createCodeGenTool({ tools })`) show the signatures in the prompt and run the program with
 * `tools` defined, line numbers kept.
 */
import { afterAll, describe, expect, it } from "vitest";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { createCodeGenGraph } from "../../src/graph/graph.js";
import { createCodeGenTool } from "../../src/tools/code-gen-tool.js";
import { fence, scriptedModel } from "../support/scripted-model.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const price = tool(async ({ sku }) => ({ sku, cents: sku.length * 100 }), {
  name: "get_price",
  description: "Price of an item, in cents.",
  schema: z.object({ sku: z.string().describe("Item code") }),
});

describe("tools in the code-generation graph", { timeout: 120_000 }, () => {
  it("createCodeGenGraph: the prompt shows the signatures and the program calls the tool", async () => {
    const coder = scriptedModel(fence("javascript", "const p = await tools.get_price({ sku: 'abc' });\nconsole.log(p.cents);"));
    const graph = createCodeGenGraph({ model: coder, sandbox, tools: [price] });
    const prompts: string[] = [];
    const out = await graph.invoke(
      { task: "Print the price of abc in cents" },
      { callbacks: [{ handleChatModelStart: (_model: unknown, messages: { content: unknown }[][]) => void prompts.push(messages[0]!.map((m) => String(m.content)).join("\n")) }] },
    );
    expect(out.status).toBe("success");
    expect(out.result?.stdout).toBe("300\n");
    expect(prompts[0]).toContain("The program may call these tools with `await tools.<name>(input)`");
    expect(prompts[0]).toContain("get_price(input: GetPriceInput): Promise<unknown>;");
    expect(prompts[0]).toMatch(/interface GetPriceInput \{[\s\S]*sku: string/);
  });

  it("Python programs get tools too and failing lines keep their numbers", async () => {
    const coder = scriptedModel(
      fence("python", "p = await tools.get_price(sku='abcd')\nprint(p['cents'])\nraise ValueError('stop')"),
      fence("python", "p = await tools.get_price(sku='abcd')\nprint(p['cents'])"),
    );
    const graph = createCodeGenGraph({ model: coder, sandbox, tools: [price], defaultLanguage: "python", maxRetries: 1 });
    const out = await graph.invoke({ task: "Print the price of abcd" });
    expect(out.attempts[0]!.error).toMatch(/ValueError: stop[\s\S]*line 3|line 3[\s\S]*ValueError/);
    expect(out.status).toBe("success");
    expect(out.result?.stdout).toBe("400\n");
  });

  it("solve_with_code passes tools to its graph", async () => {
    const coder = scriptedModel(fence("javascript", "console.log((await tools.get_price({ sku: 'xy' })).cents)"));
    const solve = createCodeGenTool({ model: coder, sandbox, tools: [price] });
    const message = (await solve.invoke({ type: "tool_call", id: "s1", name: "solve_with_code", args: { task: "Price of xy" } })) as { content: string };
    expect(message.content).toMatch(/^status: success/);
    expect(message.content).toContain("200");
  });
});
