/**
 * The one owner of a worker's QuickJS module and of the WebAssembly memory it runs in. The run's
 * memory limit is enforced here, where the memory grows, not in QuickJS's bookkeeping: QuickJS
 * (bellard 2025-09-13, as built by quickjs-emscripten 0.32.0) counts an allocation's size as
 * `malloc_usable_size`, which its Emscripten build defines as 0, so its `malloc_limit` only
 * refuses one allocation larger than the limit (plus 8 bytes per live allocation): 100 typed
 * arrays of 1 MiB passed a 32 MiB limit. Everything a run allocates (its heap, array buffers,
 * strings, atoms) lives in this one linear memory, so capping the memory caps all of it.
 *
 * Two caps, both outside the guest's reach:
 * - the memory's `maximum`, set when it is made and enforced by V8 (a growth past it fails), sized
 *   for the largest limit this module serves (its class);
 * - the run's cap, checked by the memory's `grow`, the only way Emscripten grows it (its
 *   `emscripten_resize_heap`): `baseBytes + memoryLimitBytes + RUN_SLACK_BYTES` (base: the memory
 *   in use when the module was ready), lifted by at most `DESCRIBE_HEADROOM_BYTES` while an
 *   out-of-memory error is described. The memory never has less than its initial 16 MiB, so a
 *   limit below ~12 MiB is held by that size and QuickJS's own count, not by the cap.
 * A growth either refuses makes `malloc` return NULL, and QuickJS throws its out-of-memory error:
 * the run ends `memory_limit`. WebAssembly memory never shrinks: a module whose memory grew past
 * `RETURN_ABOVE_BYTES` over its base is dropped with its thread after the run (see main.ts).
 */
import { readFileSync } from "node:fs";
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC } from "quickjs-emscripten";
import type { CustomizeVariantOptions, QuickJSWASMModule } from "quickjs-emscripten-core";
import { enginePackageFile } from "./engine-internals.js";

/** A WebAssembly page. */
const PAGE_BYTES = 64 * 1024;
/** The memory a module starts with: Emscripten's INITIAL_MEMORY of this build (16 MiB). */
const INITIAL_BYTES = 16 * 1024 * 1024;
/** The largest memory this build's allocator asks for (its glue stops at 2 GiB). */
const LARGEST_BYTES = 2 * 1024 * 1024 * 1024;

/**
 * What a run may hold beyond its limit before its growth is refused: the allocator's own headers
 * and the rounding of growth to whole pages.
 */
export const RUN_SLACK_BYTES = 4 * 1024 * 1024;
/** Extra growth allowed while an out-of-memory error is described (the error's own objects). */
export const DESCRIBE_HEADROOM_BYTES = 4 * 1024 * 1024;
/**
 * The margin over `memoryLimitBytes` that a worker's memory may reach, beyond its base (the
 * engine's static data and the memory it held before the run): 8 MiB.
 */
export const MEMORY_MARGIN_BYTES = RUN_SLACK_BYTES + DESCRIBE_HEADROOM_BYTES;
/**
 * A module whose memory grew more than this over its base during a run is dropped after the run
 * (with its worker thread), so the memory goes back to the host: ordinary runs never get near it
 * and keep their worker; a run that held more pays for one worker start.
 */
export const RETURN_ABOVE_BYTES = 32 * 1024 * 1024;
/** The limit a worker's first module is sized for (the package's default limit, 64 MiB). */
export const FIRST_CLASS_LIMIT_BYTES = 64 * 1024 * 1024;

/** A compiled WebAssembly module, as quickjs-emscripten's variant options take it. */
type CompiledWasm = Exclude<NonNullable<CustomizeVariantOptions["wasmModule"]>, () => unknown>;

/** WebAssembly's memory, as this file uses it (Node's types without DOM do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => CompiledWasm;
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/**
 * The WASM of QuickJS's sync release build, compiled synchronously once per thread. Compiled
 * asynchronously (what `newQuickJSWASMModule` does), V8 left the thread unresponsive for a while
 * after it was ready, which every session paid on its first run; compiled synchronously, functions
 * are compiled lazily as they are first called (and shared by every instance of this thread).
 */
let compiled: CompiledWasm | undefined;
/** The compiled WASM every module of this thread is an instance of. */
export function compiledQuickJS(): CompiledWasm {
  compiled ??= new wasm.Module(readFileSync(enginePackageFile("@jitl/quickjs-wasmfile-release-sync/wasm")));
  return compiled;
}

const ZERO_PAGE = Buffer.alloc(PAGE_BYTES);

/** True when `page` (one WebAssembly page) holds only zeros. */
function isZero(page: Uint8Array): boolean {
  return Buffer.from(page.buffer, page.byteOffset, page.byteLength).equals(ZERO_PAGE);
}

/** Bytes rounded up to whole pages. */
function pagesOf(bytes: number): number {
  return Math.ceil(bytes / PAGE_BYTES);
}

const owners = new WeakMap<QuickJSWASMModule, EngineMemory>();

/** The owner of `module`'s memory, if it was made by `EngineMemory.create`. */
export function engineMemoryOf(module: QuickJSWASMModule): EngineMemory | undefined {
  return owners.get(module);
}

