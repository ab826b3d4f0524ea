/**
 * The shell as documented: every `execute` starts with default shell options (a `shopt` of one
 * call does not widen a glob of the next), and the device files behave as devices: output sent
 * to them is not kept, not readable, not in the store and not counted against its caps.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExecutionResult, Sandbox } from "../../src/sandbox/types.js";
import { CodeGenSandbox } from "../../src/deepagents/index.js";

/** The shell alone is under test: no program runs. */
const noEngine = {
  async run(): Promise<ExecutionResult> {
    throw new Error("no program runs in these tests");
  },
} as unknown as Sandbox;

let sandbox: CodeGenSandbox;

beforeAll(async () => {
  sandbox = await CodeGenSandbox.create({ sandbox: noEngine, timeoutMs: 20_000, maxTotalFileBytes: 64 * 1024, initialFiles: { "/w/.env": "SECRET=1", "/w/a.txt": "a" } });
});

afterAll(async () => {
  await sandbox.close();
});

describe("shell options do not carry over between calls", () => {
  it("after shopt -s nocasematch dotglob, a later rm -rf /w/* keeps .env", async () => {
    expect(await sandbox.execute("shopt -s nocasematch dotglob extglob nullglob; set -o noglob; echo /w/*")).toMatchObject({ exitCode: 0 });
    expect((await sandbox.execute("shopt dotglob nocasematch nullglob extglob; echo $-")).output).toMatch(/dotglob\s+off[\s\S]*nocasematch\s+off[\s\S]*nullglob\s+off[\s\S]*extglob\s+off/);
    expect(await sandbox.execute("rm -rf /w/*")).toMatchObject({ exitCode: 0 });
    expect(await sandbox.execute("ls -A /w")).toMatchObject({ exitCode: 0, output: ".env\n" });
    expect(sandbox.readRaw("/w/.env")).toMatchObject({ data: { content: "SECRET=1" } });
  });

  it("set -e, functions, aliases and variables of one call are gone in the next", async () => {
    await sandbox.execute("set -e; f() { echo f; }; alias ll=ls; X=1; export Y=2");
    const r = await sandbox.execute("false; echo still; type f 2>&1 | head -1; echo \"[$X$Y]\"");
    expect(r.output).toContain("still");
    expect(r.output).toContain("[]");
    expect(r.output).not.toMatch(/^f is a function/m);
  });
});

describe("/dev/null, /dev/zero, /dev/stdin, /dev/stdout, /dev/stderr are devices", () => {
  it("output sent to /dev/null is discarded and never stored", async () => {
    const r = await sandbox.execute("echo kept-nowhere > /dev/null; echo more >> /dev/null; echo t | tee /dev/null; cp /w/.env /dev/null; cat /dev/null | wc -c");
    expect(r).toMatchObject({ exitCode: 0 });
    expect(r.output).toBe("t\n0\n");
    for (const device of ["/dev/null", "/dev/zero", "/dev/stdin", "/dev/stdout", "/dev/stderr"]) {
      expect(sandbox.readRaw(device)).toHaveProperty("error");
    }
    expect((await sandbox.ls("/")).files?.map((f) => f.path) ?? []).not.toContain("/dev/");
  });

  it("writing far past the store's cap to /dev/null counts nothing", async () => {
    // 1 MiB against a 64 KiB store: refused if it were a file.
    const r = await sandbox.execute("for i in $(seq 16); do head -c 65536 /dev/zero >> /dev/null; done; head -c 100000 /dev/zero > /dev/null; echo done");
    expect(r).toMatchObject({ exitCode: 0, output: "done\n" });
    expect(await sandbox.execute("echo ok > /w/after.txt && cat /w/after.txt")).toMatchObject({ exitCode: 0, output: "ok\n" });
  });

  it("reads as devices read: /dev/zero gives zero bytes, /dev/null and /dev/stdin nothing", async () => {
    expect(await sandbox.execute("head -c 8 /dev/zero > /w/z.bin")).toMatchObject({ exitCode: 0 });
    expect(sandbox.readRaw("/w/z.bin").data?.content).toBe("\0".repeat(8));
    expect((await sandbox.execute("cat /dev/null /dev/stdin | wc -c")).output.trim()).toBe("0");
    expect((await sandbox.execute("test -c /dev/null && test ! -f /dev/null && test -e /dev/zero && echo char")).output).toBe("char\n");
    expect((await sandbox.execute("ls /dev")).output.split("\n")).toEqual(expect.arrayContaining(["null", "zero", "stdin", "stdout", "stderr"]));
  });

  it("a device cannot be removed or replaced", async () => {
    const r = await sandbox.execute("rm -f /dev/null; mv /w/a.txt /dev/null; echo x > /dev/null; cat /dev/null | wc -c; ls /w");
    expect(r.output).toContain("0\n");
    expect(r.output).toContain("a.txt");
    expect((await sandbox.execute("test -c /dev/null && echo still-a-device")).output).toBe("still-a-device\n");
  });

  it("redirections to /dev/stdout and /dev/stderr reach the output", async () => {
    const r = await sandbox.execute("echo out > /dev/stdout; echo err > /dev/stderr");
    expect(r.output).toContain("out");
    expect(r.output).toContain("err");
    expect(sandbox.readRaw("/dev/stdout")).toHaveProperty("error");
  });
});
