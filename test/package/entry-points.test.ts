/**
 * The package's entry points, imported by name through its own `exports` in fresh Node
 * processes (the built `dist/`): the root loads no LangChain module and no TypeScript compiler,
 * only `/mcp` loads the MCP SDK, and every subpath exposes its documented names. The root's import time is a bench row
 * (`npm run bench -- entry`), not an assertion here.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { langChainUrls, probeImport } from "../../bench/import-probe.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** The values each entry point documents (types are checked by the compiler, not here). */
const documented: Record<string, string[]> = {
  "codegen-sandbox": [
    "runCode",
    "checkCode",
    "createSandbox",
    "disposeDefaultSandbox",
    "currentHostCall",
    "LANGUAGES",
    "EXECUTION_STATUSES",
    "DEFAULT_TIMEOUT_MS",
    "DEFAULT_MEMORY_LIMIT_BYTES",
    "DEFAULT_MAX_OUTPUT_BYTES",
    "CodeGenSandboxError",
    "InvalidOptionError",
    "EngineUnavailableError",
    "EngineSetupError",
    "SandboxDisposedError",
    "SandboxSessionEndedError",
  ],
  "codegen-sandbox/graph": [
    "createCodeGenGraph",
    "createCodeGenGraphBuilder",
    "CodeGenState",
    "DEFAULT_MAX_RETRIES",
    "summarizeAttempts",
    "extractProgram",
    "MAX_REPLY_CHARS",
    "checkTypes",
    "ModelConfigurationError",
    "ModelUnavailableError",
    "ModelCallError",
  ],
  "codegen-sandbox/tools": ["createCodeInterpreterTool", "createCodeGenTool", "createCodeAgent", "executeCodeSchema", "solveWithCodeSchema"],
  "codegen-sandbox/sdk": [
    "CodeGeneratorSandbox",
    "CodeGenerators",
    "GeneratedInstance",
    "BaseCodeGenerator",
    "fromChatModel",
    "fromAsyncFunction",
    "fromOpenAICompatible",
    "stripCodeFences",
    "DEFAULT_TEMPLATE",
  ],
  "codegen-sandbox/eval": ["runEvaluation", "graphSolver", "loadTaskFile", "parseTaskFile", "renderEvalReport", "TASK_FILE_FORMATS"],
  "codegen-sandbox/testing": ["startScriptedOpenAIServer"],
  "codegen-sandbox/deepagents": ["CodeGenSandbox", "DEFAULT_EXECUTE_TIMEOUT_MS", "DEFAULT_EXECUTE_MAX_OUTPUT_BYTES"],
  "codegen-sandbox/mcp": ["createMcpServer", "serveStdio", "startMcpHttpServer", "MCP_TOOL_NAMES", "DEFAULT_MCP_PORT", "DEFAULT_MAX_SESSIONS", "DEFAULT_SESSION_IDLE_MS", "DEFAULT_MAX_CONCURRENT_RUNS"],
};

/** Module URLs of the MCP SDK (only the `/mcp` entry may load it). */
const mcpSdkUrls = (urls: string[]) => urls.filter((url) => url.includes("/node_modules/@modelcontextprotocol/"));

/** Names that must never leave the package: internal helpers and marker constants. */
const internal = ["INTERNAL_PREFIX", "EVAL_ENTRY", "resolveRunOptions", "extractCode", "routeAfterValidate", "quoteLine"];

// Every probe is a fresh Node process; LangChain-heavy entries take seconds on a loaded machine.
describe("entry points of the built package", { timeout: 120_000 }, () => {
  it("the root loads no LangChain module and no TypeScript compiler", async () => {
    const probe = await probeImport("codegen-sandbox", root);
    expect(probe.resolvedUrls[0]).toMatch(/\/dist\/src\/index\.js$/);
    expect(langChainUrls(probe.resolvedUrls)).toEqual([]);
    expect(probe.resolvedUrls.filter((url) => /\/node_modules\/(zod|openai|typescript)\//.test(url))).toEqual([]);
    // What a first run does not need loads on first use: the host's parser (check), sessions,
    // and the hashing and inflating of Python wheels.
    expect(probe.resolvedUrls.filter((url) => /\/sandbox\/js\/prepare\/|\/host\/session\.js$|^node:(crypto|zlib)$/.test(url))).toEqual([]);
  });

  it("the root does not load the deepagents entry; that entry loads neither deepagents nor just-bash on the host", async () => {
    const parts = (urls: string[]) => urls.filter((url) => /\/dist\/src\/deepagents\/|\/node_modules\/(just-bash|deepagents)\//.test(url));
    expect(parts((await probeImport("codegen-sandbox", root)).resolvedUrls)).toEqual([]);
    // deepagents is only a type dependency of the entry (an optional peer: the entry loads
    // without it); just-bash is loaded by the shell's worker thread, not by the host.
    const entry = await probeImport("codegen-sandbox/deepagents", root);
    expect(parts(entry.resolvedUrls)).toEqual(expect.arrayContaining([expect.stringMatching(/\/dist\/src\/deepagents\/index\.js$/)]));
    expect(entry.resolvedUrls.filter((url) => /\/node_modules\/(just-bash|deepagents)\//.test(url))).toEqual([]);
  });

  it("the hook sees LangChain when an entry does load it (the probe is not blind)", async () => {
    const probe = await probeImport("codegen-sandbox/graph", root);
    expect(langChainUrls(probe.resolvedUrls).length).toBeGreaterThan(0);
  });

  for (const [specifier, names] of Object.entries(documented)) {
    it(`${specifier} exposes its documented names and no internal helper`, async () => {
      const probe = await probeImport(specifier, root);
      expect(probe.names).toEqual(expect.arrayContaining(names));
      expect(probe.names.filter((name) => internal.includes(name))).toEqual([]);
      // Only the /mcp entry loads the MCP SDK; it loads no LangChain module (solve loads it on first use).
      if (specifier === "codegen-sandbox/mcp") {
        expect(mcpSdkUrls(probe.resolvedUrls).length).toBeGreaterThan(0);
        expect(langChainUrls(probe.resolvedUrls)).toEqual([]);
      } else {
        expect(mcpSdkUrls(probe.resolvedUrls)).toEqual([]);
      }
    });
  }
});
