/**
 * Real MCP clients against the built bin (`dist/src/cli/main.js mcp`): the SDK's `Client` over
 * `StdioClientTransport` (the server is a child process) and over `StreamableHTTPClientTransport`
 * (the server prints its URL on stderr). Run `npm run build` first.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";

/** The repository root (the bin is `dist/src/cli/main.js` under it). */
export const root = fileURLToPath(new URL("../../", import.meta.url));
export const BIN = "dist/src/cli/main.js";

/** A clean environment: no model keys of the developer's leak into a test server. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...extra };
}

/** A connected stdio client, the server's stderr so far, and its pid. */
export interface StdioServer {
  client: Client;
  transport: StdioClientTransport;
  pid: number;
  stderr(): string;
}

/** Starts `codegen-sandbox mcp ARGS` as a child process and connects the SDK client to it. */
export async function startStdioServer(args: string[] = [], env: Record<string, string> = {}): Promise<StdioServer> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", ...args], env: cleanEnv(env), cwd: root, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "codegen-sandbox-tests", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport, pid: transport.pid!, stderr: () => stderr };
}

/** A server started with `--http`, its URL (read from its stderr) and its process. */
export interface HttpServerProcess {
  url: URL;
  child: ChildProcess;
  stderr(): string;
  /** Resolves with the exit code (or signal) once the process has exited. */
  exited: Promise<number | string>;
}

/** Starts `codegen-sandbox mcp --http --port 0 ARGS` and waits for the URL it prints. */
export async function startHttpServer(args: string[] = [], env: Record<string, string> = {}): Promise<HttpServerProcess> {
  const child = spawn(process.execPath, [BIN, "mcp", "--http", "--port", "0", ...args], { cwd: root, env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  const exited = new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  const url = await new Promise<URL>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /at (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) resolve(new URL(match[1]!));
    });
    void exited.then((code) => reject(new Error(`the server exited (${code}) before listening:\n${stderr}`)));
  });
  return { url, child, stderr: () => stderr, exited };
}

/** The SDK client over Streamable HTTP, sending `token` as a bearer token. */
export async function connectHttp(url: URL, token: string | undefined): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(url, token === undefined ? {} : { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: "codegen-sandbox-tests", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** The text of a tool result (its one text block). */
export function textOf(result: unknown): string {
  const content = (result as CallToolResult).content;
  return content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

/** `structuredContent` of a result, typed loosely for assertions. */
export function structured(result: unknown): Record<string, any> {
  return (result as CallToolResult).structuredContent as Record<string, any>;
}

/** Calls `run_code` and returns the result. */
export function runCode(client: Client, args: Record<string, unknown>, options: { signal?: AbortSignal; timeout?: number } = {}) {
  return client.callTool({ name: "run_code", arguments: args }, undefined, options);
}

/** Asserts the server still answers a fresh run promptly. */
export async function expectAlive(client: Client): Promise<void> {
  const result = await runCode(client, { language: "javascript", code: "1 + 1" }, { timeout: 20_000 });
  expect(result.isError, textOf(result)).toBeFalsy();
  expect(structured(result).result).toBe(2);
}
