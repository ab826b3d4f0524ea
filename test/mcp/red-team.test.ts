/**
 * Attacks on the MCP server by someone other than its author, in process (fast): files with
 * names that plain objects mishandle, close_session racing a run, cancellation while a call
 * waits for a slot or when the client deletes its MCP session, and HTTP edge cases on raw
 * sockets (CORS preflight, chunked and smuggled bodies, duplicate headers, header floods,
 * IPv6 loopback).
 */
import { connect } from "node:net";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createMcpServer, serveStdio, startMcpHttpServer, type McpHttpServer, type SandboxMcpServer } from "../../src/mcp/index.js";
import { originPolicy } from "../../src/mcp/http-security.js";
import type { SandboxMcpServerOptions } from "../../src/mcp/options.js";
import { structured, textOf } from "./support.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function connected(options: SandboxMcpServerOptions = {}): Promise<{ server: SandboxMcpServer; client: Client }> {
  const server = createMcpServer(options);
  closers.push(() => server.close());
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "red", version: "1" });
  await client.connect(clientSide);
  return { server, client };
}

async function listening(options: SandboxMcpServerOptions = {}, host?: string): Promise<{ server: SandboxMcpServer; http: McpHttpServer }> {
  const server = createMcpServer(options);
  closers.push(() => server.close());
  const http = await startMcpHttpServer(server, { port: 0, ...(host === undefined ? {} : { host }) });
  closers.push(() => http.close());
  return { server, http };
}

const busyLoop = (ms: number) => `const t = Date.now(); while (Date.now() - t < ${ms}) {}\n'done'`;

describe("files whose names plain objects mishandle", { timeout: 30_000 }, () => {
  it("reports a deleted 'constructor', returns a written '__proto__', and refuses a given '__proto__' by name", async () => {
    const { client } = await connected();
    // Parsed from JSON, as a client sends it: "__proto__" is then an own key.
    const args = JSON.parse(JSON.stringify({ language: "javascript", code: "files.delete('constructor'); files.write('__proto__', 'x'); files.write('toString', 'y'); files.list()" }));
    args.files = JSON.parse('{"constructor": "c", "hasOwnProperty": "h"}');
    const r = await client.callTool({ name: "run_code", arguments: args });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(structured(r).result).toEqual(["__proto__", "hasOwnProperty", "toString"]);
    expect(structured(r).files).toEqual(JSON.parse('{"__proto__": "x", "toString": "y"}'));
    expect(structured(r).deletedFiles).toEqual(["constructor"]);
    const given = await client.callTool({ name: "run_code", arguments: JSON.parse('{"language": "javascript", "code": "files.list()", "files": {"__proto__": "p"}}') });
    expect(given.isError).toBe(true);
    expect(textOf(given)).toMatch(/files\.__proto__.*rename the file/);
  });
});

describe("sessions and cancellation", { timeout: 30_000 }, () => {
  it("a run_code stopped by close_session says the session was closed, not that the engine crashed", async () => {
    const { client } = await connected();
    const opened = await client.callTool({ name: "open_session", arguments: { language: "javascript" } });
    const session = structured(opened).session as string;
    const running = client.callTool({ name: "run_code", arguments: { language: "javascript", session, code: busyLoop(2000) } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await client.callTool({ name: "close_session", arguments: { session } })).isError).toBeFalsy();
    const r = await running;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/was closed; what it defined is gone/);
  });

  it("a call cancelled while it waits for a slot leaves the line; the next call gets the slot", async () => {
    const { client } = await connected({ maxConcurrentRuns: 1 });
    const first = client.callTool({ name: "run_code", arguments: { language: "javascript", code: busyLoop(500) } });
    const abort = new AbortController();
    const waiting = client.callTool({ name: "run_code", arguments: { language: "javascript", code: "1" } }, undefined, { signal: abort.signal });
    await new Promise((resolve) => setTimeout(resolve, 100));
    abort.abort();
    await expect(waiting).rejects.toThrow();
    expect(structured(await first).result).toBe("done");
    expect(structured(await client.callTool({ name: "run_code", arguments: { language: "javascript", code: "6 * 7" } })).result).toBe(42);
  });

  it("a client that deletes its MCP connection cancels its running call: the only slot is free long before the run would end", async () => {
    const { http } = await listening({ maxConcurrentRuns: 1, timeoutMs: 10_000 });
    const headers = { Authorization: `Bearer ${http.token}` };
    const gone = new StreamableHTTPClientTransport(http.url, { requestInit: { headers } });
    const leaving = new Client({ name: "leaving", version: "1" });
    await leaving.connect(gone);
    void leaving.callTool({ name: "run_code", arguments: { language: "javascript", code: busyLoop(8000) } }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await gone.terminateSession();
    const next = new Client({ name: "next", version: "1" });
    await next.connect(new StreamableHTTPClientTransport(http.url, { requestInit: { headers } }));
    closers.push(() => next.close());
    const started = performance.now();
    const r = await next.callTool({ name: "run_code", arguments: { language: "javascript", code: "1" } });
    expect(structured(r).status).toBe("success");
    expect(performance.now() - started).toBeLessThan(6000);
  });
});

