/** The MCP server's small parts on their own: HTTP checks, files as JSON, the run limiter, the argument schemas. */
import { describe, expect, it } from "vitest";
import { bearerTokenMatches, checkRequest, checkToken, isLoopbackHost, originPolicy } from "../../src/mcp/http-security.js";
import { decodeFiles, encodeFile, fileChanges } from "../../src/mcp/files.js";
import { RunLimiter } from "../../src/mcp/run-limiter.js";
import { toolInputSchemas } from "../../src/mcp/schemas.js";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("HTTP checks", () => {
  it("knows loopback addresses", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST"]) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ["0.0.0.0", "::", "192.168.1.2", "10.0.0.1", "example.com", "localhost.example.com", "128.0.0.1"]) expect(isLoopbackHost(host), host).toBe(false);
  });

  it("compares bearer tokens exactly", () => {
    const token = "a-token-of-enough-length";
    expect(bearerTokenMatches(`Bearer ${token}`, token)).toBe(true);
    expect(bearerTokenMatches(`bearer ${token}`, token)).toBe(true);
    for (const header of [undefined, "", token, `Bearer ${token}x`, `Bearer ${token.slice(0, -1)}`, `Basic ${token}`, `Bearer  `, `Bearer ${token} extra`]) {
      expect(bearerTokenMatches(header, token), String(header)).toBe(false);
    }
  });

  it("refuses short tokens without echoing them", () => {
    expect(() => checkToken("short")).toThrow(/at least 16 characters/);
    expect(() => checkToken("short")).not.toThrow(/short"/);
    expect(() => checkToken("has spaces in the token")).toThrow();
    expect(checkToken("0123456789abcdef")).toBe("0123456789abcdef");
  });

  it("allows the server's own loopback origins and hosts, plus the origins it is given", () => {
    const policy = originPolicy("127.0.0.1", 8765, ["http://localhost:3000"]);
    const token = "0123456789abcdef";
    const auth = `Bearer ${token}`;
    expect(checkRequest({ host: "127.0.0.1:8765", authorization: auth }, policy, token)).toBeUndefined();
    expect(checkRequest({ host: "localhost:8765", origin: "http://localhost:8765", authorization: auth }, policy, token)).toBeUndefined();
    expect(checkRequest({ host: "[::1]:8765", origin: "http://localhost:3000", authorization: auth }, policy, token)).toBeUndefined();
    expect(checkRequest({ host: "127.0.0.1:8765", origin: "http://localhost:3001", authorization: auth }, policy, token)?.status).toBe(403);
    expect(checkRequest({ host: "127.0.0.1:8765", origin: "null", authorization: auth }, policy, token)?.status).toBe(403);
    expect(checkRequest({ host: "attacker.example:8765", authorization: auth }, policy, token)?.status).toBe(403);
    expect(checkRequest({ host: "127.0.0.1:9999", authorization: auth }, policy, token)?.status).toBe(403);
    expect(checkRequest({ host: "127.0.0.1:8765" }, policy, token)?.status).toBe(401);
    // A server bound for remote use accepts any Host, but still only the origins it was given.
    const remote = originPolicy("0.0.0.0", 8765, []);
    expect(checkRequest({ host: "my-box.lan:8765", authorization: auth }, remote, token)).toBeUndefined();
    expect(checkRequest({ host: "my-box.lan:8765", origin: "http://my-box.lan:8765", authorization: auth }, remote, token)?.status).toBe(403);
    expect(() => originPolicy("127.0.0.1", 1, ["localhost:3000"])).toThrow(/allowedOrigins\[0\]/);
    expect(() => originPolicy("127.0.0.1", 1, ["http://localhost:3000/path"])).toThrow(/no path/);
  });
});

