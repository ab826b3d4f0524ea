/**
 * `createMcpServer` in-process, with the SDK's real `Client` over its in-memory transport:
 * session expiry and ownership, what `close()` disposes, options. JavaScript only (fast).
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { InvalidOptionError, SandboxDisposedError } from "../../src/errors.js";
import { MAX_RETRIES_LIMIT } from "../../src/graph/configuration.js";
import { createMcpServer, type SandboxMcpServer } from "../../src/mcp/index.js";
import { SOLVE_MAX_RETRIES } from "../../src/mcp/schemas.js";
import type { SandboxMcpServerOptions } from "../../src/mcp/options.js";
import { structured, textOf } from "./support.js";

const servers: SandboxMcpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function connected(options: SandboxMcpServerOptions = {}): Promise<{ server: SandboxMcpServer; client: Client }> {
  const server = createMcpServer(options);
  servers.push(server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(clientSide);
  return { server, client };
}

async function openSession(client: Client): Promise<string> {
  const result = await client.callTool({ name: "open_session", arguments: { language: "javascript" } });
  expect(result.isError, textOf(result)).toBeFalsy();
  return structured(result).session as string;
}

const run = (client: Client, code: string, session?: string) =>
  client.callTool({ name: "run_code", arguments: { language: "javascript", code, ...(session === undefined ? {} : { session }) } });

describe("createMcpServer", { timeout: 30_000 }, () => {
  it("closes a session after its idle time, but never while it runs", async () => {
    const { server, client } = await connected({ sessionIdleMs: 300 });
    const handle = await openSession(client);
    // A call longer than the idle time: the session must survive it.
    const busy = await run(client, "var t0 = Date.now(); while (Date.now() - t0 < 600) {}\n'done'", handle);
    expect(structured(busy).result).toBe("done");
    expect(structured(await run(client, "typeof t0", handle)).result).toBe("number");
    expect(server.sessionCount).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(server.sessionCount).toBe(0);
    const after = await run(client, "t0", handle);
    expect(after.isError).toBe(true);
    expect(textOf(after)).toMatch(/expired after 300 ms without use; what it defined is gone/);
  });

  it("binds a handle to the server that opened it", async () => {
    const a = await connected();
    const b = await connected();
    const handle = await openSession(a.client);
    const elsewhere = await run(b.client, "1", handle);
    expect(elsewhere.isError).toBe(true);
    expect(textOf(elsewhere)).toMatch(/belongs to another server/);
    // Another connection to the same server shares its sessions.
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await a.server.connect(serverSide);
    const second = new Client({ name: "second", version: "1" });
    await second.connect(clientSide);
    await run(a.client, "var shared = 7;", handle);
    expect(structured(await run(second, "shared * 6", handle)).result).toBe(42);
    expect(a.server.connectionCount).toBe(2);
  });

  it("a session whose run timed out is reported as ended and removed", async () => {
    const { server, client } = await connected();
    const handle = await openSession(client);
    const timedOut = await client.callTool({ name: "run_code", arguments: { language: "javascript", code: "while (true) {}", timeoutMs: 200, session: handle } });
    expect(structured(timedOut).status).toBe("timeout");
    const next = await run(client, "1", handle);
    expect(next.isError).toBe(true);
    expect(textOf(next)).toMatch(/has ended \(a run in it timed out/);
    expect(server.sessionCount).toBe(0);
  });

  it("close() aborts running calls, closes every session and connection, and disposes only its own sandbox", async () => {
    const mine = createSandbox({ poolSize: 1 });
    const withMine = await connected({ sandbox: mine });
    await openSession(withMine.client);
    const own = await connected({ timeoutMs: 20_000 });
    await openSession(own.client);
    await openSession(own.client);
    const pending = own.client.callTool({ name: "run_code", arguments: { language: "javascript", code: "while (true) {}", timeoutMs: 20_000 } });
    pending.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    await Promise.all([own.server.close(), withMine.server.close()]);
    expect(Date.now() - started).toBeLessThan(6000);
    await expect(pending).rejects.toThrow();
    expect(own.server.sessionCount).toBe(0);
    expect(own.server.connectionCount).toBe(0);
    expect(withMine.server.sessionCount).toBe(0);
    expect(mine.disposed).toBe(false);
    expect((await mine.run("1 + 1")).result).toBe(2);
    await mine.dispose();
    const [, serverSide] = InMemoryTransport.createLinkedPair();
    await expect(own.server.connect(serverSide)).rejects.toThrow(SandboxDisposedError);
  });

  it("leaves no session worker behind after close()", async () => {
    const sandbox = createSandbox({ poolSize: 1 });
    const { server, client } = await connected({ sandbox });
    await run(client, "1");
    const poolOnly = sandbox.liveWorkerCount();
    await openSession(client);
    await openSession(client);
    expect(sandbox.liveWorkerCount()).toBe(poolOnly + 2);
    await client.close();
    await server.close();
    expect(sandbox.liveWorkerCount()).toBe(poolOnly);
    await sandbox.dispose();
    expect(sandbox.liveWorkerCount()).toBe(0);
  });

  it("checks its options with one error that names the option", () => {
    expect(() => createMcpServer({ maxSessions: 0 })).toThrow(InvalidOptionError);
    expect(() => createMcpServer({ maxSessions: 0 })).toThrow(/Invalid option "maxSessions": got 0/);
    expect(() => createMcpServer({ sessionIdleMs: 2 ** 31 })).toThrow(/"sessionIdleMs".*from 1 to 2147483647/);
    expect(() => createMcpServer({ timeoutMs: 2 ** 31 })).toThrow(/"timeoutMs".*at most 2000000000/);
    expect(() => createMcpServer({ sandbox: {} as never })).toThrow(/"sandbox"/);
    expect(createMcpServer().options).toMatchObject({ timeoutMs: 5000, maxSessions: 8, sessionIdleMs: 600_000, maxConcurrentRuns: 4, maxContentChars: 4000 });
  });

  it("accepts at most the graph's own maxRetries", () => {
    expect(SOLVE_MAX_RETRIES).toBe(MAX_RETRIES_LIMIT);
  });
});
