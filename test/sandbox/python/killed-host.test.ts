/**
 * A host killed in the middle of a Python run (SIGKILL, the out-of-memory killer) leaves no Deno
 * process behind: the runner exits when its stdin closes, runs and all. Before, its supervisor
 * answered what was asked first, so a `while True` under a long limit ran on, orphaned, at ~70 %
 * of a core (found by the MCP red team).
 */
import { execFileSync, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));

/** Process ids whose parent is `pid`, from `ps`. */
function childrenOf(pid: number): number[] {
  const out = execFileSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" });
  return out.split("\n").map((line) => line.trim().split(/\s+/).map(Number)).filter(([, ppid]) => ppid === pid).map(([p]) => p!);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("a killed host leaves no Python process", { timeout: 120_000 }, () => {
  it("the Deno runner of a session busy in a loop exits when its host is killed", async () => {
    const host = spawn(process.execPath, [join(here, "fixtures", "killed-host-child.mjs")], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve, reject) => {
      host.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("running") && resolve());
      host.once("exit", (code) => reject(new Error(`the host exited early (${code})`)));
    });
    const runners = childrenOf(host.pid!);
    expect(runners.length).toBeGreaterThan(0);
    host.kill("SIGKILL");
    const until = Date.now() + 10_000;
    while (runners.some(alive) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    const left = runners.filter(alive);
    for (const pid of left) process.kill(pid, "SIGKILL");
    expect(left).toEqual([]);
  });
});
