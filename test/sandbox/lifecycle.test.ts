import { spawnSync } from "node:child_process";
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { createSandbox } from "../../src/sandbox/index.js";

const root = resolve(import.meta.dirname, "../..");
const cli = join(root, "dist/src/cli/main.js");

describe("lifecycle", () => {
  it("leaves no worker thread behind after dispose (pool and sessions)", async () => {
    const sandbox = createSandbox({ poolSize: 2 });
    await sandbox.warm();
    const session = await sandbox.createSession();
    await Promise.all([sandbox.run("1"), sandbox.run("2"), session.run("var x = 1")]);
    expect(sandbox.liveWorkerCount()).toBe(3);
    await sandbox.dispose();
    expect(sandbox.liveWorkerCount()).toBe(0);
    expect(session.disposed).toBe(true);
  });

  it("warm() starts every worker of the pool (it once started half: the starting ones were counted twice)", async () => {
    const sandbox = createSandbox({ poolSize: 3 });
    await sandbox.warm();
    expect(sandbox.liveWorkerCount()).toBe(3);
    // Queued work does not start more than the pool's size either.
    await Promise.all(Array.from({ length: 12 }, (_, i) => sandbox.run(String(i))));
    expect(sandbox.liveWorkerCount()).toBe(3);
    await sandbox.dispose();
  });

  it("replaces a worker killed by the watchdog and keeps serving", async () => {
    const sandbox = createSandbox({ poolSize: 1 });
    const killed = await sandbox.run("new Array(1e9).join('x')", { timeoutMs: 100, memoryLimitBytes: 2 ** 30 });
    expect(killed.status).toBe("timeout");
    const next = await sandbox.run("6 * 7");
    expect(next.result).toBe(42);
    expect(sandbox.liveWorkerCount()).toBe(1);
    await sandbox.dispose();
  });

  it("keeps the host's event loop free while guest code spins", async () => {
    const sandbox = createSandbox({ poolSize: 1 });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const r = await sandbox.run("for (;;) {}", { timeoutMs: 400 });
    clearInterval(timer);
    expect(r.status).toBe("timeout");
    expect(ticks).toBeGreaterThanOrEqual(5);
    await sandbox.dispose();
  });

  it("lets a script that calls runCode once exit by itself", () => {
    const dir = mkdtempSync(join(tmpdir(), "runcode-exit-"));
    try {
      const script = join(dir, "once.mjs");
      writeFileSync(
        script,
        `import { runCode } from ${JSON.stringify(join(root, "dist/src/index.js"))};\n` +
          `const r = await runCode("console.log('hi'); 6 * 7");\nconsole.log(r.status, r.result, JSON.stringify(r.stdout));\n`,
      );
      const child = spawnSync(process.execPath, [script], { encoding: "utf8", timeout: 20_000 });
      expect(child.error).toBeUndefined();
      expect(child.status).toBe(0);
      expect(child.stdout).toBe('success 42 "hi\\n"\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("CLI exec", () => {
  function exec(args: string[], input?: string) {
    return spawnSync(process.execPath, [cli, "exec", ...args], { encoding: "utf8", input, timeout: 20_000 });
  }

  it("runs stdin and exits 0 on success", () => {
    const r = exec(["-"], "console.log('from stdin'); console.error('warn')");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("from stdin\n");
    expect(r.stderr).toBe("warn\n");
  });

  it("prints the value of the last expression after the output, as node -p does (without --json)", () => {
    expect(exec(["-"], "console.log('hi'); 6 * 7").stdout).toBe("hi\n42\n");
    expect(exec(["-"], "'a string'").stdout).toBe("a string\n");
    expect(exec(["-"], "({ a: [1, 2] })").stdout).toBe('{"a":[1,2]}\n');
    expect(exec(["--language", "python", "-"], "print('p', end='')\n[1, 2]").stdout).toBe("p\n[1,2]\n");
    expect(exec(["--language", "python", "-"], "print('only output')").stdout).toBe("only output\n");
  });

  it("runs a TypeScript file, prints JSON with --json", () => {
    const dir = mkdtempSync(join(tmpdir(), "exec-"));
    try {
      const file = join(dir, "prog.ts");
      writeFileSync(file, "const n: number = 21;\nconsole.log(n * 2);\nexport default { n };\n");
      const r = exec([file, "--json"]);
      expect(r.status).toBe(0);
      const result = JSON.parse(r.stdout) as { status: string; stdout: string; result: unknown; language: string };
      expect(result).toMatchObject({ status: "success", stdout: "42\n", result: { n: 21 }, language: "typescript" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("exits 1 for a failed run and says why", () => {
    const r = exec(["--timeout-ms", "100", "-"], "while (true) {}");
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/\[timeout\]/);
    const err = exec(["-"], "let x = 1;\nx.y.z = 2;");
    expect(err.status).toBe(1);
    expect(err.stderr).toMatch(/TypeError.*line 2/);
  });

  it.each([
    [["/no/such/file.js"], /Invalid option "FILE": got "\/no\/such\/file.js"; expected a file to run, or "-" for stdin \(there is no such file\)/],
    [["--language", "cobol", "-"], /Invalid option "--language": got "cobol"/],
    [["--timeout-ms", "soon", "-"], /Invalid option "--timeout-ms": got "soon"; expected a number of milliseconds/],
    [["--memory-mb=-1", "-"], /Invalid option "--memory-mb": got -1; expected a whole number of MiB/],
    [["--frobnicate"], /Invalid option "--frobnicate": exec has no option of this name/],
  ])("exits 2 with one line for usage error %j", (args, message) => {
    const r = exec(args, "1");
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
});

describe("language dispatch", () => {
  it("hands Python to the Python engine, loaded on first use", async () => {
    const sandbox = createSandbox({ poolSize: 1 });
    try {
      const r = await sandbox.run("print('py')\n6 * 7", { language: "python", timeoutMs: 30_000 });
      expect(r).toMatchObject({ status: "success", stdout: "py\n", result: 42, language: "python" });
      expect(await sandbox.check("def f(:", { language: "python" })).toMatchObject({ ok: false, status: "syntax_error" });
    } finally {
      await sandbox.dispose();
    }
  }, 60_000);
});
