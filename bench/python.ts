/**
 * Python rows of `npm run bench`: cold start, warm runs, throughput, memory per ready
 * interpreter and how fast a runaway loop returns, each beside a baseline from the same run
 * (Pyodide loaded in-process in Node, which is not a sandbox, and a fresh Deno process per run).
 */
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { resolvePythonPaths, snapshotCacheDir } from "../src/sandbox/python/host/deno-paths.js";
import { parsePackageIndex, preparePackages } from "../src/sandbox/python/host/package-fetch.js";
import { snapshotFileFor } from "../src/sandbox/python/host/wheels.js";
import { writePackageIndex } from "./fixtures/python-index.js";
import { DenoProcess } from "../src/sandbox/python/host/deno-process.js";
import { createPythonEngine } from "../src/sandbox/python/host/engine.js";
import { PythonPool } from "../src/sandbox/python/host/pool.js";
import type { RunLimits } from "../src/sandbox/python/shared/protocol.js";
import type { ResolvedRunOptions } from "../src/sandbox/types.js";
import { mib, ms, percentiles, type BenchRow, type BenchSection } from "./table.js";

const SMALL_PROGRAM = "total = sum(i * i for i in range(100))\nprint(total)\ntotal";
const WARM_SAMPLES = 20;
const THROUGHPUT_RUNS = 40;
const FLOOD_BYTES = 500_000_000;
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
    goal: "<= 1000 ms",
    met: cold <= 1000,
  });

  // Warm runs: time each run only once an interpreter is ready.
  const pool = new PythonPool(paths, 1);
  await pool.warm();
  const warm: number[] = [];
  const readyRss: number[] = [];
  for (let i = 0; i < WARM_SAMPLES; i++) {
    const process = (await pool.acquire())!;
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
    goal: "<= 15 ms p50",
    met: warmP.p50 <= 15,
  });
  const readyP50 = percentiles(readyRss).p50;
  row("memory per ready interpreter (Deno process RSS)", mib(readyP50), {
    baseline: mib(process.memoryUsage().rss),
    baselineName: "whole bench Node process holding in-process Pyodide",
    goal: "<= 160 MiB",
    met: readyP50 <= 160 * 1024 * 1024,
  });

  // Runaway loops with a 1 s limit.
  for (const [label, code] of [
    ["`while True: pass`, 1 s limit, returns after", "while True:\n    pass"],
    ["loop swallowing KeyboardInterrupt, 1 s limit, returns after", "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass"],
  ] as const) {
    const process = (await pool.acquire())!;
    const t = performance.now();
    const result = await process.run(code, {}, { ...limits, timeoutMs: 1000 });
    const elapsed = performance.now() - t;
    pool.release(process);
    row(label, `${ms(elapsed)} (${result.status})`, { goal: "<= 1200 ms", met: elapsed <= 1200 && result.status === "timeout" });
  }
  await pool.dispose();

  // Throughput: back-to-back runs, each from a pristine interpreter (reset in place).
  for (const poolSize of [1, 2]) {
    const engine = createPythonEngine({ poolSize });
    await engine.warm();
    const times: number[] = [];
    const t = performance.now();
    for (let i = 0; i < THROUGHPUT_RUNS; i++) {
      const r0 = performance.now();
      await engine.run(SMALL_PROGRAM, options());
      times.push(performance.now() - r0);
    }
    const seconds = (performance.now() - t) / 1000;
    const concurrent = performance.now();
    await Promise.all(Array.from({ length: THROUGHPUT_RUNS }, () => engine.run(SMALL_PROGRAM, options())));
    const concurrentSeconds = (performance.now() - concurrent) / 1000;
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
    const p = percentiles(times);
    row(`fresh runs back to back, poolSize ${poolSize} (runs/s; p50 per run)`, `${(THROUGHPUT_RUNS / seconds).toFixed(1)} runs/s; ${ms(p.p50)}`, {
      ...extra,
      goal: ">= 20 runs/s",
      met: THROUGHPUT_RUNS / seconds >= 20,
    });
    row(`fresh runs, ${THROUGHPUT_RUNS} at once, poolSize ${poolSize}`, `${(THROUGHPUT_RUNS / concurrentSeconds).toFixed(1)} runs/s`);
  }

  // A run that writes a file cannot be reset in place: its interpreter is replaced.
  {
    const engine = createPythonEngine({ poolSize: 1 });
    await engine.warm();
    const t = performance.now();
    await engine.run("open('/tmp/x', 'w').write('x')", options());
    await engine.run("1", options());
    row("a run that writes a file, then the next run (worker replaced)", ms(performance.now() - t));
    await engine.dispose();
  }

  rows.push(...(await packageRows(paths)), ...(await floodRow(paths)), ...(await memoryOvershootRow(paths)), ...(await cancelRow()));
  return rows;
};

