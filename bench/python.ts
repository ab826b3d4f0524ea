/**
 * Python rows of `npm run bench`: cold start, warm runs, throughput, memory per ready
 * interpreter and how fast a runaway loop returns, each beside a baseline from the same run
 * (Pyodide loaded in-process in Node, which is not a sandbox, and a fresh Deno process per run).
 */
import { existsSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { resolvePythonPaths } from "../src/sandbox/python/deno-paths.js";
import { DenoProcess } from "../src/sandbox/python/deno-process.js";
import { createPythonEngine } from "../src/sandbox/python/engine.js";
import { PythonPool } from "../src/sandbox/python/pool.js";
import type { RunLimits } from "../src/sandbox/python/deno/protocol.js";
import type { ResolvedRunOptions } from "../src/sandbox/types.js";
import { mib, ms, percentiles, type BenchRow, type BenchSection } from "./table.js";

const SMALL_PROGRAM = "total = sum(i * i for i in range(100))\nprint(total)\ntotal";
const WARM_SAMPLES = 20;
const THROUGHPUT_RUNS = 12;
const limits: RunLimits = { timeoutMs: 5000, memoryLimitBytes: 64 * 1024 * 1024, maxOutputBytes: 1024 * 1024, maxResultBytes: 1024 * 1024 };

function options(timeoutMs = limits.timeoutMs): ResolvedRunOptions {
  return { language: "python", ...limits, timeoutMs, globals: {}, hostFunctions: {}, maxHostCallsInFlight: 8, maxHostCalls: 256 };
}

function rssBytes(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) * 1024 : NaN;
}

async function coldFirstRun(): Promise<number> {
  const started = performance.now();
  const engine = createPythonEngine();
  const result = await engine.run(SMALL_PROGRAM, options());
  const elapsed = performance.now() - started;
  await engine.dispose();
  if (result.status !== "success") throw new Error(`bench: cold run failed: ${JSON.stringify(result.error)}`);
  return elapsed;
}

/** First run on a machine that has no cached snapshot yet (the snapshot is made, then kept). */
async function firstEverRun(snapshotFile: string): Promise<number> {
  const aside = `${snapshotFile}.bench-aside`;
  const hadSnapshot = existsSync(snapshotFile);
  if (hadSnapshot) renameSync(snapshotFile, aside);
  try {
    return await coldFirstRun();
  } finally {
    if (hadSnapshot) {
      if (existsSync(snapshotFile)) rmSync(aside, { force: true });
      else renameSync(aside, snapshotFile);
    }
  }
}

const section: BenchSection = async () => {
  const paths = resolvePythonPaths();
  const rows: BenchRow[] = [];
  const row = (metric: string, ours: string, extra: Partial<BenchRow> = {}) => rows.push({ section: "python", metric, ours, ...extra });

  // Cold start.
  const firstEver = await firstEverRun(paths.snapshotFile);
  const cold = await coldFirstRun();
  row("first-ever run, no cached snapshot (makes one)", ms(firstEver));

  // Baseline: Pyodide loaded into Node itself (no boundary at all: a floor, not a sandbox).
  const require = createRequire(import.meta.url);
  const pyodideModule = await import("pyodide");
  const inProcessStart = performance.now();
  const inProcess = await pyodideModule.loadPyodide({ indexURL: dirname(require.resolve("pyodide")) + "/" });
  const inProcessLoadMs = performance.now() - inProcessStart;
  inProcess.setStdout({ batched: () => undefined }); // keep the table's stdout clean
  const inProcessRuns: number[] = [];
  for (let i = 0; i < WARM_SAMPLES; i++) {
    const t = performance.now();
    inProcess.runPython(SMALL_PROGRAM);
    inProcessRuns.push(performance.now() - t);
  }
  row("first run after start (snapshot cached)", ms(cold), {
    baseline: ms(inProcessLoadMs),
    baselineName: "loadPyodide in Node, not a sandbox",
    goal: "<= 2000 ms",
    met: cold <= 2000,
  });

  // Warm runs: time each run only once an interpreter is ready.
  const pool = new PythonPool(paths, 1);
  await pool.warm();
  const warm: number[] = [];
  const readyRss: number[] = [];
  for (let i = 0; i < WARM_SAMPLES; i++) {
    const process = await pool.acquire();
    readyRss.push(rssBytes(process.pid));
    const t = performance.now();
    const result = await process.run(SMALL_PROGRAM, {}, limits);
    warm.push(performance.now() - t);
    pool.release(process);
    if (result.status !== "success") throw new Error(`bench: warm run failed: ${JSON.stringify(result.error)}`);
  }
  const warmP = percentiles(warm);
  const inP = percentiles(inProcessRuns);
  row("small program, interpreter ready (p50 / p95)", `${ms(warmP.p50)} / ${ms(warmP.p95)}`, {
    baseline: `${ms(inP.p50)} / ${ms(inP.p95)}`,
    baselineName: "runPython in Node, reused interpreter, not a sandbox",
    goal: "<= 50 ms p50",
    met: warmP.p50 <= 50,
  });
  row("memory per ready interpreter (Deno process RSS)", mib(percentiles(readyRss).p50), { baseline: mib(process.memoryUsage().rss), baselineName: "whole bench Node process holding in-process Pyodide" });

  // Runaway loops with a 1 s limit.
  for (const [label, code] of [
    ["`while True: pass`, 1 s limit, returns after", "while True:\n    pass"],
    ["loop swallowing KeyboardInterrupt, 1 s limit, returns after", "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass"],
  ] as const) {
    const process = await pool.acquire();
    const t = performance.now();
    const result = await process.run(code, {}, { ...limits, timeoutMs: 1000 });
    const elapsed = performance.now() - t;
    pool.release(process);
    row(label, `${ms(elapsed)} (${result.status})`, { goal: "<= 1200 ms", met: elapsed <= 1200 && result.status === "timeout" });
  }
  await pool.dispose();

  // Throughput: back-to-back runs; each needs a fresh interpreter.
  for (const poolSize of [1, 2]) {
    const engine = createPythonEngine({ poolSize });
    await engine.warm();
    const t = performance.now();
    await Promise.all(Array.from({ length: THROUGHPUT_RUNS }, () => engine.run(SMALL_PROGRAM, options())));
    const seconds = (performance.now() - t) / 1000;
    await engine.dispose();
    const extra: Partial<BenchRow> = {};
    if (poolSize === 1) {
      // Baseline: a fresh Deno process for every run (no pool).
      const runs = 3;
      const b = performance.now();
      for (let i = 0; i < runs; i++) {
        const process = new DenoProcess(paths, false);
        await process.whenReady();
        await process.run(SMALL_PROGRAM, {}, limits);
        process.dispose();
        await process.exited;
      }
      extra.baseline = `${(runs / ((performance.now() - b) / 1000)).toFixed(2)} runs/s`;
      extra.baselineName = "fresh Deno process per run";
    }
    row(`throughput, ${THROUGHPUT_RUNS} runs back to back, poolSize ${poolSize}`, `${(THROUGHPUT_RUNS / seconds).toFixed(2)} runs/s`, extra);
  }
  return rows;
};

export default section;
