/**
 * Without its peer dependencies, every entry that needs them says which to install: the built
 * package (its `package.json` and `dist/`, hard-linked) in a fresh project whose `node_modules`
 * has every other package of this repository but not LangChain's (`@langchain/*`, `langchain`,
 * `zod`, `deepagents`), imported as ES modules and required as CommonJS, the CLI's commands, and
 * MCP `solve` in a project with `zod` only. The root entry still runs code without them.
 * Needs `npm run build`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

const root = resolve(import.meta.dirname, "../..");
const LANGCHAIN_INSTALL = "npm install @langchain/core @langchain/langgraph langchain zod";
const GRAPH_INSTALL = "npm install @langchain/core @langchain/langgraph langchain zod @langchain/openai";

/** A project with the built package and every dependency of this repository but the peers (and `keep`). */
function project(keep: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), "cgs-no-peers-"));
  const target = join(dir, "node_modules", "codegen-sandbox");
  mkdirSync(target, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "user-project", type: "module", private: true }));
  // Hard links: the package's files are these, but it resolves its imports from the project.
  execFileSync("cp", ["-al", join(root, "dist"), join(root, "prompts"), join(root, "package.json"), target]);
  const skipped = (name: string) => (name.startsWith("@langchain/") || ["langchain", "zod", "deepagents"].includes(name)) && !keep.includes(name);
  for (const entry of readdirSync(join(root, "node_modules"))) {
    if (entry.startsWith(".") || entry === "codegen-sandbox") continue;
    if (entry.startsWith("@")) {
      mkdirSync(join(dir, "node_modules", entry), { recursive: true });
      for (const inner of readdirSync(join(root, "node_modules", entry))) {
        if (!skipped(`${entry}/${inner}`)) symlinkSync(join(root, "node_modules", entry, inner), join(dir, "node_modules", entry, inner));
      }
    } else if (!skipped(entry)) {
      symlinkSync(join(root, "node_modules", entry), join(dir, "node_modules", entry));
    }
  }
  return dir;
}

let bare: string;
let zodOnly: string;
beforeAll(() => {
  bare = project([]);
  zodOnly = project(["zod"]);
});
afterAll(() => {
  for (const dir of [bare, zodOnly]) if (dir) rmSync(dir, { recursive: true, force: true });
});

function node(dir: string, args: string[], input?: string) {
  const out = spawnSync(process.execPath, args, { cwd: dir, encoding: "utf8", timeout: 60_000, input, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" } });
  return { stdout: out.stdout, stderr: out.stderr, status: out.status };
}

describe("a missing peer names the package to install", { timeout: 120_000 }, () => {
  it("ES modules and CommonJS: /tools and /graph name LangChain's peers, /mcp names zod; the root entry runs code without them", () => {
    const script = `
const out = {};
for (const entry of ["tools", "graph", "mcp"]) {
  try { await import("codegen-sandbox/" + entry); out["esm " + entry] = "loaded"; } catch (e) { out["esm " + entry] = e.name + ": " + e.message; }
  try { require("codegen-sandbox/" + entry); out["cjs " + entry] = "loaded"; } catch (e) { out["cjs " + entry] = e.name + ": " + e.message; }
}
const { runCode } = await import("codegen-sandbox");
out.root = (await runCode("6 * 7")).result;
console.log(JSON.stringify(out));`;
    writeFileSync(join(bare, "entries.mjs"), `import { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);\n${script}`);
    const run = node(bare, ["entries.mjs"]);
    expect(run.status, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
    for (const format of ["esm", "cjs"]) {
      expect(out[`${format} tools`]).toBe(`MissingPeerError: codegen-sandbox/tools needs @langchain/core, @langchain/langgraph, langchain, zod (peer dependencies of codegen-sandbox, not installed): run \`${LANGCHAIN_INSTALL}\`.`);
      expect(out[`${format} graph`]).toContain(`run \`${LANGCHAIN_INSTALL}\``);
      expect(out[`${format} mcp`]).toBe("MissingPeerError: codegen-sandbox/mcp needs zod (peer dependency of codegen-sandbox, not installed): run `npm install zod`.");
    }
    expect(out.root).toBe(42);
  });

  it("the CLI: solve, demo and eval name the graph's peers, mcp names zod, exec runs without them", () => {
    const cli = join(bare, "node_modules", "codegen-sandbox", "dist", "src", "cli", "main.js");
    for (const command of ["solve", "demo", "eval"]) {
      const run = node(bare, [cli, command, "Print 1"]);
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(
        `codegen-sandbox: MissingPeerError: codegen-sandbox ${command} needs @langchain/core, @langchain/langgraph, langchain, zod, @langchain/openai (peer dependencies of codegen-sandbox, not installed): run \`${GRAPH_INSTALL}\`.\n`,
      );
    }
    expect(node(bare, [cli, "mcp"]).stderr).toContain("run `npm install zod`");
    const exec = node(bare, [cli, "exec", "-", "--json"], "1 + 1");
    expect(exec.status, exec.stderr).toBe(0);
    expect(JSON.parse(exec.stdout)).toMatchObject({ status: "success", result: 2 });
  });

  it("MCP solve (zod installed, LangChain not): an isError result naming the packages; run_code still works", async () => {
    const cli = join(zodOnly, "node_modules", "codegen-sandbox", "dist", "src", "cli", "main.js");
    const transport = new StdioClientTransport({ command: process.execPath, args: [cli, "mcp"], cwd: zodOnly, env: { PATH: process.env.PATH ?? "", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }, stderr: "ignore" });
    const client = new Client({ name: "no-peers", version: "1" });
    await client.connect(transport);
    try {
      const solved = (await client.callTool({ name: "solve", arguments: { task: "Print 1" } })) as CallToolResult;
      expect(solved.isError).toBe(true);
      expect(JSON.stringify(solved.content)).toContain(`codegen-sandbox mcp solve needs @langchain/core, @langchain/langgraph, langchain, @langchain/openai`);
      expect(JSON.stringify(solved.content)).toContain(`run \`${GRAPH_INSTALL}\``);
      const ran = (await client.callTool({ name: "run_code", arguments: { language: "javascript", code: "6 * 7" } })) as CallToolResult;
      expect(ran.isError).toBeFalsy();
      expect(JSON.stringify(ran.content)).toContain("42");
    } finally {
      await client.close();
    }
  });
});
