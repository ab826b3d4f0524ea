/**
 * The pristine image's own contract (src/sandbox/js/worker/fresh-image.ts), in this thread: it
 * is refused, and contexts are then made the old way, when the engine does not match it (another
 * instance, memory that grew, a context whose random state cannot be found); taken, a restore
 * puts memory and the JavaScript-side state back exactly.
 */
import { describe, expect, it } from "vitest";
import { EngineMemory } from "../../../src/sandbox/js/worker/engine-memory.js";
import { emscriptenOf } from "../../../src/sandbox/js/worker/engine-internals.js";
import { FreshImage } from "../../../src/sandbox/js/worker/fresh-image.js";
import { GuestContext, SettleMode } from "../../../src/sandbox/js/worker/guest-context.js";
import { JsSideState } from "../../../src/sandbox/js/worker/js-side-state.js";
import { installRunClock } from "../../../src/sandbox/js/worker/run-clock.js";
import type { WorkerRunLimits } from "../../../src/sandbox/js/shared/protocol.js";

const host = { output: () => undefined, call: () => undefined };
const limits: WorkerRunLimits = {
  timeoutMs: 5000,
  memoryLimitBytes: 64 * 1024 * 1024,
  maxOutputBytes: 1 << 20,
  maxHostCallsInFlight: 1,
  maxHostCalls: 1,
  maxResultBytes: 1 << 20,
  maxFileBytes: 1024,
  maxTotalFileBytes: 1024,
};

async function imageOf(engine: EngineMemory): Promise<FreshImage<GuestContext> | string> {
  engine.markBase();
  return FreshImage.take(
    engine.module,
    () => {
      const guest = new GuestContext(engine.module, 16 * 1024 * 1024, host);
      guest.preloadForRuns();
      return guest;
    },
    [host, engine],
  );
}

async function evaluate(guest: GuestContext, code: string): Promise<unknown> {
  const outcome = await guest.evaluate({ runId: 1, code, kind: "script", mode: SettleMode.Script, limits, setup: { hostFunctionNames: [] }, startedMs: performance.now() });
  guest.takeOutput();
  return outcome.status === "success" ? JSON.parse(outcome.resultJson ?? "null") : outcome.status;
}

function memoryOf(engine: EngineMemory): Buffer {
  const heap = emscriptenOf(engine.module).HEAPU8;
  return Buffer.from(heap.buffer, heap.byteOffset, heap.byteLength);
}

describe("the pristine image", () => {
  it("is refused when the engine's clock does not give the context the seed it looks for", async () => {
    // This thread's Date.now is the real one: the seed is the time, not the image's reading.
    const refused = await imageOf(await EngineMemory.create());
    expect(refused).toMatch(/random state was found 0 times/);
  });

  it("restores memory and state exactly, and is refused for another instance or a memory that grew", async () => {
    installRunClock();
    const engine = await EngineMemory.create();
    const image = await imageOf(engine);
    if (typeof image === "string") throw new Error(image);
    const pristine = Buffer.from(memoryOf(engine));

    expect(await evaluate(image.context, "globalThis.left = 'LEFT-BEHIND-'.repeat(1000); Object.prototype.p = 1; [1 + 1, Math.random()]")).toEqual([2, expect.any(Number)]);
    const report = image.restore(42n);
    expect(report.written).toBeGreaterThan(0);
    const restored = memoryOf(engine);
    expect(restored.includes("LEFT-BEHIND-")).toBe(false);
    // Byte for byte the image, except the eight bytes of the new random state.
    let differing = 0;
    for (let i = 0; i < restored.byteLength; i++) if (restored[i] !== pristine[i]) differing++;
    expect(differing).toBeLessThanOrEqual(8);
    expect(await evaluate(image.context, "[typeof left, ({}).p, 2 + 2]")).toEqual(["undefined", null, 4]);
    image.restore();

    const other = await EngineMemory.create();
    expect(image.refusal(other.module)).toMatch(/another engine instance/);
    expect(image.refusal(engine.module)).toBeUndefined();

    expect(await evaluate(image.context, "const a = []; for (let i = 0; i < 12; i++) a.push(new Uint8Array(1 << 20)); a.length")).toBe(12);
    expect(image.grown()).toBe(true);
    expect(image.refusal(engine.module)).toMatch(/not the image's/);
    expect(() => image.restore()).toThrow(/cannot be restored/);
  });

  it("puts back every own property, array element and collection entry it took, and drops what was added", () => {
    const inner = { n: 1 };
    const root = { inner, list: [1, 2], map: new Map([["a", inner]]), set: new Set([inner]), fn: () => 1 };
    const state = JsSideState.take([root], []);
    inner.n = 2;
    (inner as Record<string, unknown>).added = true;
    root.list.push(3);
    root.list[0] = 9;
    root.map.set("b", { n: 3 });
    root.set.clear();
    root.fn = () => 2;
    state.restore();
    expect(root).toEqual({ inner: { n: 1 }, list: [1, 2], map: new Map([["a", inner]]), set: new Set([inner]), fn: expect.any(Function) });
    expect(root.fn()).toBe(1);
    expect(() => JsSideState.take([{ weak: new WeakMap() }], [])).toThrow(/cannot be taken/);
  });
});
