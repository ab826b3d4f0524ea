/**
 * Attacks on CodeGenSandbox that hurt the host (red team), in a child process that must
 * survive them: 12 programs at once that each carry every file (xargs -P), a type check that
 * would run for minutes, a grep that matches six million lines, an edit that would build a
 * 600 MB string. Each was measured against the backend as it landed: 2.9 GB and a 15 s stall
 * for 200 programs, a 4.7 s stall loading the checker and minutes of checking on the host
 * thread, 5.7 s and 1 GiB for the grep, 1.8 s and 800 MB for the edit.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

interface Measured {
  value: { output?: string; exitCode?: number; truncated?: boolean; matches?: number; error?: string };
  ms: number;
  stallMs: number;
  rssGrowth: number;
}

const MiB = 1024 * 1024;

function runChild(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = fileURLToPath(new URL("./fixtures/red-team-child.mjs", import.meta.url));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const killer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr: stderr.slice(-3000) });
    });
  });
}

describe("attacks on the host through CodeGenSandbox", () => {
  it("are bounded in memory and never hold the host's event loop; the child survives and close() leaves nothing", { timeout: 150_000 }, async () => {
    const { code, stdout, stderr } = await runChild();
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout.trim().split("\n").pop()!) as { results: Record<string, Measured>; resourcesBeforeClose: string[]; resourcesAfterClose: string[] };
    const r = report.results;
    const show = (name: string): string => `${name}: ${JSON.stringify(r[name])}`;

    // All twelve ran (four at a time: the worker waits for a slot before it copies the files).
    expect(r["parallel programs"]!.value, show("parallel programs")).toEqual({ output: "1 2 3 4 5 6 7 8 9 10 11 12 ", exitCode: 0, truncated: false });
    expect(r["parallel programs"]!.rssGrowth, show("parallel programs")).toBeLessThan(600 * MiB);

    // The checker runs in a thread of the sandbox's own: the deadline stops it, the host's
    // event loop keeps turning (loading TypeScript alone held it 4.7 s), and a new thread
    // answers the next tsc. Which bound ends it first depends on the machine (the deadline: 124,
    // or the thread's memory limit: 137); both are bounded and both say why (the deadline in
    // the sandbox's own words, the memory limit in tsc's).
    expect([124, 137], show("tsc that never ends")).toContain(r["tsc that never ends"]!.value.exitCode);
    expect(r["tsc that never ends"]!.value.output, show("tsc that never ends")).toMatch(/^tsc: |^\[codegen-sandbox\] the command was stopped at its 10000 ms time limit/);
    expect(r["tsc that never ends"]!.ms).toBeLessThan(10_000 + 1500);
    for (const name of ["parallel programs", "tsc that never ends", "tsc after"]) expect(r[name]!.stallMs, show(name)).toBeLessThan(1500);
    expect(r["tsc after"]!.value.output, show("tsc after")).toMatch(/^\/ok\.ts\(1,7\): error TS2322/);

    // The host holds at most 10 000 matches (truncated), and sizes an edit before building it.
    expect(r["grep of every line"]!.value).toEqual({ matches: 10_000, truncated: true });
    expect(r["grep of every line"]!.rssGrowth, show("grep of every line")).toBeLessThan(150 * MiB);
    expect(r["edit that would build 600 MB"]!.value.error).toMatch(/would hold 632291328 bytes, over the 8388608-byte maxFileBytes limit/);
    expect(r["edit that would build 600 MB"]!.rssGrowth, show("edit that would build 600 MB")).toBeLessThan(150 * MiB);

    // close() ended the shell's and the checker's threads (both were there: the check is not blind).
    expect(report.resourcesBeforeClose.filter((x) => x === "MessagePort").length).toBe(2);
    expect(report.resourcesAfterClose.filter((x) => /Worker|MessagePort/.test(x))).toEqual([]);
  });
});
