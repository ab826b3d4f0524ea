/**
 * The packed tarball installed with npm into a `"type": "commonjs"` project, as a user (or CI)
 * would: npm resolves our dependencies and the peer dependencies (pinned here to the versions we
 * test, so the result does not move with the registry). Two consumers share the project:
 *
 * - a CommonJS script that `require()`s every entry point in `exports` (with Node's require(esm)
 *   turned off, as before Node 20.19) and runs code through them (JavaScript, TypeScript and Python, an agent with our tool against the scripted
 *   OpenAI-compatible server, the graph with a model named by a string), while a module hook
 *   records every ESM module loaded: LangChain must be loaded as CommonJS only (one copy);
 * - TypeScript under `module: NodeNext` type-checking `createAgent({ tools: [...] })` from
 *   `langchain` with our tools (before the CommonJS build this failed with TS2769: the package's
 *   ESM types pulled in the ESM `.d.ts` of @langchain/core beside the `.d.cts` langchain uses).
 */
import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};

/** Every specifier a CommonJS user can `require()`. */
const requirable = Object.entries(manifest.exports)
  .filter(([, conditions]) => typeof conditions === "object" && conditions !== null && "require" in conditions)
  .map(([subpath]) => (subpath === "." ? "codegen-sandbox" : `codegen-sandbox${subpath.slice(1)}`));

/** The peers (optional ones too, so every entry loads) at the exact versions the repository tests. */
const pins = [
  ...Object.keys(manifest.peerDependencies).map((name) => `${name}@${manifest.devDependencies[name]}`),
  `typescript@${manifest.dependencies.typescript}`,
  `@types/node@${manifest.devDependencies["@types/node"]}`,
];

const HOOKS = `
import { appendFileSync } from "node:fs";
let out;
export async function initialize(data) { out = data.out; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(out, resolved.url + "\\n");
  return resolved;
}
`;

const CONSUMER = `"use strict";
const { register } = require("node:module");
const { readFileSync } = require("node:fs");
const { pathToFileURL } = require("node:url");
// Every ESM module resolved from here on is recorded (require() does not pass through this hook).
register(pathToFileURL(__dirname + "/hooks.mjs"), pathToFileURL(__filename), { data: { out: __dirname + "/esm-loads.txt" } });

const { runCode, disposeDefaultSandbox } = require("codegen-sandbox");
const { createCodeInterpreterTool } = require("codegen-sandbox/tools");
const { createCodeGenGraph } = require("codegen-sandbox/graph");
const { startScriptedOpenAIServer } = require("codegen-sandbox/testing");
const { createAgent } = require("langchain");
const { ChatOpenAI } = require("@langchain/openai");
const { StructuredTool } = require("@langchain/core/tools");

async function main() {
  const out = {};
  const js = await runCode("console.log('hi'); 6 * 7");
  const ts = await runCode("const n: number = 2; n * 21", { language: "typescript" });
  const py = await runCode("print('py')\\n6 * 7", { language: "python", timeoutMs: 120000 });
  out.runs = [js.status, js.stdout, js.result, ts.status, ts.result, py.status, py.stdout, py.result, py.error ?? null];

  const tool = createCodeInterpreterTool();
  out.toolIsCoreTool = tool instanceof StructuredTool;
  const server = await startScriptedOpenAIServer({
    replies: [{ toolCalls: [{ name: "execute_code", args: { code: "console.log(2 ** 10)", language: "javascript" } }] }, "It is 1024."],
  });
  const model = new ChatOpenAI({ model: "scripted-model", apiKey: "test", configuration: { baseURL: server.baseURL } });
  const agent = createAgent({ model, tools: [tool] });
  const state = await agent.invoke({ messages: [{ role: "user", content: "What is 2 ** 10?" }] });
  const toolMessage = state.messages.find((m) => m.type === "tool");
  out.agent = [toolMessage.artifact.result.status, toolMessage.artifact.result.stdout, state.messages.at(-1).content];

  // A model named by a string goes through langchain's initChatModel (a dynamic load).
  server.enqueue("\`\`\`javascript\\nconsole.log(3628800);\\n\`\`\`");
  const graph = createCodeGenGraph({ model: "openai:scripted-model", env: { OPENAI_BASE_URL: server.baseURL } });
  const solved = await graph.invoke({ task: "Print the factorial of 10", language: "javascript" });
  out.graph = [solved.status, solved.result.stdout];
  await server.close();
  await disposeDefaultSandbox();

  out.esmLangChain = readFileSync(__dirname + "/esm-loads.txt", "utf8")
    .split("\\n")
    .filter((url) => /\\/node_modules\\/(@langchain\\/|langchain\\/|codegen-sandbox\\/)/.test(url));

  // The CommonJS build exposes the names the ESM build does (ESM loaded only now, for the comparison).
  out.names = {};
  for (const specifier of ${JSON.stringify(requirable)}) {
    out.names[specifier] = { cjs: Object.keys(require(specifier)).sort(), esm: Object.keys(await import(specifier)).sort() };
  }
  console.log(JSON.stringify(out));
}
main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
`;

