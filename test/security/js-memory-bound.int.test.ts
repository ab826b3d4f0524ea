/**
 * The JavaScript memory limit holds in bytes at every front door: each attack of the corpus
 * (fixtures/js-memory-attacks.mjs) runs in its own child process (fixtures/js-memory-child.mjs,
 * through the built package) and must end `memory_limit`, with the measured process's RSS peak
 * within `poolSize × (limit + MEMORY_MARGIN_BYTES) + WORKER_SLACK_BYTES` over its baseline
 * (docs/security.md, "Memory"). Before the bound, these held 640 MiB under a 32 MiB limit and
 * 2,032 MiB (6,194 MiB with two at once) at the default 64 MiB.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { MEMORY_MARGIN_BYTES } from "../../src/sandbox/js/worker/engine-memory.js";
import { JS_MEMORY_ATTACKS } from "./fixtures/js-memory-attacks.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const child = fileURLToPath(new URL("./fixtures/js-memory-child.mjs", import.meta.url));
const MiB = 1024 * 1024;
/**
 * What a worker costs the host beside its WebAssembly memory: its V8 heap and, after a run that
 * grew the memory past the point where the worker is replaced, the replacement's start.
 */
const WORKER_SLACK_BYTES = 64 * MiB;

interface Report {
  front: string;
  attack: string;
  poolSize: number;
  memoryLimitBytes: number;
  statuses: string[];
  peakOverBaselineBytes: number;
  afterOverBaselineBytes: number;
}

function attack(front: string, name: keyof typeof JS_MEMORY_ATTACKS, poolSize = 1): Promise<Report> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ["--expose-gc", child, front, name, String(poolSize)], { cwd: root, env: { PATH: process.env.PATH } });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (c) => (stdout += c));
    proc.stderr.on("data", (c) => (stderr += c));
    proc.on("close", (code) => {
      if (code !== 0) reject(new Error(`${front} ${name}: the child exited with ${code}: ${stderr.slice(-2000)} | ${stdout.slice(-1000)}`));
      else resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as Report);
    });
  });
}

function bound(r: Report): number {
  return r.poolSize * (r.memoryLimitBytes + MEMORY_MARGIN_BYTES) + WORKER_SLACK_BYTES;
}

function expectBounded(r: Report): void {
  const label = `${r.front} ${r.attack} (poolSize ${r.poolSize})`;
  expect(r.statuses.slice(0, r.poolSize), label).toEqual(Array(r.poolSize).fill("memory_limit"));
  expect(r.peakOverBaselineBytes, `${label}: RSS peak over the baseline`).toBeLessThan(bound(r));
  // The memory goes back: what stays after the attack is at most one run's bound.
  expect(r.afterOverBaselineBytes, `${label}: RSS after the attack`).toBeLessThan(r.memoryLimitBytes + MEMORY_MARGIN_BYTES + WORKER_SLACK_BYTES);
}

describe("the JavaScript memory limit holds in bytes (child processes)", { timeout: 600_000 }, () => {
  it("runCode: each attack of the corpus ends memory_limit within the bound, and the next run succeeds", async () => {
    for (const name of Object.keys(JS_MEMORY_ATTACKS) as (keyof typeof JS_MEMORY_ATTACKS)[]) {
      const r = await attack("run", name);
      expectBounded(r);
      expect(r.statuses.at(-1), `${name}: the run after the attack`).toBe("success");
    }
  });

  it("two at once in a poolSize 2 sandbox stay within 2 × (limit + margin)", async () => {
    const r = await attack("run", "arrays-16mib-forever", 2);
    expectBounded(r);
    expect(r.statuses.at(-1)).toBe("success");
  });

  it('isolation "module", a session, code mode, the MCP server and the deepagents node command', async () => {
    const reports = [
      await attack("module", "arrays-16mib-forever"),
      await attack("session", "arrays-16mib-forever"),
      await attack("code-mode", "typed-arrays-1mib"),
      await attack("mcp", "arrays-16mib-at-16"),
      await attack("deepagents", "arrays-16mib-forever"),
    ];
    for (const r of reports) expectBounded(r);
    expect(reports[0].statuses.at(-1)).toBe("success");
    expect(reports[3].statuses.at(-1)).toBe("success");
  });
});
