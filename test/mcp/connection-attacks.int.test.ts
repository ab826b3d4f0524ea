/**
 * The MCP HTTP server under hostile connections, in a child process (the built server and a
 * real MCP SDK client in it, test/mcp/fixtures/connection-attacks.mjs): a flood of half-open
 * unauthenticated sockets (2,000+ over 2 s, against a 64-socket cap and a 1 s unauthenticated
 * timeout) while the client is served; a body declared over the byte cap and an unauthenticated
 * body, refused before they are read; 16 concurrent authenticated 48 MB bodies, of which the
 * byte budget admits two. The child's RSS stays bounded (it was 1,610 MiB for the bodies).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const fixture = fileURLToPath(new URL("./fixtures/connection-attacks.mjs", import.meta.url));

describe("MCP HTTP under hostile connections", { timeout: 120_000 }, () => {
  it("caps sockets and time before authentication, refuses bodies before reading them, bounds bytes held; a real client is served throughout", () => {
    const child = spawnSync(process.execPath, [fixture], { encoding: "utf8", timeout: 100_000, env: { PATH: process.env.PATH ?? "" } });
    expect(child.status, child.stderr).toBe(0);
    const out = JSON.parse(child.stdout.trim().split("\n").at(-1)!);
    // The flood: the client's five calls answered while it ran, the server never past its cap.
    expect(out.servedDuringFlood).toEqual([42, 43, 44, 45, 46]);
    expect(out.opened).toBeGreaterThan(1000);
    expect(out.maxServerSockets).toBeLessThanOrEqual(64);
    // Every half-open socket closed by the unauthenticated timeout (what is left is the client's own keep-alive pool).
    expect(out.serverSocketsLeft).toBeLessThanOrEqual(8);
    expect(out.attackersLeft).toBe(0);
    // Bodies refused before they are read.
    expect(out.overCap).toBe("HTTP/1.1 413 Payload Too Large");
    expect(out.unauthenticatedBody).toBe("HTTP/1.1 401 Unauthorized");
    const statuses: string[] = out.bigBodyStatuses;
    expect(statuses.filter((s) => s.includes("503")).length).toBeGreaterThanOrEqual(14);
    // Two 48 MB bodies at a time, not sixteen (the child also holds the attack's 48 MB buffer).
    expect(out.rssPeakBodiesMiB - out.rssAfterFloodMiB).toBeLessThan(600);
    expect(out.servedAfter).toBe("still here");
  });
});
