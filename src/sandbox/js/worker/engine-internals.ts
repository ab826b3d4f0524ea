/**
 * The parts of quickjs-emscripten's own JavaScript state (0.32.0, pinned exactly) that a
 * session snapshot has to read or set, in one place: the Emscripten module's linear memory,
 * a runtime's table of host functions (`hostRefs`), the pointers its runtime and context
 * objects hold, and a context's FFI for the reads the library gets wrong (engine-reads.ts).
 * Nothing else in the worker reaches past the library's public API; a version of the library
 * that lays these out differently makes `hostRefsOf`, `pointerFields` or `contextParts` fail
 * or differ, and the snapshot is refused (the engine build is part of every snapshot too).
 */
import { createRequire } from "node:module";
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from "quickjs-emscripten-core";

/**
 * The path of a file of the engine this worker loads (QuickJS's sync release build, resolved
 * from quickjs-emscripten as `require` resolves it), e.g. `"@jitl/quickjs-wasmfile-release-sync/wasm"`.
 */
export function enginePackageFile(specifier: string): string {
  return createRequire(createRequire(import.meta.url).resolve("quickjs-emscripten")).resolve(specifier);
}

/** The Emscripten module under a QuickJS module: its heap view and allocator. */
export interface EmscriptenHeap {
  /** The whole linear memory (Emscripten replaces this view when the memory grows). */
  readonly HEAPU8: Uint8Array;
  _malloc(bytes: number): number;
  _free(pointer: number): void;
}

/** The Emscripten module of a loaded QuickJS module. */
export function emscriptenOf(module: QuickJSWASMModule): EmscriptenHeap {
  const inner = (module as unknown as { module?: EmscriptenHeap }).module;
  if (!inner || !(inner.HEAPU8 instanceof Uint8Array) || typeof inner._malloc !== "function") {
    throw new Error("this quickjs-emscripten build does not expose its Emscripten module");
  }
  return inner;
}

/** A runtime's table of host functions (quickjs-emscripten's HostRefMap). */
export interface HostRefTable {
  nextId: number;
  freelist: number[];
  groups: Map<number, Map<number, unknown>>;
}

/** The host-function table of `runtime`. */
export function hostRefsOf(runtime: QuickJSRuntime): HostRefTable {
  const table = (runtime as unknown as { hostRefs?: HostRefTable }).hostRefs;
  if (!table || typeof table.nextId !== "number" || !Array.isArray(table.freelist) || !(table.groups instanceof Map)) {
    throw new Error("this quickjs-emscripten build keeps its host functions in another form");
  }
  return table;
}

/** quickjs-emscripten's group of a host-function id (HostRefMap's `getGroupId`). */
export function hostRefGroup(id: number): number {
  return id >> 8;
}

/**
 * The pointers `object` holds in its own fields: numbers under `value` (a handle or lifetime)
 * or `value.ptr` (a typed array in the heap), by field name, sorted. Lazily made handles of the
 * library (`_global`, `_SymbolIterator`, ...) show up here once made.
 */
export function pointerFields(object: QuickJSContext | QuickJSRuntime): [string, number][] {
  const out: [string, number][] = [];
  for (const [key, field] of Object.entries(object as object)) {
    // The constants point at static data of the module (made lazily, allocating nothing).
    if (STATIC_CONSTANTS.has(key)) continue;
    if (!field || typeof field !== "object") continue;
    const value = (field as { value?: unknown }).value;
    if (typeof value === "number") out.push([key, value]);
    else if (value && typeof value === "object" && typeof (value as { ptr?: unknown }).ptr === "number") out.push([key, (value as { ptr: number }).ptr]);
  }
  return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

const STATIC_CONSTANTS = new Set(["_undefined", "_null", "_true", "_false"]);

/** Keys of the context map of a runtime (its contexts' pointers). */
export function contextPointers(runtime: QuickJSRuntime): number[] {
  const map = (runtime as unknown as { contextMap?: Map<number, unknown> }).contextMap;
  return map ? [...map.keys()].sort((a, b) => a - b) : [];
}

/** A handle (owned by the caller) of the JSValue stored at `pointer` of the context's heap: nothing is allocated or copied. */
export function adoptHandle(context: QuickJSContext, pointer: number): QuickJSHandle {
  const memory = (context as unknown as { memory?: { heapValueHandle?(pointer: number): QuickJSHandle } }).memory;
  if (!memory?.heapValueHandle) throw new Error("this quickjs-emscripten build does not expose a context's heap handles");
  return memory.heapValueHandle(pointer);
}

/** A context's engine pointer, Emscripten module and FFI, as engine-reads.ts calls them. */
export interface ContextParts {
  pointer: number;
  module: { HEAPU8: Uint8Array; _malloc(bytes: number): number; _free(pointer: number): void; UTF8ToString(pointer: number): string };
  ffi: {
    QTS_GetOwnPropertyNames(ctx: number, outPointers: number, outLength: number, value: number, flags: number): number;
    QTS_NewPromiseCapability(ctx: number, outResolvingFunctions: number): number;
    QTS_GetString(ctx: number, value: number): number;
    QTS_FreeCString(ctx: number, text: number): void;
    QTS_FreeValuePointer(ctx: number, value: number): void;
    QTS_FreeVoidPointer(ctx: number, pointer: number): void;
  };
}

/** The parts of `context` that engine-reads.ts reads its out-parameters with. */
export function contextParts(context: QuickJSContext): ContextParts {
  const c = context as unknown as { ctx?: { value?: unknown }; module?: ContextParts["module"]; ffi?: ContextParts["ffi"] };
  if (typeof c.ctx?.value !== "number" || !c.module?.HEAPU8 || typeof c.ffi?.QTS_GetOwnPropertyNames !== "function" || typeof c.ffi.QTS_NewPromiseCapability !== "function") {
    throw new Error("this quickjs-emscripten build lays out its contexts differently");
  }
  return { pointer: c.ctx.value, module: c.module, ffi: c.ffi };
}
