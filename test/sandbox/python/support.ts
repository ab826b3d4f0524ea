/**
 * Shared pieces of the Python engine tests. The resolved options they hand to `engine.run`: the package's defaults
 * with a 10 s limit. Built directly, not through `resolveRunOptions`, so a test can give the
 * engine exactly what it wants to check.
 */
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll } from "vitest";
import { createPythonEngine } from "../../../src/sandbox/python/host/engine.js";
import type { LanguageEngine, ResolvedRunOptions } from "../../../src/sandbox/types.js";

/** Options of one Python engine run, with `overrides` on top. */
export function options(overrides: Partial<ResolvedRunOptions> = {}): ResolvedRunOptions {
  return {
    language: "python",
    timeoutMs: 10_000,
    memoryLimitBytes: 64 * 1024 * 1024,
    maxOutputBytes: 1024 * 1024,
    globals: {},
    hostFunctions: {},
    maxHostCallsInFlight: 8,
    maxHostCalls: 256,
    maxResultBytes: 1024 * 1024,
    ...overrides,
  };
}

/**
 * A warm Python engine (one process) for a test file: started before its tests, disposed after
 * them. The returned engine forwards to it.
 */
export function useWarmPythonEngine(): LanguageEngine {
  let engine: LanguageEngine | undefined;
  beforeAll(async () => {
    engine = createPythonEngine({ poolSize: 1 });
    await engine.warm();
  }, 180_000);
  afterAll(async () => {
    await engine?.dispose();
  });
  const current = (): LanguageEngine => {
    if (!engine) throw new Error("the Python engine is used outside the file's tests");
    return engine;
  };
  return {
    languages: ["python"],
    run: (code, o) => current().run(code, o),
    check: (code, language) => current().check(code, language),
    warm: () => current().warm(),
    createSession: (o) => current().createSession(o),
    prestartSession: (language) => current().prestartSession(language),
    dispose: () => current().dispose(),
  };
}

/** The Deno processes this test process started (children by /proc), for watching one's CPU. */
export function denoChildren(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === process.pid && stat.includes("(deno)")) pids.push(Number(entry));
    } catch {
      // The process went away while we looked.
    }
  }
  return pids;
}

/** utime + stime of a process, in clock ticks (100 per second). */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}
