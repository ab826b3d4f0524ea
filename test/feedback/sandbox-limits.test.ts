/**
 * The limits that remain are said in one place (feedback/sandbox-limits.ts) and every tool that
 * runs code carries that text in its description: `execute_code`, code mode's tool and the MCP
 * tools that run or check code.
 */
import { afterAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { sandboxLimits } from "../../src/feedback/sandbox-limits.js";
import { createCodeInterpreterTool, disposeCodeInterpreterTool } from "../../src/tools/code-interpreter-tool.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import { createMcpServer, type SandboxMcpServer } from "../../src/mcp/index.js";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { LANGUAGES } from "../../src/sandbox/types.js";

const sandbox = createSandbox({ poolSize: 1 });
const servers: SandboxMcpServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await sandbox.dispose();
});

describe("the sandbox's limits in every tool description", () => {
  it("says what is missing for each language, Intl included, and nothing for a language not offered", () => {
    const all = sandboxLimits(LANGUAGES);
    expect(all).toMatch(/no network/);
    expect(all).toMatch(/standard library only/);
    expect(all).toMatch(/not Node\.js or a browser/);
    expect(all).toMatch(/Intl .* format exactly as Node.js does/);
    expect(sandboxLimits(["python"])).not.toMatch(/Intl|QuickJS/);
    expect(sandboxLimits(["javascript"])).not.toMatch(/Python/);
  });

  it("execute_code (one-shot and thread) and code mode's tool carry it", async () => {
    for (const languages of [["javascript", "python"], ["python"], ["typescript"]] as const) {
      const oneShot = createCodeInterpreterTool({ sandbox, languages: [...languages] });
      expect(oneShot.description).toContain(sandboxLimits([...languages]));
      await disposeCodeInterpreterTool(oneShot);
    }
    const thread = createCodeInterpreterTool({ sandbox, persistence: "thread" });
    expect(thread.description).toContain(sandboxLimits(["javascript", "typescript", "python"]));
    await disposeCodeInterpreterTool(thread);
    const middleware = codeModeMiddleware({ sandbox, languages: ["javascript", "python"] });
    expect(middleware.tools![0]!.description).toContain(sandboxLimits(["javascript", "python"]));
    await disposeCodeInterpreterTool(middleware.tools![0]!);
  });

  it("the MCP tools that run or check code carry it", async () => {
    const server = createMcpServer({ sandbox });
    servers.push(server);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "limits", version: "1" });
    await client.connect(clientSide);
    const { tools } = await client.listTools();
    for (const name of ["run_code", "check_code", "solve"]) {
      expect(tools.find((t) => t.name === name)!.description, name).toContain(sandboxLimits(LANGUAGES));
    }
    await client.close();
  });
});