describe("files as JSON", () => {
  it("decodes text and base64, refusing base64 Node would silently skip", () => {
    const decoded = decodeFiles({ "a.txt": "hé", "b.bin": { base64: "AP8=" } });
    expect([...decoded["a.txt"]!]).toEqual([...bytes("hé")]);
    expect([...decoded["b.bin"]!]).toEqual([0, 255]);
    for (const base64 of ["AP8", "A P8=", "AP8=!", "AP-_", "====="]) expect(() => decodeFiles({ x: { base64 } }), base64).toThrow(/files\.x\.base64/);
  });

  it("encodes UTF-8 as text (a byte-order mark kept) and anything else as base64", () => {
    expect(encodeFile(bytes("plain"))).toBe("plain");
    expect(encodeFile(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))).toBe("\uFEFFA");
    expect(encodeFile(new Uint8Array([0xff, 0xfe, 0x00]))).toEqual({ base64: "//4A" });
  });

  it("lists created and changed files, and the given ones deleted", () => {
    const given = { "same.txt": bytes("1"), "changed.txt": bytes("2"), "gone.txt": bytes("3") };
    const after = { "same.txt": bytes("1"), "changed.txt": bytes("22"), "new.bin": new Uint8Array([255]) };
    expect(fileChanges(given, after)).toEqual({ written: { "changed.txt": "22", "new.bin": { base64: "/w==" } }, deleted: ["gone.txt"] });
  });
});

describe("RunLimiter", () => {
  it("runs at most N at once, in order, refuses past its line, and drops a waiter whose call is cancelled", async () => {
    const limiter = new RunLimiter(1);
    const order: number[] = [];
    let release!: () => void;
    const first = limiter.run(new AbortController().signal, () => new Promise<void>((resolve) => (release = resolve)).then(() => order.push(1)));
    const cancelled = new AbortController();
    const dropped = limiter.run(cancelled.signal, async () => order.push(99));
    const waiting = Array.from({ length: 7 }, (_, i) => limiter.run(new AbortController().signal, async () => order.push(i + 2)));
    const refused = await limiter.run(new AbortController().signal, async () => order.push(100));
    expect(refused).toEqual({ ok: false, message: expect.stringMatching(/busy: 1 runs at once and 8 waiting/) });
    cancelled.abort(new Error("gone"));
    await expect(dropped).rejects.toThrow("gone");
    release();
    await Promise.all([first, ...waiting]);
    expect(order).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(limiter.active).toBe(0);
    await limiter.whenIdle();
  });
});

describe("argument schemas", () => {
  const schemas = toolInputSchemas({ timeoutMs: 5000 });
  const messages = (result: { error?: { issues: { message: string }[] } }) => result.error?.issues.map((i) => i.message) ?? [];

  it("say what to send, in InvalidOptionError's words", () => {
    expect(messages(schemas.runCode.safeParse({ language: "ruby", code: "1" }))).toEqual(['Invalid option "language": got "ruby"; expected one of "javascript", "typescript", "python".']);
    expect(messages(schemas.runCode.safeParse({ language: "python", code: "", timeoutMs: 0 }))[0]).toMatch(/"code": got ""; expected a non-empty program/);
    expect(messages(schemas.runCode.safeParse({ language: "python", code: "1", files: { "a.txt": 5 } }))).toEqual([
      'Invalid option "files.a.txt": got 5; expected a string of UTF-8 text, or { "base64": "..." } (standard base64) for other bytes.',
    ]);
    expect(messages(schemas.solve.safeParse({ task: "t", maxRetries: 21 }))).toEqual(['Invalid option "maxRetries": got 21; expected a whole number of repairs from 0 to 20.']);
    expect(messages(schemas.closeSession.safeParse({ session: "s", extra: 1, more: 2 }))[0]).toMatch(/"extra, more": close_session has no arguments of these names.*remove them/);
    expect(schemas.runCode.safeParse({ language: "javascript", code: "1", timeoutMs: 5000, files: { "a": { base64: "AA==" } }, session: "x" }).success).toBe(true);
  });
});
