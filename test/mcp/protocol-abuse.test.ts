/**
 * A hostile or careless MCP client, in process: malformed `tools/call` params, arguments that
 * produce thousands of validation issues, and an HTTP request aborted mid-run without
 * `notifications/cancelled`. Each must get one bounded, clear answer (or stop its run), never
 * an internal error, an unbounded text or a slot held to the end of the run.
 */
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createMcpServer, serveStdio, startMcpHttpServer, type SandboxMcpServer } from "../../src/mcp/index.js";
import type { SandboxMcpServerOptions } from "../../src/mcp/options.js";
import { structured, textOf } from "./support.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function ownServer(options: SandboxMcpServerOptions = {}): SandboxMcpServer {
  const server = createMcpServer(options);
  closers.push(() => server.close());
  return server;
}

async function connected(options: SandboxMcpServerOptions = {}): Promise<Client> {
  const server = ownServer(options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "abuse", version: "1" });
  await client.connect(clientSide);
  return client;
}

/** A server on in-memory stdio streams; `reply(id)` waits for the answer with that id. */
function rawStdio() {
  const server = ownServer();
  const input = new PassThrough();
  const output = new PassThrough();
  let received = "";
  output.on("data", (chunk: Buffer) => (received += chunk.toString()));
  void serveStdio(server, { input, output });
  closers.push(async () => void input.end());
  const send = (message: unknown) => input.write(`${JSON.stringify(message)}\n`);
  const reply = async (id: number): Promise<Record<string, any>> => {
    for (;;) {
      // Complete lines only: the last piece may be half of a line still arriving.
      const line = received.split("\n").slice(0, -1).find((l) => (JSON.parse(l) as { id?: unknown }).id === id);
      if (line !== undefined) return JSON.parse(line) as Record<string, any>;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return { send, reply };
}

describe("malformed tools/call params", { timeout: 30_000 }, () => {
  it("arguments that are not an object get one isError result naming `arguments`, not an internal error", async () => {
    const { send, reply } = rawStdio();
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
    await reply(1);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const bad: unknown[] = [[], "1 + 1", null, 42, true];
    bad.forEach((args, i) => send({ jsonrpc: "2.0", id: 10 + i, method: "tools/call", params: { name: "run_code", arguments: args } }));
    send({ jsonrpc: "2.0", id: 20, method: "tools/call", params: { name: 7, arguments: {} } });
    for (let i = 0; i < bad.length; i++) {
      const answer = await reply(10 + i);
      expect(answer.error, JSON.stringify(answer)).toBeUndefined();
      expect(answer.result.isError).toBe(true);
      expect(answer.result.content[0].text).toMatch(/^Invalid option "arguments": got .*; expected an object of run_code's arguments/);
    }
    const badName = await reply(20);
    expect(badName.result?.isError, JSON.stringify(badName)).toBe(true);
    expect(badName.result.content[0].text).toMatch(/^Invalid option "name": got 7; expected the name of a tool/);
    // The next well-formed call is answered as usual.
    send({ jsonrpc: "2.0", id: 30, method: "tools/call", params: { name: "run_code", arguments: { language: "javascript", code: "6 * 7" } } });
    expect((await reply(30)).result.structuredContent.result).toBe(42);
  });
});

describe("validation errors stay one bounded message", { timeout: 30_000 }, () => {
  it("thousands of unknown arguments are named by the first few and a count", async () => {
    const client = await connected();
    const unknown = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`extra_${"z".repeat(100)}_${i}`, i]));
    const r = await client.callTool({ name: "run_code", arguments: { language: "javascript", code: "1", ...unknown } });
    expect(r.isError).toBe(true);
    const text = textOf(r);
    expect(text.length).toBeLessThan(2000);
    expect(text).toMatch(/Invalid option "extra_z+ \[\.\.\. 98 more characters cut\], extra_z+ .* and 4997 more": run_code has no arguments of these names; expected only the arguments of run_code \(language, code, timeoutMs, files, session\); remove them\./);
    const two = await client.callTool({ name: "run_code", arguments: { language: "javascript", code: "1", foo: 1, bar: 2 } });
    expect(textOf(two)).toMatch(/Invalid option "foo, bar": run_code has no arguments of these names/);
  });

  it("thousands of bad files are one issue: the first file named, the rest counted", async () => {
    const client = await connected();
    const files = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`f${i}.txt`, i]));
    const r = await client.callTool({ name: "run_code", arguments: { language: "javascript", code: "1", files } });
    expect(r.isError).toBe(true);
    const text = textOf(r);
    expect(text.length).toBeLessThan(1000);
    expect(text).toMatch(/Invalid option "files\.f0\.txt": got 0; expected a string of UTF-8 text, or \{ "base64": "\.\.\." \}.*2999 more files/);
    // One bad file among good ones: still named exactly.
    const one = await client.callTool({ name: "run_code", arguments: { language: "javascript", code: "1", files: { "a.txt": "ok", "b.bin": { base64: "AA==", extra: 1 } } } });
    expect(textOf(one)).toMatch(/Unrecognized key: "extra" at files\.b\.bin/);
    expect(textOf(one)).not.toMatch(/more files/);
  });
});

