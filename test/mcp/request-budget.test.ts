/**
 * One byte budget for the requests a server holds, stdio included: calls carrying megabytes of
 * `code` (not files, which the run line already counted) past the budget are answered "busy" at
 * once and never reach a tool; the ones admitted run, and the budget is returned when they are
 * answered. (20 stdio calls of 40 MB of code once held the server at 1,376 MiB.)
 */
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { createMcpServer, serveStdio } from "../../src/mcp/index.js";
import { ByteBudget, maxRequestBytesFor, requestBudgetOf } from "../../src/mcp/run-limiter.js";
import { messageBytes } from "../../src/mcp/stdio.js";

const MiB = 1024 * 1024;
const server = createMcpServer({ maxTotalFileBytes: MiB, maxConcurrentRuns: 1 });
afterAll(() => server.close());

describe("the request byte budget", { timeout: 120_000 }, () => {
  it("reserves and releases, refusing what does not fit", () => {
    const budget = new ByteBudget(100);
    const a = budget.reserve(60)!;
    expect(budget.reserve(50)).toBeUndefined();
    a();
    a();
    expect(budget.heldBytes).toBe(0);
    expect(budget.reserve(100)).toBeTypeOf("function");
  });

  it("counts a message's strings as its JSON would", () => {
    expect(messageBytes({ code: "x".repeat(1000) })).toBeGreaterThanOrEqual(1000);
    expect(messageBytes({ code: "x".repeat(1000) })).toBeLessThan(1100);
  });

  it("stdio: calls of 8 MB of code past the budget are answered busy at once; the admitted ones run", async () => {
    const budget = requestBudgetOf(server);
    expect(budget.maxBytes).toBe(2 * maxRequestBytesFor(MiB));
    const input = new PassThrough();
    const output = new PassThrough();
    const replies: Array<{ id: number; result?: { structuredContent?: { status?: string } }; error?: { message: string } }> = [];
    let text = "";
    output.on("data", (d: Buffer) => {
      text += d.toString();
      for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n")) {
        replies.push(JSON.parse(text.slice(0, nl)));
        text = text.slice(nl + 1);
      }
    });
    const served = serveStdio(server, { input, output });
    const send = (m: unknown) => input.write(JSON.stringify(m) + "\n");
    send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const code = "1 //" + "x".repeat(8 * 1000 * 1000);
    for (let id = 1; id <= 8; id++) send({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "run_code", arguments: { language: "javascript", code } } });
    const deadline = Date.now() + 100_000;
    while (replies.filter((r) => r.id >= 1).length < 8 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const calls = replies.filter((r) => r.id >= 1);
    const busy = calls.filter((r) => r.error?.message.startsWith("The server is busy: requests in progress hold"));
    const ran = calls.filter((r) => r.result !== undefined);
    expect(calls).toHaveLength(8);
    // ~8 MB each against a ~19 MB budget: two held at once, the rest refused as they arrive.
    expect(busy.length).toBeGreaterThanOrEqual(5);
    expect(ran.length).toBeGreaterThanOrEqual(1);
    expect(budget.heldBytes).toBe(0);
    input.end();
    await served;
  });
});
