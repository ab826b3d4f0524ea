/**
 * `npm run bench -- js`: the JavaScript sandbox against two baselines measured in the same
 * run: bare quickjs-emscripten (a fresh runtime + context per run on the main thread, no
 * pool, no worker) and Node's `vm` module (V8, not a sandbox: a floor).
 */
import { availableParallelism } from "node:os";
import { runInNewContext } from "node:vm";
import { newQuickJSWASMModule, newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC, type QuickJSWASMModule } from "quickjs-emscripten";
import { Worker } from "node:worker_threads";
import { createSandbox, type JsonValue, type SandboxSession } from "../src/index.js";
import { createJavaScriptEngine } from "../src/sandbox/js/host/engine.js";
import { resolveRunOptions } from "../src/sandbox/options.js";
import { workerScriptUrl } from "../src/sandbox/js/host/worker-client.js";
import { createOutputMirrorBuffer } from "../src/sandbox/js/shared/output-mirror.js";
import { mentionsIntl } from "../src/sandbox/js/worker/intl-guest.js";
import { compiledQuickJS, EngineMemory, MEMORY_MARGIN_BYTES } from "../src/sandbox/js/worker/engine-memory.js";
import { readFileSync, writeFileSync } from "node:fs";
import { mib, ms, percentiles, type BenchRow, type BenchSection } from "./table.js";

const SECTION = "js";
/** Samples per latency row, after warm-up runs that are not counted. */
const LATENCY_SAMPLES = 500;
const WARMUP_RUNS = 100;
/** Runs per throughput row. */
const THROUGHPUT_RUNS = 4000;
/** The engine's own limits, so the bare baseline does the same work per run. */
const MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;
const MAX_STACK_BYTES = 256 * 1024;

const ONE_LINER = "6 * 7";
const WITH_OUTPUT = `const items = [3, 1, 2].sort((a, b) => a - b);
console.log("sorted", items.join(","));
console.log("sum", items.reduce((a, b) => a + b, 0));
items.length`;
const FIB = "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\nfib(25)";

function fibV8(n: number): number {
  return n < 2 ? n : fibV8(n - 1) + fibV8(n - 2);
}

/** A JSON value of about `bytes` bytes: records of mixed types, like real tool data. */
function jsonValueOfSize(bytes: number): JsonValue {
  const rows: JsonValue[] = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const row = { id: i, name: `item-${i}`, price: i * 1.25, tags: ["a", "b", String(i % 7)], active: i % 2 === 0 };
    size += JSON.stringify(row).length + 1;
    rows.push(row);
  }
  return rows;
}

async function timeEach(count: number, once: () => Promise<unknown> | unknown): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await once();
    samples.push(performance.now() - started);
  }
  return samples;
}

/** Runs `count` calls with `concurrency` in flight; returns runs per second. */
async function throughput(count: number, concurrency: number, once: () => Promise<unknown> | unknown): Promise<number> {
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < count) {
      next++;
      await once();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return count / ((performance.now() - started) / 1000);
}

const p50p95 = (samples: number[]) => {
  const p = percentiles(samples);
  return `${ms(p.p50)} p50 / ${ms(p.p95)} p95`;
};
const perSecond = (value: number) => `${Math.round(value).toLocaleString("en-US")} runs/s`;

/** Bare quickjs-emscripten: what one fresh run costs without the pool, the worker or the prelude. */
function bareRunner(quickjs: QuickJSWASMModule) {
  return (code: string, globals?: Record<string, string>): unknown => {
    const runtime = quickjs.newRuntime();
    runtime.setMemoryLimit(MEMORY_LIMIT_BYTES);
    runtime.setMaxStackSize(MAX_STACK_BYTES);
    const context = runtime.newContext();
    try {
      const output: string[] = [];
      const log = context.newFunction("log", (...args) => {
        output.push(args.map((a) => context.getString(a)).join(" "));
      });
      const consoleHandle = context.newObject();
      context.setProp(consoleHandle, "log", log);
      context.setProp(context.global, "console", consoleHandle);
      log.dispose();
      consoleHandle.dispose();
      for (const [name, text] of Object.entries(globals ?? {})) {
        const handle = context.newString(text);
        context.setProp(context.global, name, handle);
        handle.dispose();
      }
      const handle = context.unwrapResult(context.evalCode(code));
      const value: unknown = context.dump(handle);
      handle.dispose();
      return value;
    } finally {
      context.dispose();
      runtime.dispose();
    }
  };
}

