/**
 * The restore of isolation "module" (src/sandbox/js/worker/pristine-memory.ts): after a run,
 * the QuickJS module's whole WebAssembly memory is byte for byte the one taken before any run,
 * pages the run grew it by are zeros, and the engine keeps working from it run after run.
 */
import { describe, expect, it } from "vitest";
import { newQuickJSWASMModuleFromVariant, RELEASE_SYNC } from "quickjs-emscripten";
import type { QuickJSWASMModule } from "quickjs-emscripten-core";
import { PristineMemory } from "../../../src/sandbox/js/worker/pristine-memory.js";
import { emscriptenOf } from "../../../src/sandbox/js/worker/engine-internals.js";

function memory(module: QuickJSWASMModule): Buffer {
  const heap = emscriptenOf(module).HEAPU8;
  return Buffer.from(heap.buffer, heap.byteOffset, heap.byteLength);
}

function run(module: QuickJSWASMModule, code: string): unknown {
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(128 * 1024 * 1024);
  const context = runtime.newContext();
  const result = context.evalCode(code);
  const value: unknown = result.error ? { error: context.dump(result.error) } : context.dump(result.value);
  (result.error ?? result.value).dispose();
  context.dispose();
  runtime.dispose();
  return value;
}

const SECRET = "const o = {};\nfor (let i = 0; i < 5000; i++) o['k' + i] = 'PRISTINE-SECRET-' + i;\nObject.keys(o).length";
/** Grows the memory past its first 16 MiB. */
const GROW = "const parts = [];\nfor (let i = 0; i < 40; i++) parts.push(new Uint8Array(1 << 20).fill(7));\nparts.length";

describe("PristineMemory", () => {
  it("puts the memory back byte for byte after runs that leave strings and grow it, and the engine keeps working", async () => {
    const module = await newQuickJSWASMModuleFromVariant(RELEASE_SYNC);
    expect(run(module, "1 + 1")).toBe(2);
    const before = Buffer.from(memory(module));
    const pristine = PristineMemory.take(module);

    expect(run(module, SECRET)).toBe(5000);
    expect(memory(module).includes("PRISTINE-SECRET-")).toBe(true);
    expect(pristine.restore()).toBeGreaterThan(0);
    expect(memory(module).equals(before)).toBe(true);

    expect(pristine.grown()).toBe(false);
    expect(run(module, GROW)).toBe(40);
    const grown = memory(module);
    expect(grown.byteLength).toBeGreaterThan(before.byteLength);
    expect(pristine.grown()).toBe(true);
    pristine.restore();
    const after = memory(module);
    expect(after.subarray(0, before.byteLength).equals(before)).toBe(true);
    expect(after.subarray(before.byteLength).equals(Buffer.alloc(after.byteLength - before.byteLength))).toBe(true);

    // The allocator and the engine run on from the restored state, and nothing is left over.
    for (let i = 0; i < 30; i++) {
      expect(run(module, i % 3 === 0 ? SECRET : i % 3 === 1 ? GROW : "[1, 2, 3].map((x) => x * 2).join()")).toEqual(i % 3 === 0 ? 5000 : i % 3 === 1 ? 40 : "2,4,6");
      pristine.restore();
      const now = memory(module);
      expect(now.subarray(0, before.byteLength).equals(before)).toBe(true);
      expect(now.includes("PRISTINE-SECRET-")).toBe(false);
    }
  });
});
