import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");

// Installs the packed tarball into a scratch project, as a user's `npm install` would, but with
// its dependencies linked from this repository's node_modules (tests never need the network).
// This catches files missing from package.json "files" (workers, the Python runner, prompts).
describe("the package as installed from its tarball", () => {
  let project: string;

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), "cgs-installed-"));
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", project], { cwd: root, encoding: "utf8" }),
    ) as Array<{ filename: string }>;
    const target = join(project, "node_modules", "codegen-sandbox");
    mkdirSync(target, { recursive: true });
    execFileSync("tar", ["-xzf", join(project, packed[0]!.filename), "-C", target, "--strip-components=1"]);
    for (const entry of readdirSync(join(root, "node_modules"))) {
      if (entry === ".bin" || entry === "codegen-sandbox" || entry.startsWith(".")) continue;
      symlinkSync(join(root, "node_modules", entry), join(project, "node_modules", entry));
    }
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "user-project", type: "module", private: true }));
  }, 120_000);

  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  function runScript(source: string): { stdout: string; stderr: string; status: number | null } {
    const file = join(project, `script-${Math.random().toString(36).slice(2)}.mjs`);
    writeFileSync(file, source);
    const out = spawnSync(process.execPath, [file], { cwd: project, encoding: "utf8", timeout: 120_000 });
    return { stdout: out.stdout, stderr: out.stderr, status: out.status };
  }

  it("runs JavaScript, TypeScript and Python through runCode and exits by itself", () => {
    const out = runScript(`
import { runCode } from "codegen-sandbox";
const js = await runCode("console.log('hi'); 6 * 7");
const ts = await runCode("const n: number = 2; n * 21", { language: "typescript" });
const py = await runCode("print('py')\\n6 * 7", { language: "python", timeoutMs: 60000 });
console.log(JSON.stringify([js.status, js.result, ts.result, py.status, py.stdout, py.result]));
`);
    expect(out.stderr).toBe("");
    expect(JSON.parse(out.stdout.trim().split("\n").at(-1)!)).toEqual(["success", 42, 42, "success", "py\n", 42]);
    expect(out.status).toBe(0);
  }, 150_000);

  it("loads its prompts and runs the graph with a scripted model", () => {
    const out = runScript(`
import { createCodeGenGraph } from "codegen-sandbox/graph";
import { FakeListChatModel } from "@langchain/core/utils/testing";
const model = new FakeListChatModel({ responses: ["\`\`\`javascript\\nconsole.log(3628800);\\n\`\`\`"] });
const graph = createCodeGenGraph({ model });
const state = await graph.invoke({ task: "factorial of 10", language: "javascript" });
console.log(JSON.stringify([state.status, state.result.stdout]));
`);
    expect(out.stderr).toBe("");
    expect(JSON.parse(out.stdout.trim().split("\n").at(-1)!)).toEqual(["success", "3628800\n"]);
  }, 150_000);

  it("has a working bin", () => {
    const cli = join(project, "node_modules", "codegen-sandbox", "dist", "src", "cli", "main.js");
    const out = spawnSync(process.execPath, [cli, "exec", "-", "--json"], { input: "1 + 1", encoding: "utf8", timeout: 60_000 });
    expect(out.status).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ status: "success", result: 2 });
  }, 90_000);

  it("serves MCP from its bin (codegen-sandbox mcp) to the SDK's client", () => {
    const cli = join(project, "node_modules", "codegen-sandbox", "dist", "src", "cli", "main.js");
    const out = runScript(`
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
const client = new Client({ name: "user", version: "1" });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [${JSON.stringify(cli)}, "mcp"], stderr: "ignore" }));
const { tools } = await client.listTools();
const run = await client.callTool({ name: "run_code", arguments: { language: "javascript", code: "6 * 7" } });
await client.close();
console.log(JSON.stringify([tools.length, run.structuredContent.result]));
`);
    expect(out.stderr).toBe("");
    expect(JSON.parse(out.stdout.trim().split("\n").at(-1)!)).toEqual([5, 42]);
    expect(out.status).toBe(0);
  }, 90_000);
});