/**
 * Fresh runs served from the pristine image against the old path (a new runtime + context per
 * run, disposed after it) and against bare quickjs-emscripten on the main thread, in alternating
 * blocks of runs so the machine's load falls on all three alike, while each block has the machine
 * to itself (a worker does its restore after answering; interleaved run by run, that work of one
 * engine lands on the next engine's run). Programs differ every run, so no cache helps.
 */
export const freshImageSection: BenchSection = async () => {
  const rows: BenchRow[] = [];
  const bare = bareRunner(await newQuickJSWASMModule(RELEASE_SYNC));
  const options = resolveRunOptions({});
  const image = createJavaScriptEngine({ poolSize: 1, freshRuns: "image" });
  const old = createJavaScriptEngine({ poolSize: 1, freshRuns: "context" });
  try {
    await Promise.all([image.warm(), old.warm()]);
    const samples = { image: [] as number[], old: [] as number[], bare: [] as number[] };
    const block = 25;
    let n = 0;
    const timed = async (into: number[], counted: boolean, once: (code: string) => unknown) => {
      for (let k = 0; k < block; k++) {
        const code = `${n++}+1`;
        const started = performance.now();
        await once(code);
        if (counted) into.push(performance.now() - started);
      }
    };
    for (let i = 0; i < (WARMUP_RUNS + LATENCY_SAMPLES) / block; i++) {
      const counted = i >= WARMUP_RUNS / block;
      await timed(samples.image, counted, (code) => image.run(code, options));
      await timed(samples.old, counted, (code) => old.run(code, options));
      await timed(samples.bare, counted, (code) => bare(code));
    }
    const [i, o, b] = [percentiles(samples.image), percentiles(samples.old), percentiles(samples.bare)];
    rows.push({
      section: SECTION,
      metric: "fresh-run latency, a program differing every run (`${i}+1`), from the pristine image",
      ours: p50p95(samples.image),
      baseline: `${p50p95(samples.bare)}; a new context per run ${p50p95(samples.old)}`,
      baselineName: "bare quickjs-emscripten, main thread",
      goal: "p95 <= 2 x p50",
      met: i.p95 <= 2 * i.p50,
    });
    rows.push({
      section: SECTION,
      metric: "latency vs bare engine, a program differing every run, from the pristine image",
      ours: `${(i.p50 / b.p50).toFixed(2)}x (a new context per run: ${(o.p50 / b.p50).toFixed(2)}x)`,
      baseline: ms(b.p50),
      baselineName: "bare quickjs-emscripten p50",
      goal: "<= 1.0x",
      met: i.p50 / b.p50 <= 1,
    });
  } finally {
    await Promise.all([image.dispose(), old.dispose()]);
  }
  // Throughput of `1+1` with two in flight, on two workers.
  const rates: Record<string, number> = {};
  for (const freshRuns of ["image", "context"] as const) {
    const engine = createJavaScriptEngine({ poolSize: 2, freshRuns });
    try {
      await engine.warm();
      await throughput(WARMUP_RUNS * 4, 2, () => engine.run("1+1", options));
      rates[freshRuns] = await throughput(THROUGHPUT_RUNS, 2, () => engine.run("1+1", options));
    } finally {
      await engine.dispose();
    }
  }
  rows.push({
    section: SECTION,
    metric: "throughput of `1+1`, 2 in flight on 2 workers, from the pristine image",
    ours: perSecond(rates.image!),
    baseline: perSecond(rates.context!),
    baselineName: "a new context per run",
    goal: ">= 3,000 runs/s",
    met: rates.image! >= 3000,
  });
  return rows;
};

