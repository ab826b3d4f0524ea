/**
 * A host call's promise is made by the engine with its resolving functions as out-parameters.
 * quickjs-emscripten 0.32.0's `newPromise` reads them through a view of the memory made before
 * the call; when the call grows the memory that view is detached and it reads none, so the guest's
 * awaited host call could never be settled. `newDeferredPromise` (worker/engine-reads.ts) reads them
 * after the call. Here the growth is forced inside the engine call, as an allocation would do.
 */
import { describe, expect, it } from "vitest";
import { newQuickJSWASMModuleFromVariant, RELEASE_SYNC } from "quickjs-emscripten";
import { contextParts } from "../../../src/sandbox/js/worker/engine-internals.js";
import { newDeferredPromise } from "../../../src/sandbox/js/worker/engine-reads.js";

/** A context whose promise-capability call first grows the engine's memory by 32 MiB. */
async function growingContext() {
  const module = await newQuickJSWASMModuleFromVariant(RELEASE_SYNC);
  const context = module.newContext();
  const parts = contextParts(context);
  const original = parts.ffi.QTS_NewPromiseCapability.bind(parts.ffi);
  const buffers: ArrayBufferLike[] = [];
  parts.ffi.QTS_NewPromiseCapability = (ctx, out) => {
    buffers.push(parts.module.HEAPU8.buffer);
    const big = parts.module._malloc(32 * 1024 * 1024);
    parts.module._free(big);
    buffers.push(parts.module.HEAPU8.buffer);
    return original(ctx, out);
  };
  return { context, grew: () => buffers.length >= 2 && buffers[0] !== buffers[1] };
}

describe("a host call's promise when the engine call grows the memory", () => {
  it("newDeferredPromise reads the resolving functions after the call and the promise settles", async () => {
    const { context, grew } = await growingContext();
    const deferred = newDeferredPromise(context);
    expect(grew()).toBe(true);
    const value = context.newNumber(42);
    deferred.resolve(value);
    value.dispose();
    context.runtime.executePendingJobs();
    const state = context.getPromiseState(deferred.handle);
    expect(state.type).toBe("fulfilled");
    if (state.type === "fulfilled") {
      expect(context.getNumber(state.value)).toBe(42);
      state.value.dispose();
    }
    deferred.dispose();
    context.dispose();
  });

  it("the library's own newPromise reads no resolving functions there (why the worker does not use it)", async () => {
    const { context, grew } = await growingContext();
    expect(() => {
      const deferred = context.newPromise();
      deferred.resolve(context.undefined);
    }).toThrow();
    expect(grew()).toBe(true);
  });
});
