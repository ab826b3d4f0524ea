/**
 * The memory bound of a worker's QuickJS module (src/sandbox/js/worker/engine-memory.ts): the
 * WebAssembly memory cannot grow past the run's cap (nor past its maximum, whatever the cap), so
 * everything a run allocates counts, not only one allocation larger than the limit; then, in the
 * pool, runs with different limits in one worker each get their own bound, and a run that grew
 * the memory past 32 MiB gives it back (its worker is replaced, started at once).
 */
import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../../src/index.js";
import {
  DESCRIBE_HEADROOM_BYTES,
  EngineMemory,
  FIRST_CLASS_LIMIT_BYTES,
  MEMORY_MARGIN_BYTES,
  RETURN_ABOVE_BYTES,
} from "../../../src/sandbox/js/worker/engine-memory.js";

const MiB = 1024 * 1024;

/** Runs `code` in a fresh runtime of the module with QuickJS's own limit set to `limitBytes`. */
function run(engine: EngineMemory, code: string, limitBytes: number): unknown {
  const runtime = engine.module.newRuntime();
  runtime.setMemoryLimit(limitBytes);
  const context = runtime.newContext();
  const result = context.evalCode(code);
  const value: unknown = result.error ? { error: (context.dump(result.error) as { message: string }).message } : context.dump(result.value);
  (result.error ?? result.value).dispose();
  context.dispose();
  runtime.dispose();
  return value;
}

const HOLD_1MIB_ARRAYS = (n: number) => `const a = [];\nfor (let i = 0; i < ${n}; i++) a.push(new Uint8Array(1 << 20));\na.length`;

describe("a module's memory bound", () => {
  it("counts every allocation: 100 typed arrays of 1 MiB do not fit in 32 MiB, and the memory stays under the run's cap", async () => {
    const engine = await EngineMemory.create();
    engine.markBase();
    engine.setLimit(32 * MiB);
    expect(run(engine, HOLD_1MIB_ARRAYS(100), 32 * MiB)).toEqual({ error: "out of memory" });
    expect(engine.bytes).toBeLessThanOrEqual(engine.capFor(32 * MiB));
    expect(engine.capFor(32 * MiB)).toBe(engine.baseBytes + 32 * MiB + MEMORY_MARGIN_BYTES - DESCRIBE_HEADROOM_BYTES);
    // What fits in the limit still runs, in the same module, once the last run's memory is free.
    expect(run(engine, HOLD_1MIB_ARRAYS(20), 32 * MiB)).toBe(20);
  });

  it("lifts the cap by at most the describe headroom, and never past the memory's maximum", async () => {
    const engine = await EngineMemory.create();
    engine.markBase();
    engine.setLimit(16 * MiB);
    engine.lift(1024 * MiB);
    expect(run(engine, HOLD_1MIB_ARRAYS(100), 1024 * MiB)).toEqual({ error: "out of memory" });
    expect(engine.bytes).toBeLessThanOrEqual(engine.capFor(16 * MiB) + DESCRIBE_HEADROOM_BYTES);
    expect(engine.allowUpTo(engine.maximumBytes + 1)).toBe(false);
    // Past the cap, the maximum still holds: V8 refuses the growth.
    expect(engine.allowUpTo(engine.maximumBytes)).toBe(true);
    expect(run(engine, HOLD_1MIB_ARRAYS(1000), 1024 * MiB)).toEqual({ error: "out of memory" });
    expect(engine.bytes).toBeLessThanOrEqual(engine.maximumBytes);
    expect(engine.maximumBytes).toBeLessThanOrEqual(16 * MiB + FIRST_CLASS_LIMIT_BYTES + MEMORY_MARGIN_BYTES);
  });

  it("serves a limit within its class and its memory's cap only, and says when it grew past the return point", async () => {
    const engine = await EngineMemory.create();
    engine.markBase();
    expect(engine.serves(FIRST_CLASS_LIMIT_BYTES)).toBe(true);
    expect(engine.serves(FIRST_CLASS_LIMIT_BYTES + 1)).toBe(false);
    engine.setLimit(64 * MiB);
    expect(run(engine, HOLD_1MIB_ARRAYS(40), 64 * MiB)).toBe(40);
    expect(engine.grownPastReturn()).toBe(engine.bytes > engine.baseBytes + RETURN_ABOVE_BYTES);
    expect(engine.grownPastReturn()).toBe(true);
    // A smaller limit's cap is below the memory it has now: a run with it needs another module.
    expect(engine.serves(16 * MiB)).toBe(false);
    const large = await EngineMemory.create(512 * MiB);
    large.markBase();
    large.setLimit(512 * MiB);
    expect(run(large, HOLD_1MIB_ARRAYS(400), 512 * MiB)).toBe(400);
  });
});

describe("the pool under the bound", { timeout: 120_000 }, () => {
  const sandbox = createSandbox({ poolSize: 1 });
  afterAll(() => sandbox.dispose());

  it("gives each run its own limit in one worker, larger and smaller than the worker's first module", async () => {
    const js = { language: "javascript" } as const;
    expect((await sandbox.run(HOLD_1MIB_ARRAYS(24), { ...js, memoryLimitBytes: 16 * MiB })).status).toBe("memory_limit");
    expect((await sandbox.run(HOLD_1MIB_ARRAYS(300), { ...js, memoryLimitBytes: 512 * MiB })).result).toBe(300);
    expect((await sandbox.run(HOLD_1MIB_ARRAYS(600), { ...js, memoryLimitBytes: 512 * MiB })).status).toBe("memory_limit");
    expect((await sandbox.run(HOLD_1MIB_ARRAYS(24), { ...js, memoryLimitBytes: 16 * MiB })).status).toBe("memory_limit");
    expect((await sandbox.run(HOLD_1MIB_ARRAYS(10), { ...js, memoryLimitBytes: 16 * MiB })).result).toBe(10);
  });

  it("replaces a worker whose memory grew past the return point, and starts its replacement at once", async () => {
    await sandbox.run("1", { language: "javascript" });
    const r = await sandbox.run(HOLD_1MIB_ARRAYS(48), { language: "javascript", memoryLimitBytes: 64 * MiB });
    expect(r.result).toBe(48);
    // The worker ended with its answer; its replacement is already starting (no run asked for it).
    expect(sandbox.liveWorkerCount()).toBe(1);
    expect((await sandbox.run("6 * 7", { language: "javascript" })).result).toBe(42);
  });
});