/** Fresh runs back to back on one ready engine: p50 per run. */
async function freshRunP50(engine: ReturnType<typeof createPythonEngine>): Promise<number> {
  try {
    await engine.warm();
    const times: number[] = [];
    for (let i = 0; i < THROUGHPUT_RUNS; i++) {
      const t = performance.now();
      const result = await engine.run(SMALL_PROGRAM, options());
      times.push(performance.now() - t);
      if (result.status !== "success") throw new Error(`bench: run failed: ${JSON.stringify(result.error)}`);
    }
    return percentiles(times).p50;
  } finally {
    await engine.dispose();
  }
}

/**
 * A package set from the local index fixture (two pure wheels with a dependency; and one more
 * that takes the path of packages with native code, Pyodide's loader in every new interpreter):
 * the first run that makes the set's snapshot, a first run with it cached, its size, and fresh
 * runs with the set loaded against runs without.
 */
export async function packageRows(paths: ReturnType<typeof resolvePythonPaths>): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), "cs-bench-index-"));
  try {
    writePackageIndex(dir);
    const set = await preparePackages({ names: ["cs-dateutil"], index: parsePackageIndex(dir), pyodideDir: paths.pyodideDir, pyodideVersion: paths.pyodideVersion, cacheDir: snapshotCacheDir(paths.pyodideDir) });
    const setSnapshot = snapshotFileFor(paths.snapshotFile, set);
    const firstRun = async (names: string[]) => {
      const t = performance.now();
      const engine = createPythonEngine({ poolSize: 1, packages: names, packageIndex: dir });
      const result = await engine.run("import cs_dateutil\ncs_dateutil.SIX", options());
      const elapsed = performance.now() - t;
      await engine.dispose();
      if (result.status !== "success") throw new Error(`bench: package run failed: ${JSON.stringify(result.error)}`);
      return elapsed;
    };
    rmSync(setSnapshot, { force: true });
    rows.push({ section: "python", metric: "fixture package set (2 pure wheels): first run, makes the set's snapshot", ours: ms(await firstRun(["cs-dateutil"])) });
    rows.push({ section: "python", metric: "fixture package set: first run after start (its snapshot cached)", ours: ms(await firstRun(["cs-dateutil"])) });
    rows.push({ section: "python", metric: "fixture package set: snapshot file size", ours: `${statSync(setSnapshot).size.toLocaleString("en-US")} bytes` });
    rows.push({ section: "python", metric: "fixture set + a package through Pyodide's loader: first run after start", ours: ms(await firstRun(["cs-native"])) });
    const plain = await freshRunP50(createPythonEngine({ poolSize: 1 }));
    const withSet = await freshRunP50(createPythonEngine({ poolSize: 1, packages: ["cs-native"], packageIndex: dir }));
    rows.push({
      section: "python",
      metric: "fresh run p50, fixture package set loaded (vs none)",
      ours: ms(withSet),
      baseline: ms(plain),
      baselineName: "no packages",
      goal: "<= +10 %",
      met: withSet <= plain * 1.1,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** Host RSS growth while a runner writes 500 MB of raw bytes without newlines (a fake runner). */
async function floodRow(paths: ReturnType<typeof resolvePythonPaths>): Promise<BenchRow[]> {
  // Runs from dist/bench/: the fixture stays in the repository's test directory.
  const fake = fileURLToPath(new URL("../../test/sandbox/python/fixtures/fake-runner.sh", import.meta.url));
  {
    // DenoProcess gives its child a fixed environment, so the flood size goes through a wrapper.
    const wrapper = join(tmpdir(), `codegen-sandbox-flood-${process.pid}.sh`);
    writeFileSync(wrapper, `#!/bin/sh\nFLOOD_BYTES=${FLOOD_BYTES} exec ${fake}\n`, { mode: 0o755 });
    const proc = new DenoProcess({ ...paths, denoBinary: wrapper }, false);
    await proc.whenReady();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const result = await proc.run("flood", {}, { ...limits, timeoutMs: 60_000 });
    clearInterval(sampler);
    proc.dispose();
    rmSync(wrapper, { force: true });
    const growth = peak - before;
    return [
      {
        section: "python",
        metric: "host RSS growth, runner floods 500 MB raw output (1 MiB cap)",
        ours: `${mib(growth)} (${result.status})`,
        goal: "<= cap + 16 MiB",
        met: growth <= limits.maxOutputBytes + 16 * 1024 * 1024,
      },
    ];
  }
}

/** How far past its memory limit a Python process gets before the run ends memory_limit. */
async function memoryOvershootRow(paths: ReturnType<typeof resolvePythonPaths>): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const limit = 32 * 1024 * 1024;
  const bombs: Array<[string, string]> = [
    ["Python heap bomb", "keep = []\nwhile True:\n    keep.append(bytearray(4 * 1024 * 1024))"],
    ["JS-side bomb through the realm", "import importlib\nU8 = importlib.import_module('pyodide.ffi').to_js(bytearray(1)).constructor\nkeep = []\nwhile True:\n    b = U8.new(8 * 1024 * 1024)\n    b.fill(1)\n    keep.append(b)"],
  ];
  for (const [label, code] of bombs) {
    const proc = new DenoProcess(paths, false);
    await proc.whenReady();
    const before = rssBytes(proc.pid);
    let peak = before;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, rssBytes(proc.pid));
      } catch {
        // The process went away.
      }
    }, 2);
    const result = await proc.run(code, {}, { ...limits, memoryLimitBytes: limit, timeoutMs: 30_000 });
    clearInterval(sampler);
    proc.dispose();
    await proc.exited;
    const overshoot = peak - before - limit;
    rows.push({
      section: "python",
      metric: `memory-limit overshoot, ${label} (32 MiB limit; RSS past baseline + limit)`,
      ours: `${mib(Math.max(0, overshoot))} (${result.status})`,
      goal: "<= 64 MiB, memory_limit",
      met: overshoot <= 64 * 1024 * 1024 && result.status === "memory_limit",
    });
  }
  return rows;
}

/** From `abort()` to the run's promise settling with status cancelled. */
async function cancelRow(): Promise<BenchRow[]> {
  const engine = createPythonEngine({ poolSize: 1 });
  await engine.warm();
  const rows: BenchRow[] = [];
  for (const [label, code] of [
    ["`while True: pass`", "while True:\n    pass"],
    ["loop swallowing KeyboardInterrupt", "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass"],
  ] as const) {
    const samples: number[] = [];
    let status = "";
    for (let i = 0; i < 3; i++) {
      const controller = new AbortController();
      let abortedAt = 0;
      setTimeout(() => {
        abortedAt = performance.now();
        controller.abort();
      }, 300);
      const result = await engine.run(code, { ...options(20_000), signal: controller.signal });
      samples.push(performance.now() - abortedAt);
      status = result.status;
    }
    const p = percentiles(samples);
    rows.push({ section: "python", metric: `cancel -> return latency (Python), ${label}, p50`, ours: `${ms(p.p50)} (${status})`, goal: "<= 300 ms", met: p.p50 <= 300 && status === "cancelled" });
  }
  await engine.dispose();
  return rows;
}

export default section;