const run: BenchSection = async () => {
  // First, before this process has started any engine worker.
  const rows: BenchRow[] = [await workerStartRow()];
  const quickjs = await newQuickJSWASMModule(RELEASE_SYNC);
  const bare = bareRunner(quickjs);
  const vmRun = (code: string) => runInNewContext(code, { console: { log: () => {} } });
  // The pool's default size, named here so the table can say how many workers ran.
  const workers = availableParallelism();
  const sandbox = createSandbox({ poolSize: workers });
  await sandbox.warm();

  try {
    // Fresh-sandbox latency, one run at a time, for two programs.
    for (const [label, code] of [
      ["one-line program", ONE_LINER],
      ["small program with output", WITH_OUTPUT],
    ] as const) {
      await timeEach(WARMUP_RUNS, () => sandbox.run(code));
      await timeEach(WARMUP_RUNS, () => bare(code));
      const ours = await timeEach(LATENCY_SAMPLES, () => sandbox.run(code));
      const bareSamples = await timeEach(LATENCY_SAMPLES, () => bare(code));
      const vmSamples = await timeEach(LATENCY_SAMPLES, () => vmRun(code));
      const oursP50 = percentiles(ours).p50;
      const bareP50 = percentiles(bareSamples).p50;
      rows.push({
        section: SECTION,
        metric: `fresh-run latency, ${label}`,
        ours: p50p95(ours),
        baseline: `${p50p95(bareSamples)}; node:vm ${p50p95(vmSamples)}`,
        baselineName: "bare quickjs-emscripten",
        goal: "<= 1 ms p50",
        met: oursP50 <= 1,
      });
      rows.push({
        section: SECTION,
        metric: `latency vs bare engine, ${label}`,
        ours: `${(oursP50 / bareP50).toFixed(2)}x`,
        baseline: ms(bareP50),
        baselineName: "bare quickjs-emscripten p50",
        goal: "<= 1.5x",
        met: oursP50 / bareP50 <= 1.5,
      });
      const oursRate = await throughput(THROUGHPUT_RUNS, workers * 4, () => sandbox.run(code));
      const bareRate = await throughput(THROUGHPUT_RUNS, 1, () => bare(code));
      const vmRate = await throughput(THROUGHPUT_RUNS / 4, 1, () => vmRun(code));
      rows.push({
        section: SECTION,
        metric: `throughput across the pool (${workers} workers), ${label}`,
        ours: perSecond(oursRate),
        baseline: `${perSecond(bareRate)}; node:vm ${perSecond(vmRate)}`,
        baselineName: "bare quickjs-emscripten, main thread",
        goal: ">= 2,000 runs/s",
        met: oursRate >= 2000,
      });
    }

    rows.push(...(await freshImageSection()));

    // Intl: the same fresh one-line run whose source names Intl (the shim is then installed before
    // it runs) against the plain one, interleaved in the same run; and the per-run source check
    // every program pays (see intl-guest.ts), timed here on the main thread.
    {
      const INTL_METHOD = "(1234567.891).toLocaleString('de-DE')";
      const INTL_NAMESPACE = "new Intl.NumberFormat('de-DE').format(1234567.891)";
      for (const code of [ONE_LINER, INTL_METHOD, INTL_NAMESPACE]) await timeEach(20, () => sandbox.run(code));
      const plain: number[] = [];
      const method: number[] = [];
      const namespace: number[] = [];
      for (let i = 0; i < 200; i++) {
        plain.push(...(await timeEach(1, () => sandbox.run(ONE_LINER))));
        method.push(...(await timeEach(1, () => sandbox.run(INTL_METHOD))));
        namespace.push(...(await timeEach(1, () => sandbox.run(INTL_NAMESPACE))));
      }
      rows.push({
        section: SECTION,
        metric: "fresh-run latency, one-line program calling toLocaleString('de-DE') (Intl installed)",
        ours: p50p95(method),
        baseline: p50p95(plain),
        baselineName: "one-line program without Intl, same run",
      });
      rows.push({
        section: SECTION,
        metric: "fresh-run latency, one-line program using new Intl.NumberFormat (Intl and its namespace installed)",
        ours: p50p95(namespace),
        baseline: p50p95(plain),
        baselineName: "one-line program without Intl, same run",
      });
      const checkSamples = await timeEach(20_000, () => mentionsIntl(WITH_OUTPUT));
      const checkUs = percentiles(checkSamples).p50 * 1000;
      const plainP50 = percentiles(plain).p50;
      rows.push({
        section: SECTION,
        metric: "per-run cost of Intl for a program that does not name it (source check)",
        ours: `${checkUs.toFixed(2)} µs p50 (${((checkUs / 1000 / plainP50) * 100).toFixed(2)} % of a fresh run)`,
        baseline: ms(plainP50),
        baselineName: "fresh one-line run p50",
        goal: "<= +5 %",
        met: checkUs / 1000 <= 0.05 * plainP50,
      });
    }

    // A/B of the memory bound: the same fresh-runtime loop in a module whose memory has a maximum
    // and the run's cap (engine-memory.ts) against one in Emscripten's own memory, interleaved.
    {
      // Both instances of one compiled module, so they share its compiled (and tiered-up) code.
      const bounded = await EngineMemory.create();
      bounded.markBase();
      bounded.setLimit(MEMORY_LIMIT_BYTES);
      const boundedRun = bareRunner(bounded.module);
      const ownMemoryRun = bareRunner(await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmModule: compiledQuickJS() })));
      await timeEach(WARMUP_RUNS, () => boundedRun(WITH_OUTPUT));
      await timeEach(WARMUP_RUNS, () => ownMemoryRun(WITH_OUTPUT));
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < 20; i++) {
        a.push(...(await timeEach(LATENCY_SAMPLES / 10, () => ownMemoryRun(WITH_OUTPUT))));
        b.push(...(await timeEach(LATENCY_SAMPLES / 10, () => boundedRun(WITH_OUTPUT))));
      }
      const ratio = percentiles(b).p50 / percentiles(a).p50;
      rows.push({
        section: SECTION,
        metric: "fresh-run latency with the memory bound (capped WebAssembly memory), small program, A/B",
        ours: `${p50p95(b)} (${((ratio - 1) * 100).toFixed(1)} %)`,
        baseline: p50p95(a),
        baselineName: "the same compiled engine in Emscripten's own memory, interleaved",
        goal: "<= 5 % slower p50",
        met: ratio <= 1.05,
      });
    }

    // Host RSS under the memory attacks: 16 MiB arrays kept until the limit, at the default 64 MiB.
    for (const poolSize of [1, 2]) {
      const attacked = createSandbox({ poolSize });
      try {
        await Promise.all(Array.from({ length: poolSize }, () => attacked.run("1")));
        const before = procStatus().rss;
        writeFileSync("/proc/self/clear_refs", "5");
        const statuses = await Promise.all(
          Array.from({ length: poolSize }, () => attacked.run("const a = [];\nfor (;;) a.push(new Uint8Array(16 * 2 ** 20));", { memoryLimitBytes: MEMORY_LIMIT_BYTES }).then((r) => r.status)),
        );
        const peak = procStatus().hwm - before;
        const boundBytes = poolSize * (MEMORY_LIMIT_BYTES + MEMORY_MARGIN_BYTES) + 64 * 1024 * 1024;
        rows.push({
          section: SECTION,
          metric: `host RSS peak over baseline, 16 MiB arrays kept at a 64 MiB limit, poolSize ${poolSize} (${statuses.join(", ")})`,
          ours: mib(peak),
          baseline: poolSize === 1 ? "2,107 MiB" : "6,194 MiB",
          baselineName: "before the bound (memory held until the engine's 2 GiB)",
          goal: `< ${mib(boundBytes)} (poolSize x (limit + 8 MiB) + 64 MiB)`,
          met: peak < boundBytes && statuses.every((s) => s === "memory_limit"),
        });
      } finally {
        await attacked.dispose();
      }
    }

    // isolation: "module": a fresh WASM instance per run, against the default fresh context.
    {
      const isolated = createSandbox({ poolSize: 1, isolation: "module" });
      try {
        await isolated.warm();
        await timeEach(5, () => isolated.run(ONE_LINER));
        const samples = await timeEach(40, () => isolated.run(ONE_LINER));
        const contextSamples = await timeEach(40, () => sandbox.run(ONE_LINER));
        rows.push({
          section: SECTION,
          metric: 'fresh-run latency, one-line program, isolation: "module"',
          ours: p50p95(samples),
          baseline: p50p95(contextSamples),
          baselineName: 'isolation: "context" (default)',
        });
      } finally {
        await isolated.dispose();
      }
    }

    // Compute-bound: recursive fib(25).
    {
      await timeEach(3, () => sandbox.run(FIB));
      const ours = await timeEach(20, () => sandbox.run(FIB));
      const bareSamples = await timeEach(20, () => bare(FIB));
      const v8 = await timeEach(20, () => fibV8(25));
      rows.push({
        section: SECTION,
        metric: "fib(25), recursive",
        ours: p50p95(ours),
        baseline: `${p50p95(bareSamples)}; V8 ${p50p95(v8)}`,
        baselineName: "bare quickjs-emscripten",
      });
    }

    // 1 MB JSON value in (globals) and back out (result).
    {
      const value = jsonValueOfSize(1024 * 1024);
      const text = JSON.stringify(value);
      const roundTrip = async () => {
        // The value is a little over 1 MiB, past the default result cap (maxResultBytes).
        const result = await sandbox.run("data", { globals: { data: value }, maxResultBytes: 2 * 1024 * 1024 });
        if (result.status !== "success" || (result.result as JsonValue[]).length !== (value as JsonValue[]).length) {
          throw new Error(`1 MB round trip failed: ${result.status} ${JSON.stringify(result.error)}`);
        }
      };
      const engineOwn = () => bare("JSON.stringify(JSON.parse(TEXT)).length", { TEXT: text });
      await timeEach(3, roundTrip);
      await timeEach(3, engineOwn);
      const ours = await timeEach(20, roundTrip);
      const baseline = await timeEach(20, engineOwn);
      const ratio = percentiles(ours).p50 / percentiles(baseline).p50;
      rows.push({
        section: SECTION,
        metric: `1 MB JSON in and out (${(text.length / 1024 / 1024).toFixed(2)} MB)`,
        ours: `${p50p95(ours)} (${ratio.toFixed(2)}x)`,
        baseline: p50p95(baseline),
        baselineName: "QuickJS's own JSON.parse + JSON.stringify",
        goal: "<= 1.2x",
        met: ratio <= 1.2,
      });
    }

    // while (true) with a 100 ms limit: interrupt handler, no worker kill.
    {
      const samples = await timeEach(10, async () => {
        const result = await sandbox.run("while (true) {}", { timeoutMs: 100 });
        if (result.status !== "timeout") throw new Error(`expected timeout, got ${result.status}`);
      });
      rows.push({
        section: SECTION,
        metric: "while (true) {} with a 100 ms limit, wall time",
        ours: p50p95(samples),
        goal: "<= 110 ms",
        met: percentiles(samples).p95 <= 110,
      });
    }

    // Cancellation: from `abort()` to the run's promise settling, with the guest spinning.
    {
      const samples: number[] = [];
      for (let i = 0; i < 10; i++) {
        const controller = new AbortController();
        let abortedAt = 0;
        const running = () => {
          setTimeout(() => {
            abortedAt = performance.now();
            controller.abort();
          }, 20);
          return null;
        };
        const result = await sandbox.run("await running(); for (;;) {}", {
          timeoutMs: 10_000,
          signal: controller.signal,
          hostFunctions: { running },
        });
        samples.push(performance.now() - abortedAt);
        if (result.status !== "cancelled") throw new Error(`expected cancelled, got ${result.status}`);
        // Let the replacement worker start before the next sample.
        await sandbox.warm();
      }
      rows.push({
        section: SECTION,
        metric: "cancel -> return latency (JS), guest spinning",
        ours: p50p95(samples),
        goal: "<= 50 ms",
        met: percentiles(samples).p95 <= 50,
      });
    }

    // A built-in that never polls the interrupt handler: only the watchdog's kill stops it.
    {
      const samples: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        const result = await sandbox.run("(10n ** 300000n).toString().length", { timeoutMs: 100 });
        samples.push(performance.now() - started);
        if (result.status !== "timeout") throw new Error(`expected timeout, got ${result.status}`);
        // Let the replacement worker start before the next sample.
        await sandbox.warm();
      }
      rows.push({
        section: SECTION,
        metric: "non-polling built-in (big BigInt toString), 100 ms limit, wall time",
        ours: p50p95(samples),
        goal: "<= 200 ms (limit + 100 ms)",
        met: percentiles(samples).p95 <= 200,
      });
    }

    // Memory per live session (each session keeps its own worker thread and context).
    {
      const count = 8;
      const before = settledRss();
      const sessions: SandboxSession[] = [];
      for (let i = 0; i < count; i++) {
        const session = await sandbox.createSession();
        await session.run(`globalThis.n = ${i}; function inc() { return ++globalThis.n; }`);
        sessions.push(session);
      }
      const after = settledRss();
      await Promise.all(sessions.map((s) => s.dispose()));
      // A bare context is far below RSS noise (and reuses WASM memory already grown by the
      // runs above), so it is measured by QuickJS's own count of what it allocated.
      const runtime = quickjs.newRuntime();
      const context = runtime.newContext();
      const usage = runtime.computeMemoryUsage();
      const bareBytes = (context.dump(usage) as { memory_used_size: number }).memory_used_size;
      usage.dispose();
      context.dispose();
      runtime.dispose();
      rows.push({
        section: SECTION,
        metric: `memory per live session (RSS, ${count} sessions)`,
        ours: mib((after - before) / count),
        baseline: `${(bareBytes / 1024).toFixed(0)} KiB`,
        baselineName: "bare runtime + context, QuickJS's own count, not RSS",
      });
    }

    // Memory over 10,000 runs after 1,000 warm-up runs, and over 10,000 more.
    {
      const code = `const data = Array.from({ length: 50 }, (_, i) => ({ i, s: "x".repeat(i) }));
console.log("run", data.length);
data.length`;
      await throughput(1000, workers * 4, () => sandbox.run(code));
      const rss1k = settledRss();
      await throughput(10_000, workers * 4, () => sandbox.run(code));
      const rss11k = settledRss();
      await throughput(10_000, workers * 4, () => sandbox.run(code));
      const rss21k = settledRss();
      const secondGrowth = rss21k - rss11k;
      rows.push({
        section: SECTION,
        metric: "host RSS (with workers) after 1k / 11k / 21k runs",
        ours: `${mib(rss1k)} / ${mib(rss11k)} / ${mib(rss21k)}`,
        goal: "flat: < 16 MiB growth over the last 10k runs",
        met: secondGrowth < 16 * 1024 * 1024,
      });
    }
  } finally {
    await sandbox.dispose();
  }
  return rows;
};