/** A QuickJS module, its WebAssembly memory, and the caps on that memory's growth. */
export class EngineMemory {
  /** The memory in use when the module was ready for runs (see `markBase`). */
  private base = INITIAL_BYTES;
  /** The cap the memory may grow to now, in bytes. */
  private capBytes: number;
  /** The current run's limit (the cap without a lift). */
  private limitBytes: number;
  /**
   * Growths of the memory refused so far (past the run's cap or the maximum). The worker reads it
   * around a run: a run during which one was refused reached its limit, whatever its code did with
   * the engine's out-of-memory error (caught, or swallowed into a promise nobody awaits).
   */
  refusals = 0;

  private constructor(
    readonly module: QuickJSWASMModule,
    private readonly memory: WasmMemory,
    /** The memory's `maximum`, in bytes. */
    readonly maximumBytes: number,
    /** The largest `memoryLimitBytes` this module serves. */
    readonly classLimitBytes: number,
  ) {
    this.limitBytes = classLimitBytes;
    this.capBytes = maximumBytes;
    owners.set(module, this);
  }

  /**
   * A new QuickJS instance in a memory of its own, sized for runs with a limit up to
   * `classLimitBytes` (at least `FIRST_CLASS_LIMIT_BYTES`).
   */
  static async create(classLimitBytes = FIRST_CLASS_LIMIT_BYTES): Promise<EngineMemory> {
    const limit = Math.max(classLimitBytes, FIRST_CLASS_LIMIT_BYTES);
    const maximumBytes = Math.min(LARGEST_BYTES, pagesOf(INITIAL_BYTES + limit + MEMORY_MARGIN_BYTES) * PAGE_BYTES);
    const memory = new wasm.Memory({ initial: pagesOf(INITIAL_BYTES), maximum: maximumBytes / PAGE_BYTES });
    let owner: EngineMemory | undefined;
    const grow = memory.grow.bind(memory);
    // Emscripten's resize_heap calls this (and renews its views when it returns): a growth past
    // the run's cap throws as one past `maximum` does, and the allocator reports NULL.
    Object.defineProperty(memory, "grow", {
      value: (pages: number): number => {
        if (owner && memory.buffer.byteLength + pages * PAGE_BYTES > owner.capBytes) {
          owner.refusals += 1;
          throw new RangeError("the run's memory limit was reached");
        }
        try {
          return grow(pages);
        } catch (error) {
          if (owner) owner.refusals += 1;
          throw error;
        }
      },
    });
    const module = await newQuickJSWASMModuleFromVariant(
      newVariant(RELEASE_SYNC, { wasmModule: compiledQuickJS(), wasmMemory: memory as unknown as NonNullable<CustomizeVariantOptions["wasmMemory"]> }),
    );
    owner = new EngineMemory(module, memory, maximumBytes, limit);
    return owner;
  }

  /** The memory's size now, in bytes. */
  get bytes(): number {
    return this.memory.buffer.byteLength;
  }

  /** The memory the caps count from (the engine's static data and its idle heap), in bytes. */
  get baseBytes(): number {
    return this.base;
  }

  /**
   * Takes the memory in use now as its base: call it once the module is ready and no run is alive.
   * The base is the end of the last page that is not all zeros: the allocator's heap grows upwards
   * from the engine's static data, and memory past its top has never been written. Counting from the
   * memory's size instead would give every run the unused part of the initial 16 MiB on top of its
   * limit (a 16 MiB limit held 20 MiB).
   */
  markBase(): void {
    const heap = new Uint8Array(this.memory.buffer);
    let top = heap.byteLength;
    while (top > 0 && isZero(heap.subarray(top - PAGE_BYTES, top))) top -= PAGE_BYTES;
    this.base = top;
    this.setLimit(this.limitBytes);
  }

  /** The memory a run with `memoryLimitBytes` may reach, in bytes. */
  capFor(memoryLimitBytes: number): number {
    return Math.min(this.maximumBytes, this.base + memoryLimitBytes + RUN_SLACK_BYTES);
  }

  /**
   * True when this module can serve a run with `memoryLimitBytes` within its bound: the limit is in
   * its class, and the memory did not already grow past the run's cap (an earlier run with a
   * larger limit left it so).
   */
  serves(memoryLimitBytes: number): boolean {
    return memoryLimitBytes <= this.classLimitBytes && this.bytes <= this.capFor(memoryLimitBytes);
  }

  /** Caps the memory for runs with `memoryLimitBytes` from now on. */
  setLimit(memoryLimitBytes: number): void {
    this.limitBytes = memoryLimitBytes;
    this.capBytes = this.capFor(memoryLimitBytes);
  }

  /** Lifts the cap by `headroomBytes` (at most `DESCRIBE_HEADROOM_BYTES`) until `setLimit` again. */
  lift(headroomBytes: number): void {
    this.capBytes = Math.min(this.maximumBytes, this.capFor(this.limitBytes) + Math.min(headroomBytes, DESCRIBE_HEADROOM_BYTES));
  }

  /** Lets the memory grow to `bytes` (at most its maximum) until `setLimit` again: a snapshot's restore. */
  allowUpTo(bytes: number): boolean {
    if (bytes > this.maximumBytes) return false;
    this.capBytes = Math.max(this.capBytes, bytes);
    return true;
  }

  /** True when the memory grew past `RETURN_ABOVE_BYTES` over its base: drop this module (and its thread). */
  grownPastReturn(): boolean {
    return this.bytes > this.base + RETURN_ABOVE_BYTES;
  }
}