const TYPED_CONSUMER = `import { createAgent } from "langchain";
import { ChatOpenAI } from "@langchain/openai";
import { codeModeMiddleware, createCodeAgent, createCodeGenTool, createCodeInterpreterTool } from "codegen-sandbox/tools";
import { createCodeGenGraph } from "codegen-sandbox/graph";
import { runCode, type ExecutionResult } from "codegen-sandbox";

const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test" });
const agent = createAgent({ model, tools: [createCodeInterpreterTool(), createCodeGenTool({ model })] });
const coding = createAgent({ model, tools: [], middleware: [codeModeMiddleware({ tools: [] })] });
const ready = createCodeAgent({ model });
const graph = createCodeGenGraph({ model, maxRetries: 1 });

export async function main(): Promise<ExecutionResult> {
  await agent.invoke({ messages: [{ role: "user", content: "What is 2 ** 100?" }] });
  await coding.invoke({ messages: [{ role: "user", content: "hi" }] });
  await ready.invoke({ messages: [{ role: "user", content: "hi" }] });
  const state = await graph.invoke({ task: "Print 42" });
  const status: "success" | "failed" | "rejected" | undefined = state.status;
  void status;
  return runCode("1 + 1");
}
`;

const TSCONFIG = {
  compilerOptions: {
    module: "NodeNext",
    moduleResolution: "NodeNext",
    target: "ES2022",
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
  },
  files: ["agent.ts"],
};

interface ChildResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<ChildResult> {
  return new Promise((done) => {
    execFile(command, args, { cwd, env, encoding: "utf8", timeout: 240_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === "number" ? error.code : null) : 0;
      done({ status, stdout, stderr });
    });
  });
}

describe("the packed tarball in a CommonJS project", () => {
  let project: string;
  let cacheDir: string;
  let consumer: Promise<ChildResult>;
  let typeCheck: Promise<ChildResult>;

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), "cgs-commonjs-"));
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", project], { cwd: root, encoding: "utf8" }),
    ) as Array<{ filename: string }>;
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "commonjs-user", private: true, type: "commonjs" }));
    const install = await run(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", `./${packed[0]!.filename}`, ...pins],
      project,
    );
    if (install.status !== 0) throw new Error(`npm install of the tarball failed:\n${install.stderr}`);

    // The Python snapshot cache moved out of node_modules; seeded from the repository's when
    // there is one (a first-ever run would make its own, ~10 s).
    cacheDir = join(project, "python-cache");
    mkdirSync(cacheDir);
    const repoCache = join(root, "node_modules", ".cache", "codegen-sandbox");
    for (const file of existsSync(repoCache) ? readdirSync(repoCache) : []) {
      if (/^pyodide-[^-]+-deno-[^-]+\.snapshot$/.test(file)) copyFileSync(join(repoCache, file), join(cacheDir, file));
    }

    writeFileSync(join(project, "hooks.mjs"), HOOKS);
    writeFileSync(join(project, "esm-loads.txt"), "");
    writeFileSync(join(project, "consumer.cjs"), CONSUMER);
    writeFileSync(join(project, "agent.ts"), TYPED_CONSUMER);
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
    // Both consumers run at once; each test awaits its own.
    // Without require(esm) (Node 20.19+ has it; earlier Node 20 does not): nothing we load may rely on it.
    consumer = run(process.execPath, ["--no-experimental-require-module", "consumer.cjs"], project, { ...process.env, CODEGEN_SANDBOX_CACHE_DIR: cacheDir });
    typeCheck = run(process.execPath, [join(project, "node_modules", "typescript", "bin", "tsc"), "-p", "."], project);
  }, 240_000);

  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it("require()s every entry point, runs code through them, and loads LangChain as CommonJS only", async () => {
    const out = await consumer;
    expect(out.stderr).toBe("");
    expect(out.status).toBe(0);
    const report = JSON.parse(out.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
    expect(report.runs).toEqual(["success", "hi\n", 42, "success", 42, "success", "py\n", 42, null]);
    expect(report.toolIsCoreTool).toBe(true);
    expect(report.agent).toEqual(["success", "1024\n", "It is 1024."]);
    expect(report.graph).toEqual(["success", "3628800\n"]);
    expect(report.esmLangChain).toEqual([]);
    const names = report.names as Record<string, { cjs: string[]; esm: string[] }>;
    expect(Object.keys(names)).toEqual(requirable);
    for (const [specifier, { cjs, esm }] of Object.entries(names)) {
      expect(cjs.length, specifier).toBeGreaterThan(0);
      expect(cjs, specifier).toEqual(esm);
    }
    // The moved cache was used: Deno's own cache sits beside the snapshot, nothing in node_modules.
    expect(existsSync(join(cacheDir, "deno-dir"))).toBe(true);
    expect(readdirSync(cacheDir).some((file) => file.endsWith(".snapshot"))).toBe(true);
    expect(existsSync(join(project, "node_modules", ".cache", "codegen-sandbox"))).toBe(false);
  }, 240_000);

  it("type-checks createAgent with our tools under module NodeNext (one @langchain/core)", async () => {
    const out = await typeCheck;
    expect(out.stdout + out.stderr).toBe("");
    expect(out.status).toBe(0);
  }, 240_000);
});
