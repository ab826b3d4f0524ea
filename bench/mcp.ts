/**
 * Bench section "mcp": a `run_code` `1+1` round trip through the MCP server (the built bin in
 * a child process) with the SDK's client, over stdio and over Streamable HTTP, beside `runCode`
 * in this process on a sandbox of the same shape (the floor). The three are measured in turns,
 * one call each per round, so the machine's load weighs on all of them alike.
 * Goal from issue 18: at most 2 ms p50 over stdio on top of the run itself.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createSandbox } from "../src/sandbox/sandbox.js";
import { ms, percentiles, type BenchRow, type BenchSection } from "./table.js";

const WARMUP = 30;
const ROUNDS = 300;
const BIN = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const TOKEN = "bench-token-0123456789abcdef";
const CODE = { language: "javascript", code: "1+1" };

async function stdioClient(): Promise<Client> {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], stderr: "ignore" }));
  return client;
}

async function httpClient(): Promise<{ client: Client; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [BIN, "mcp", "--http", "--port", "0"], { env: { ...process.env, CODEGEN_MCP_TOKEN: TOKEN }, stdio: ["ignore", "ignore", "pipe"] });
  const url = await new Promise<URL>((resolve, reject) => {
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /at (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) resolve(new URL(match[1]!));
    });
    child.once("exit", (code) => reject(new Error(`the MCP server exited (${code}): ${stderr}`)));
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  return {
    client,
    async stop() {
      await client.close();
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

const section: BenchSection = async () => {
  const sandbox = createSandbox();
  const stdio = await stdioClient();
  const http = await httpClient();
  const call = (client: Client) => async () => {
    const result = await client.callTool({ name: "run_code", arguments: CODE });
    if ((result.structuredContent as { result?: unknown } | undefined)?.result !== 2) throw new Error(`run_code 1+1 answered ${JSON.stringify(result)}`);
  };
  const inProcess = async () => {
    const result = await sandbox.run(CODE.code);
    if (result.result !== 2) throw new Error(`runCode 1+1 answered ${JSON.stringify(result)}`);
  };
  const samples = { floor: [] as number[], stdio: [] as number[], http: [] as number[] };
  try {
    for (let i = 0; i < WARMUP; i++) await Promise.all([inProcess(), call(stdio)(), call(http.client)()]);
    for (let i = 0; i < ROUNDS; i++) {
      samples.floor.push(await timed(inProcess));
      samples.stdio.push(await timed(call(stdio)));
      samples.http.push(await timed(call(http.client)));
    }
  } finally {
    await stdio.close();
    await http.stop();
    await sandbox.dispose();
  }
  const floor = percentiles(samples.floor);
  const overStdio = percentiles(samples.stdio);
  const overHttp = percentiles(samples.http);
  const describe = (p: { p50: number; p95: number }) => `${ms(p.p50)} p50 / ${ms(p.p95)} p95`;
  const rows: BenchRow[] = [
    {
      section: "mcp",
      metric: `run_code 1+1 round trip over stdio (SDK client, server in a child process), ${ROUNDS} calls`,
      ours: `${describe(overStdio)} (+${ms(overStdio.p50 - floor.p50)} p50)`,
      baseline: describe(floor),
      baselineName: "runCode 1+1 in-process",
      goal: "<= 2 ms p50 on top of the run",
      met: overStdio.p50 - floor.p50 <= 2,
    },
    {
      section: "mcp",
      metric: `run_code 1+1 round trip over Streamable HTTP (SSE reply, bearer token), ${ROUNDS} calls`,
      ours: `${describe(overHttp)} (+${ms(overHttp.p50 - floor.p50)} p50)`,
      baseline: describe(floor),
      baselineName: "runCode 1+1 in-process",
    },
  ];
  return rows;
};

export default section;
