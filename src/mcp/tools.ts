/**
 * The five tools, registered on one protocol-level `McpServer` (one per connected transport):
 * names, descriptions for the model, schemas and annotations, each bound to the server's shared
 * state so that every connection sees the same sandbox and sessions.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { checkCodeTool } from "./check-code-tool.js";
import { runCodeTool } from "./run-code-tool.js";
import {
  checkCodeOutput,
  closeSessionOutput,
  openSessionOutput,
  runCodeOutput,
  solveOutput,
  type toolInputSchemas,
} from "./schemas.js";
import { closeSessionTool, openSessionTool } from "./session-tools.js";
import { solveTool } from "./solve-tool.js";
import type { ToolContext } from "./tool-context.js";
import { sandboxLimits } from "../feedback/sandbox-limits.js";
import { LANGUAGES } from "../sandbox/types.js";

/** The tools' names, in the order `tools/list` gives them. */
export const MCP_TOOL_NAMES = ["run_code", "check_code", "solve", "open_session", "close_session"] as const;

/** What the server tells a client about itself when it connects. */
export const SERVER_INSTRUCTIONS = [
  "Runs JavaScript, TypeScript and Python in an isolated local sandbox (no network, no host files, time and memory limits).",
  "run_code runs a program and returns what it printed, its result and any error with the failing line; a failed run is a normal result to act on.",
  "check_code checks code without running it. open_session gives a handle for run_code that keeps definitions between calls.",
  "solve hands a whole task to a code-writing model that writes, runs and repairs a program.",
].join(" ");

function runCodeDescription(timeoutMs: number): string {
  return [
    "Run a program in an isolated sandbox and get back its status, printed output, result and any error (with the failing line). Languages: javascript, typescript, python.",
    "How to get output back: print it (console.log in JavaScript/TypeScript, print in Python); the value of the last expression is returned as the result.",
    "Each call starts fresh unless you pass a session from open_session.",
    sandboxLimits(LANGUAGES),
    `Limits: ${timeoutMs} ms per run by default. A failed run (syntax error, exception, timeout) is a normal result: read the error, fix the code and call again.`,
  ].join("\n");
}

/**
 * Registers the tools on `server`, bound to `context`.
 *
 * @example
 * ```ts
 * registerTools(new McpServer({ name: "codegen-sandbox", version }), context, toolInputSchemas(context.options));
 * ```
 */
export function registerTools(server: McpServer, context: ToolContext, inputs: ReturnType<typeof toolInputSchemas>): void {
  server.registerTool(
    "run_code",
    {
      title: "Run code in the sandbox",
      description: runCodeDescription(context.options.timeoutMs),
      inputSchema: inputs.runCode,
      outputSchema: runCodeOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args, extra) => runCodeTool(context, args, extra.signal),
  );
  server.registerTool(
    "check_code",
    {
      title: "Check code without running it",
      description:
        `Check a program for syntax errors, imports the sandbox does not provide and, for TypeScript, type errors, without running it. Returns each problem with its line.\n${sandboxLimits(LANGUAGES)}`,
      inputSchema: inputs.checkCode,
      outputSchema: checkCodeOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args, extra) => checkCodeTool(context, args, extra.signal),
  );
  server.registerTool(
    "solve",
    {
      title: "Solve a task with generated code",
      description: [
        "Hand a task to a code-writing model that writes a program, checks it, runs it in the sandbox and repairs it until it works (or runs out of attempts).",
        "Use it for calculations and data work that are easier to compute than to reason out. Returns the status, the final program, its output and every attempt.",
        "State the task completely; put data in `details` and checks in `tests`.",
        `The program runs under the sandbox's limits. ${sandboxLimits(LANGUAGES)}`,
      ].join("\n"),
      inputSchema: inputs.solve,
      outputSchema: solveOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (args, extra) => solveTool(context, args, extra),
  );
  server.registerTool(
    "open_session",
    {
      title: "Open a code session",
      description:
        "Open a session in which definitions (functions, variables, imports) stay defined between run_code calls. Returns a handle: pass it as `session` to run_code. Close it with close_session when done; unused sessions close by themselves.",
      inputSchema: inputs.openSession,
      outputSchema: openSessionOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args, extra) => openSessionTool(context, args, extra.signal),
  );
  server.registerTool(
    "close_session",
    {
      title: "Close a code session",
      description: "Close a session opened with open_session; what it defined is gone.",
      inputSchema: inputs.closeSession,
      outputSchema: closeSessionOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    (args) => closeSessionTool(context, args),
  );
}
