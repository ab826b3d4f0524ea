/**
 * Which tools code may call: names and instances are checked when the middleware or the tool is
 * made (one InvalidOptionError naming the option), and a name the process has not resolved yet
 * answers with an error that says why.
 */
import { afterAll, describe, expect, it } from "vitest";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { InvalidOptionError } from "../../src/errors.js";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import { createCodeInterpreterTool, disposeCodeInterpreterTool, type ExecuteCodeArtifact } from "../../src/tools/code-interpreter-tool.js";

const readFile = tool(async () => "x", { name: "read_file", description: "Reads.", schema: z.object({ file_path: z.string() }) });
const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

describe("tool specs", { timeout: 60_000 }, () => {
  it("refuses bad names and instances with one clear error", () => {
    const refused = (f: () => unknown) => {
      try {
        f();
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidOptionError);
        return (error as Error).message;
      }
      throw new Error("not refused");
    };
    expect(refused(() => createCodeInterpreterTool({ tools: ["read_file" as never] }))).toMatch(/tools\[0\].*codeModeMiddleware, which sees the agent's tools/);
    expect(refused(() => codeModeMiddleware({ tools: ["execute_code"] }))).toMatch(/a tool other than the code tool itself \(execute_code\)/);
    expect(refused(() => codeModeMiddleware({ tools: ["run"], name: "run" }))).toMatch(/code tool itself \(run\)/);
    expect(refused(() => codeModeMiddleware({ tools: ["read-file"] }))).toMatch(/identifier/);
    expect(refused(() => codeModeMiddleware({ tools: ["__init__"] }))).toMatch(/not starting with __/);
    expect(refused(() => codeModeMiddleware({ tools: ["__proto__"] }))).toMatch(/not starting with __/);
    expect(refused(() => codeModeMiddleware({ tools: ["read_file", readFile] }))).toMatch(/distinct names/);
    expect(refused(() => codeModeMiddleware({ tools: [42 as never] }))).toMatch(/a LangChain tool or the name of one of the agent's tools/);
    expect(refused(() => codeModeMiddleware({ tools: "task" as never }))).toMatch(/an array/);
  });

  it("a name called before this process saw the agent's tools says so (a run resumed right at the code tool)", async () => {
    const middleware = codeModeMiddleware({ sandbox, tools: ["read_file", "task"], languages: ["javascript"], persistence: "none" });
    const codeTool = middleware.tools![0]! as { invoke(input: unknown): Promise<{ artifact: ExecuteCodeArtifact }> };
    const message = await codeTool.invoke({
      name: "execute_code",
      args: { language: "javascript", code: "let m; try { await tools.task({ description: 'x', subagent_type: 'y' }) } catch (e) { m = e.name + ': ' + e.message } m" },
      id: "cold",
      type: "tool_call",
    });
    expect(message.artifact.result.result).toMatch(/^ToolNotAvailableError: tools\.task cannot be called: it names one of the agent's tools, which code mode learns from the agent's model calls, and this process has not seen one for this run yet/);
    await disposeCodeInterpreterTool(codeTool);
  });

  it("code calling a tool that runs code again stops at the nesting limit, with the reason", async () => {
    type CodeTool = { invoke(input: unknown, config?: object): Promise<{ artifact: ExecuteCodeArtifact }> };
    let codeTool: CodeTool | undefined;
    let depth = 0;
    const recurse = tool(
      async (_input, config) => {
        depth += 1;
        const message = await codeTool!.invoke(
          { name: "execute_code", args: { language: "javascript", code: "await tools.recurse({})" }, id: `r${depth}`, type: "tool_call" },
          config,
        );
        const r = message.artifact.result;
        return r.status === "success" ? r.result : `${r.error?.name}: ${r.error?.message}`;
      },
      { name: "recurse", description: "Runs code that calls this tool again.", schema: z.object({}) },
    );
    codeTool = createCodeInterpreterTool({ sandbox, tools: [recurse], languages: ["javascript"], timeoutMs: 30_000 }) as unknown as CodeTool;
    const message = await codeTool.invoke({ name: "execute_code", args: { language: "javascript", code: "await tools.recurse({})" }, id: "r0", type: "tool_call" });
    expect(depth).toBe(4);
    expect(message.artifact.result.result).toBe("ToolError: tools.recurse was not called: code calling tools that run code is nested 4 levels deep, the most code mode allows");
    await disposeCodeInterpreterTool(codeTool);
  });

  it("a tool that answers after its run ended: nothing of the answer is kept", async () => {
    const slow = tool(async () => new Promise<string>((resolve) => setTimeout(() => resolve("late"), 1500)), {
      name: "slow",
      description: "Slow.",
      schema: z.object({}),
    });
    const codeTool = createCodeInterpreterTool({ sandbox, tools: [slow], languages: ["javascript"], timeoutMs: 300 });
    const message = (await codeTool.invoke({ name: "execute_code", args: { language: "javascript", code: "await tools.slow({})" }, id: "late", type: "tool_call" })) as { artifact: ExecuteCodeArtifact };
    expect(message.artifact.result.status).toBe("timeout");
    await new Promise((resolve) => setTimeout(resolve, 1800));
    expect(message.artifact.toolCalls).toEqual([{ name: "slow", input: {} }]);
    await disposeCodeInterpreterTool(codeTool);
  });
});
