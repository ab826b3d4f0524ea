/**
 * `codegen-sandbox mcp --http` with the SDK's `StreamableHTTPClientTransport`: the token, the
 * Host/Origin checks, sessions across connections, cancellation, files, and the listener's
 * answers to requests that never reach MCP. One server for the file (JavaScript only: the
 * engines are the stdio file's business).
 */
import { request } from "node:http";
import { execFile } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { BIN, cleanEnv, connectHttp, expectAlive, root, runCode, startHttpServer, structured, textOf, type HttpServerProcess } from "./support.js";

const TOKEN = "test-token-0123456789abcdef";
let server: HttpServerProcess;
let client: Client;

beforeAll(async () => {
  server = await startHttpServer(["--max-concurrent-runs", "1", "--timeout-ms", "30000"], { CODEGEN_MCP_TOKEN: TOKEN });
  client = await connectHttp(server.url, TOKEN);
});

afterAll(async () => {
  await client?.close();
  server?.child.kill("SIGTERM");
  await server?.exited;
});

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

/** A raw POST to the endpoint, with headers we choose (fetch cannot set Host). */
function post(url: URL, headers: Record<string, string>, body = INITIALIZE): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    // agent: false: a socket per request, so the 413 case (a body never sent) taints no later request.
    const req = request(url, { method: "POST", agent: false, headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("codegen-sandbox mcp --http", { timeout: 60_000 }, () => {
  it("serves the tools to a client that sends the token", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["run_code", "check_code", "solve", "open_session", "close_session"]);
    const result = await runCode(client, { language: "typescript", code: "const n: number = 6;\nconsole.log('hi');\nn * 7" });
    expect(textOf(result)).toBe("status: success\nstdout:\nhi\nresult: 42");
    const bad = await runCode(client, { language: "cobol", code: "1" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/Invalid option "language": got "cobol"/);
    const loop = await runCode(client, { language: "javascript", code: "for (;;) {}", timeoutMs: 400 });
    expect(structured(loop).status).toBe("timeout");
  });

  it("a session handle works from another connection (tools never depend on the transport's session)", async () => {
    const other = await connectHttp(server.url, TOKEN);
    try {
      const handle = structured(await client.callTool({ name: "open_session", arguments: { language: "javascript" } })).session;
      await runCode(client, { language: "javascript", code: "var counter = 40;", session: handle });
      const there = await runCode(other, { language: "javascript", code: "counter += 2; counter", session: handle });
      expect(structured(there)).toMatchObject({ status: "success", result: 42 });
      await other.callTool({ name: "close_session", arguments: { session: handle } });
      expect((await runCode(client, { language: "javascript", code: "counter", session: handle })).isError).toBe(true);
    } finally {
      await other.close();
    }
  });

  it("an aborted call cancels its run and the server keeps answering", async () => {
    const controller = new AbortController();
    const pending = runCode(client, { language: "javascript", code: "while (true) {}", timeoutMs: 30_000 }, { signal: controller.signal });
    setTimeout(() => controller.abort("stop"), 500);
    await expect(pending).rejects.toThrow();
    const started = Date.now();
    await expectAlive(client);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("files go in and out", async () => {
    const result = await runCode(client, { language: "javascript", code: "files.write('b.txt', files.read('a.txt') + '!'); 1", files: { "a.txt": "hey" } });
    expect(structured(result)).toMatchObject({ status: "success", files: { "b.txt": "hey!" } });
  });

  it("answers 401 without the token or with a wrong one", async () => {
    const variants: Record<string, string>[] = [{}, { authorization: "Bearer wrong-token-0123456789" }, { authorization: `Basic ${TOKEN}` }, { authorization: `Bearer ${TOKEN}x` }];
    for (const headers of variants) {
      const response = await post(server.url, headers);
      expect(response.status, JSON.stringify(headers)).toBe(401);
      expect(response.headers["www-authenticate"]).toMatch(/^Bearer/);
      expect(response.body).toMatch(/Authorization: Bearer <token>/);
    }
    await expect(connectHttp(server.url, undefined)).rejects.toThrow();
    await expect(connectHttp(server.url, "another-token-0123456789")).rejects.toThrow();
  });

  it("refuses a foreign Origin and a foreign Host (DNS rebinding) with 403, even with the token", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const evilOrigin = await post(server.url, { ...auth, origin: "http://evil.example" });
    expect(evilOrigin.status).toBe(403);
    expect(JSON.parse(evilOrigin.body).error.message).toMatch(/origin "http:\/\/evil\.example" is not allowed/);
    const rebound = await post(server.url, { ...auth, host: `evil.example:${server.url.port}`, origin: `http://evil.example:${server.url.port}` });
    expect(rebound.status).toBe(403);
    const reboundNoOrigin = await post(server.url, { ...auth, host: `evil.example:${server.url.port}` });
    expect(reboundNoOrigin.status).toBe(403);
    expect(reboundNoOrigin.body).toMatch(/Host header/);
    const ownOrigin = await post(server.url, { ...auth, origin: `http://localhost:${server.url.port}` });
    expect(ownOrigin.status).toBe(200);
  });

  it("answers 404 off the endpoint, 404 for an unknown MCP session, 413 for a huge body, and keeps answering", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await post(new URL("/other", server.url), auth)).status).toBe(404);
    const unknown = await post(server.url, { ...auth, "mcp-session-id": "0".repeat(32) }, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
    expect(unknown.status).toBe(404);
    // Over the body cap (room for the default 32 MiB of files as base64, plus 8 MiB).
    const huge = await post(server.url, { ...auth, "content-length": String(60 * 1024 * 1024) }, "");
    expect(huge.status).toBe(413);
    await expectAlive(client);
  });

  it("keeps at most 32 MCP connections: a flood of initializes evicts the longest-idle one", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const ids: string[] = [];
    for (let i = 0; i < 34; i++) {
      const response = await post(server.url, auth);
      expect(response.status).toBe(200);
      ids.push(String(response.headers["mcp-session-id"]));
    }
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const headers = (id: string) => ({ ...auth, "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" });
    expect((await post(server.url, headers(ids[0]!), list)).status).toBe(404);
    expect((await post(server.url, headers(ids.at(-1)!), list)).status).toBe(200);
    // The test's own client has an open request stream, so it was never the one evicted.
    await expectAlive(client);
  });

  it("prints a generated token once when CODEGEN_MCP_TOKEN is unset, and shuts down cleanly on SIGTERM", async () => {
    const fresh = await startHttpServer();
    const lines = fresh.stderr().split("\n").filter((line) => line.includes("token"));
    expect(lines).toHaveLength(1);
    const token = /: (\S+)$/.exec(lines[0]!)![1]!;
    expect(token.length).toBeGreaterThanOrEqual(40);
    const other = await connectHttp(fresh.url, token);
    await expectAlive(other);
    await other.close();
    fresh.child.kill("SIGTERM");
    expect(await fresh.exited).toBe(0);
    expect(fresh.stderr()).toContain("stopping");
  });

  it("refuses a non-loopback address without --allow-remote, HTTP flags without --http, and unknown flags", async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number; stderr: string }>((resolve) => {
        execFile(process.execPath, [BIN, "mcp", ...args], { cwd: root, env: cleanEnv(), timeout: 30_000 }, (error, _stdout, stderr) => {
          resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stderr });
        });
      });
    const [remote, noHttp, unknown, shortToken] = await Promise.all([
      run(["--http", "--host", "0.0.0.0", "--port", "0"]),
      run(["--port", "9000"]),
      run(["--htp"]),
      new Promise<{ code: number; stderr: string }>((resolve) => {
        execFile(process.execPath, [BIN, "mcp", "--http", "--port", "0"], { cwd: root, env: cleanEnv({ CODEGEN_MCP_TOKEN: "short" }), timeout: 30_000 }, (error, _stdout, stderr) => {
          resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stderr });
        });
      }),
    ]);
    expect(remote).toMatchObject({ code: 2 });
    expect(remote.stderr).toMatch(/--allow-remote/);
    expect(noHttp).toMatchObject({ code: 2 });
    expect(noHttp.stderr).toMatch(/--port only apply with --http/);
    expect(unknown).toMatchObject({ code: 2 });
    expect(unknown.stderr).toMatch(/--htp/);
    expect(shortToken).toMatchObject({ code: 2 });
    expect(shortToken.stderr).toMatch(/CODEGEN_MCP_TOKEN.*at least 16 characters/);
    expect(shortToken.stderr).not.toContain("short");
  });
});
