/**
 * The host reads the Deno process's stdout without trusting it: raw bytes without the channel
 * token are counted and a flood ends the run `output_limit` and replaces the process; no line is
 * held past its bound; nothing in the stream handler can throw into the host.
 */
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { resolvePythonPaths } from "../../../src/sandbox/python/host/deno-paths.js";
import { DenoProcess } from "../../../src/sandbox/python/host/deno-process.js";
import { TokenLineReader } from "../../../src/sandbox/python/host/stdout-reader.js";

const here = dirname(fileURLToPath(import.meta.url));
const limits = { timeoutMs: 20_000, memoryLimitBytes: 64 << 20, maxOutputBytes: 1 << 20, maxResultBytes: 1 << 20 };

describe("TokenLineReader", () => {
  it("keeps token lines, counts other bytes, and finds a token split across chunks", () => {
    const reader = new TokenLineReader(Buffer.from("tok3n "), 100);
    expect(reader.push(Buffer.from("junk tok3n {\"a\":1}\nmore"))).toEqual([{ kind: "message", json: '{"a":1}' }]);
    expect(reader.push(Buffer.from("tok"))).toEqual([]);
    expect(reader.push(Buffer.from("3n {\"b\":2}\n"))).toEqual([{ kind: "message", json: '{"b":2}' }]);
    expect(reader.guestBytes).toBeGreaterThanOrEqual(9);
    expect(reader.guestBytes).toBeLessThanOrEqual(9 + 5);
  });

  it("reports a line past its bound instead of buffering it, then ignores the stream", () => {
    const reader = new TokenLineReader(Buffer.from("t "), 10);
    expect(reader.push(Buffer.from("t 0123456789abc"))).toEqual([{ kind: "overflow", bytes: 13 }]);
    expect(reader.push(Buffer.from("\nt {}\n"))).toEqual([]);
  });

  it("counts a newline-free flood without keeping it", () => {
    const reader = new TokenLineReader(Buffer.from("secret "), 1024);
    const chunk = Buffer.alloc(64 * 1024, 120);
    for (let i = 0; i < 100; i++) expect(reader.push(chunk)).toEqual([]);
    expect(reader.guestBytes).toBe(100 * 64 * 1024);
  });
});

describe("a raw-output flood", { timeout: 120_000 }, () => {
  it("ends the run output_limit and kills the process (fake runner writing 50 MB without newlines)", async () => {
    const paths = { ...resolvePythonPaths(), denoBinary: join(here, "fixtures", "fake-runner.sh") };
    const proc = new DenoProcess(paths, false);
    await proc.whenReady();
    const before = process.memoryUsage().rss;
    const result = await proc.run("ignored", {}, limits);
    expect(result.status).toBe("output_limit");
    expect(result.error?.message).toMatch(/around the sandbox's output channel/);
    await proc.exited;
    expect(proc.alive).toBe(false);
    expect(process.memoryUsage().rss - before).toBeLessThan(limits.maxOutputBytes + 64 * 1024 * 1024);
  });

  it("from Python through the realm does not crash or balloon the host, and the next run is clean", async () => {
    const program = [
      "import importlib",
      "js = next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi').to_js([]).constructor.constructor",
      "chunk = js.Uint8Array.new(1 << 20)",
      "chunk.fill(120)",
      "for _ in range(500):",
      "    js.Deno.stdout.writeSync(chunk)",
    ].join("\n");
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [join(here, "fixtures", "flood-child.mjs"), program], { timeout: 100_000, maxBuffer: 1 << 20 }, (error, out, err) => {
        if (error) reject(new Error(`child failed: ${error.message}\n${err}`));
        else resolve(out);
      });
    });
    const report = JSON.parse(stdout.trim().split("\n").pop()!) as { flood: { status: string }; growthBytes: number; next: { status: string; result: unknown } };
    expect(["output_limit", "runtime_error"]).toContain(report.flood.status);
    expect(report.growthBytes).toBeLessThan(limits.maxOutputBytes + 64 * 1024 * 1024);
    expect(report.next).toEqual({ status: "success", result: [false, 2] });
  });
});
