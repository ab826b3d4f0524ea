/**
 * Issue 20.1: Node must not exit (code 13, nothing printed) in the middle of Python work. The
 * cause was in the Deno process's reference bookkeeping: after dispose() a `ready` line already
 * in the pipe unref'd the process handles again, so nothing held the event loop. The sequence of
 * the issue runs 50 times in child processes (10 children, 5 iterations each, 5 at a time); half
 * of the children hold their thread between the run and dispose() (300 or 1000 ms), which made
 * every one of them exit 13 before the fix; an agent makes two Python calls at once in a child.
 */
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));

function child(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(here, "fixtures", script), ...args], { timeout: 240_000, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

describe("the host process stays alive through Python work", { timeout: 600_000 }, () => {
  it("runCode, disposeDefaultSandbox, print: 50 times, always exit 0 with every line printed", async () => {
    const results: Array<{ code: number | null; stdout: string; stderr: string }> = [];
    for (let batch = 0; batch < 2; batch++) {
      results.push(...(await Promise.all(Array.from({ length: 5 }, (_, i) => child("dispose-child.mjs", ["5", String([0, 300, 0, 1000, 0][i])])))));
    }
    for (const r of results) {
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr.slice(-300) }).toEqual({ code: 0, stdout: "disposed\n".repeat(5), stderr: "" });
    }
  });

  it("the CLI's exec of Python from stdin prints its answer every time (it has no keep-alive timer of its own)", async () => {
    const cli = join(here, "..", "..", "..", "dist", "src", "cli", "main.js");
    const runs = await Promise.all(Array.from({ length: 6 }, () => new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const proc = execFile(process.execPath, [cli, "exec", "--language", "python", "-"], { timeout: 120_000 }, (error, stdout) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout });
      });
      proc.stdin?.end("print(6*7)\n");
    })));
    for (const run of runs) expect(run).toEqual({ code: 0, stdout: "42\n" });
  });

  it("an agent making two Python calls at once finishes and prints its answer", async () => {
    const r = await child("agent-child.mjs", []);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "answer 42,45\n" });
  });
});