/** One raw HTTP exchange; resolves with the status line and headers (lowercased) once they arrive. */
function raw(port: number, text: string, host = "127.0.0.1"): Promise<{ status: number; head: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host);
    let received = "";
    const done = () => {
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
      resolve({ status, head: received.split("\r\n\r\n")[0]!.toLowerCase() });
    };
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      if (received.includes("\r\n\r\n")) done();
    });
    socket.on("error", (error) => (received ? done() : reject(error)));
    socket.on("close", done);
    socket.write(text);
  });
}

describe("HTTP edge cases", { timeout: 30_000 }, () => {
  const INIT = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });

  it("answers a CORS preflight from an allowed origin without the token, and lets a browser read the answers", async () => {
    const { http } = await listening();
    const port = Number(http.url.port);
    const own = `http://localhost:${port}`;
    const preflight = await raw(port, `OPTIONS /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: ${own}\r\nAccess-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: authorization, content-type\r\n\r\n`);
    expect(preflight.status).toBe(204);
    expect(preflight.head).toContain(`access-control-allow-origin: ${own}`);
    expect(preflight.head).toMatch(/access-control-allow-headers: .*authorization.*mcp-session-id/);
    const foreign = await raw(port, `OPTIONS /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: http://evil.example\r\nAccess-Control-Request-Method: POST\r\n\r\n`);
    expect(foreign.status).toBe(403);
    // Not a preflight (no Origin): the token is asked as for any request.
    expect((await raw(port, `OPTIONS /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`)).status).toBe(401);
    const init = await raw(port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: ${own}\r\nAuthorization: Bearer ${http.token}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${INIT.length}\r\n\r\n${INIT}`);
    expect(init.status).toBe(200);
    expect(init.head).toContain(`access-control-allow-origin: ${own}`);
    expect(init.head).toMatch(/access-control-expose-headers: mcp-session-id/);
  });

  it("refuses smuggled, duplicated and oversized requests, and keeps answering", async () => {
    const { http } = await listening();
    const port = Number(http.url.port);
    const auth = `Authorization: Bearer ${http.token}\r\n`;
    const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${auth}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n`;
    expect((await raw(port, `${head}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`)).status).toBe(400);
    // Node keeps the first of duplicated Authorization and Host headers.
    expect((await raw(port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer wrong-token-000000\r\n${auth}Content-Length: 0\r\n\r\n`)).status).toBe(401);
    expect((await raw(port, `POST /mcp HTTP/1.1\r\nHost: evil.example\r\nHost: 127.0.0.1:${port}\r\n${auth}Content-Length: 0\r\n\r\n`)).status).toBe(403);
    expect((await raw(port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}@evil.example\r\n${auth}Content-Length: 0\r\n\r\n`)).status).toBe(403);
    expect((await raw(port, `${head}X-Flood: ${"a".repeat(100_000)}\r\n\r\n`)).status).toBe(431);
    expect((await raw(port, `${head}Transfer-Encoding: chunked\r\n\r\n${INIT.length.toString(16)}\r\n${INIT}\r\n0\r\n\r\n`)).status).toBe(200);
    // A chunked body (no Content-Length to refuse up front) is cut at the cap while it streams.
    const over = await new Promise<number>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      let received = "";
      socket.on("data", (chunk) => {
        received += chunk.toString("latin1");
        resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0));
        socket.destroy();
      });
      socket.on("error", () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0)));
      socket.write(`${head}Transfer-Encoding: chunked\r\n\r\n`);
      const chunk = "x".repeat(1 << 20);
      let sent = 0;
      const pump = (): void => {
        while (sent < 64 && !socket.destroyed) {
          sent++;
          if (!socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`)) return void socket.once("drain", pump);
        }
        if (!socket.destroyed) socket.end("0\r\n\r\n");
      };
      pump();
    });
    expect(over).toBe(413);
    const client = new Client({ name: "after", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(http.url, { requestInit: { headers: { Authorization: `Bearer ${http.token}` } } }));
    closers.push(() => client.close());
    expect(structured(await client.callTool({ name: "run_code", arguments: { language: "javascript", code: "6 * 7" } })).result).toBe(42);
  });

  it("serves IPv6 loopback ([::1]) and checks its Host there too", async () => {
    const { http } = await listening({}, "::1");
    expect(http.url.hostname).toBe("[::1]");
    const port = Number(http.url.port);
    const client = new Client({ name: "v6", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(http.url, { requestInit: { headers: { Authorization: `Bearer ${http.token}` } } }));
    closers.push(() => client.close());
    expect(structured(await client.callTool({ name: "run_code", arguments: { language: "javascript", code: "6 * 7" } })).result).toBe(42);
    expect((await raw(port, `POST /mcp HTTP/1.1\r\nHost: evil.example:${port}\r\nAuthorization: Bearer ${http.token}\r\nContent-Length: 0\r\n\r\n`, "::1")).status).toBe(403);
  });

  it("on port 80 accepts the Host and Origin a client sends without the port", () => {
    const policy = originPolicy("127.0.0.1", 80, []);
    expect(policy.hosts?.has("127.0.0.1")).toBe(true);
    expect(policy.hosts?.has("localhost:80")).toBe(true);
    expect(policy.origins.has("http://localhost")).toBe(true);
    expect(originPolicy("127.0.0.1", 8765, []).hosts?.has("127.0.0.1")).toBe(false);
  });
});

describe("stdio framing", { timeout: 60_000 }, () => {
  /** A server on in-memory stdio streams; `reply(id)` waits for the answer with that id. */
  function stdio(options: SandboxMcpServerOptions = {}) {
    const server = createMcpServer(options);
    closers.push(() => server.close());
    const input = new PassThrough();
    const output = new PassThrough();
    let received = "";
    output.on("data", (chunk: Buffer) => (received += chunk.toString()));
    const served = serveStdio(server, { input, output });
    const reply = async (id: number): Promise<Record<string, unknown>> => {
      for (;;) {
        const line = received.split("\n").slice(0, -1).find((l) => l.includes(`"id":${id}`));
        if (line !== undefined) return JSON.parse(line) as Record<string, unknown>;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    return { input, served, reply };
  }
  const INIT = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  const call = (id: number, args: Record<string, unknown>) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "run_code", arguments: args } });

  it("reads CRLF lines, invalid UTF-8, and a message carrying 24 MiB of files (base64 checked without a stack overflow)", async () => {
    const { input, reply } = stdio();
    input.write(`${INIT}\r\n`);
    await reply(1);
    input.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\r\n`);
    // Two bytes that are not UTF-8 inside the program's string: read as U+FFFD each.
    const [head, tail] = call(2, { language: "javascript", code: "'aSPLIT'.length" }).split("SPLIT");
    input.write(Buffer.concat([Buffer.from(head!), Buffer.from([0xff, 0xfe]), Buffer.from(`${tail}\n`)]));
    expect(JSON.stringify(await reply(2))).toMatch(/result: 3/);
    const file = { base64: Buffer.alloc(6 * 1024 * 1024, 7).toString("base64") };
    input.write(`${call(3, { language: "javascript", code: "files.list().map((p) => files.readBytes(p).length)", files: { a: file, b: file, c: file, d: file } })}\n`);
    const big = (await reply(3)) as { result: { isError?: boolean; structuredContent: { result: unknown } } };
    expect(big.result.isError).toBeFalsy();
    expect(big.result.structuredContent.result).toEqual([6291456, 6291456, 6291456, 6291456]);
  });

  it("closes the connection as soon as a line that never ends passes the cap", async () => {
    const { input, served, reply } = stdio({ maxTotalFileBytes: 1024 * 1024 });
    input.write(`${INIT}\n`);
    await reply(1);
    const chunk = Buffer.alloc(1 << 20, 0x61);
    // The cap is 1 MiB of files as base64 plus 8 MiB: 12 MiB of one line is over it.
    for (let i = 0; i < 12; i++) input.write(chunk);
    await served;
  });
});