/** Milliseconds from `new Worker(script)` to the worker's "ready" (the engine loaded and warmed up), as a session worker starts. */
async function workerStartMs(script: URL): Promise<number> {
  const started = performance.now();
  const worker = new Worker(script, { execArgv: [], env: {}, workerData: { outputMirror: createOutputMirrorBuffer(), isolation: "context", warm: "javascript" } });
  try {
    await new Promise<void>((resolve, reject) => {
      worker.on("message", (m: { type?: string }) => m.type === "ready" && resolve());
      worker.once("error", reject);
    });
    return performance.now() - started;
  } finally {
    await worker.terminate();
  }
}

/**
 * The engine worker's start, the bundle the sandbox starts (one CommonJS file) against tsc's
 * unbundled ES module of the same source beside it, alternating.
 */
async function workerStartRow(): Promise<BenchRow> {
  const bundle = workerScriptUrl();
  const esm = new URL("main.js", bundle);
  const ours: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < 15; i++) {
    ours.push(await workerStartMs(bundle));
    base.push(await workerStartMs(esm));
  }
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1]!;
  return {
    section: SECTION,
    metric: "engine worker start, new Worker -> ready (a JavaScript session's worker), median of 15",
    ours: ms(median(ours)),
    baseline: ms(median(base)),
    baselineName: "the same source as tsc's unbundled ES module",
  };
}

/** This process's RSS and its peak since the last reset (Linux's /proc). */
function procStatus(): { rss: number; hwm: number } {
  const text = readFileSync("/proc/self/status", "utf8");
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(text)![1]) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
}

/** RSS after giving the host's collector a chance (bench runs without --expose-gc). */
function settledRss(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss;
}

export default run;