describe("an HTTP request aborted mid-run", { timeout: 30_000 }, () => {
  it("cancels the calls it carried: the only slot is free long before the run would end", async () => {
    const server = ownServer({ maxConcurrentRuns: 1, timeoutMs: 20_000 });
    const http = await startMcpHttpServer(server, { port: 0 });
    closers.push(() => http.close());
    const client = new Client({ name: "aborting", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(http.url, { requestInit: { headers: { Authorization: `Bearer ${http.token}` } } }));
    closers.push(() => client.close());
    const headers = {
      Authorization: `Bearer ${http.token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": (client.transport as StreamableHTTPClientTransport).sessionId!,
      "mcp-protocol-version": "2025-11-25",
    };
    // A raw POST whose connection goes away: no notifications/cancelled is ever sent.
    const abort = new AbortController();
    const body = JSON.stringify({ jsonrpc: "2.0", id: 99, method: "tools/call", params: { name: "run_code", arguments: { language: "javascript", code: "const t = Date.now(); while (Date.now() - t < 15000) {}\n1" } } });
    const gone = fetch(http.url, { method: "POST", headers, body, signal: abort.signal }).then((r) => r.text());
    await new Promise((resolve) => setTimeout(resolve, 500));
    abort.abort();
    await expect(gone).rejects.toThrow();
    const started = performance.now();
    const next = await client.callTool({ name: "run_code", arguments: { language: "javascript", code: "6 * 7" } });
    expect(structured(next).result).toBe(42);
    expect(performance.now() - started).toBeLessThan(6000);
  });
});

describe("the waiting line is bounded in bytes, not only in calls", { timeout: 30_000 }, () => {
  it("a call whose files would take the waiting calls past the server's file budget is refused as busy; smaller ones still wait", async () => {
    // One slot; the waiting calls may hold at most 1 x maxTotalFileBytes (64 KiB) of files together.
    const client = await connected({ maxConcurrentRuns: 1, maxTotalFileBytes: 64 * 1024, maxFileBytes: 64 * 1024 });
    const file = "f".repeat(40 * 1024);
    const running = client.callTool({ name: "run_code", arguments: { language: "javascript", code: "const t = Date.now(); while (Date.now() - t < 800) {}\n1" } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const first = client.callTool({ name: "run_code", arguments: { language: "javascript", code: "files.list().length", files: { "a.txt": file } } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await client.callTool({ name: "run_code", arguments: { language: "javascript", code: "files.list().length", files: { "b.txt": file } } });
    expect(second.isError).toBe(true);
    expect(textOf(second)).toMatch(/The server is busy: 1 runs at once and 1 waiting, holding 40960 bytes of files/);
    const small = client.callTool({ name: "run_code", arguments: { language: "javascript", code: "files.list().length", files: { "c.txt": "small" } } });
    expect(structured(await running).result).toBe(1);
    expect(structured(await first).result).toBe(1);
    expect(structured(await small).result).toBe(1);
  });
});
