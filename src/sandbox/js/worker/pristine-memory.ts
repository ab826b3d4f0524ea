/**
 * A pool worker's WebAssembly memory as it was before any run (taken once the engine is warm and
 * no runtime is alive), and its restoration after each run, byte for byte. A pool worker serves
 * every run from one memory; a run's freed strings stay in it, and a memory-safety bug of the
 * engine may read (or write) anywhere in it. Restored, the next run's memory holds nothing any
 * earlier run left, whatever that run read or wrote: the allocator's state, the C stack, the
 * engine's static data and the heap are the pristine ones. The memory's only mutable global (the
 * C stack pointer) is back at its base between calls. Memory cannot shrink: pages a run grew it
 * by are zeroed, as fresh ones are (the worker replaces a grown instance instead, see `grown`).
 */
import type { QuickJSWASMModule } from "quickjs-emscripten-core";
import { emscriptenOf } from "./engine-internals.js";

/** Bytes compared and restored at once: a WebAssembly page, so a memory is a whole number of them. */
const SPAN_BYTES = 64 * 1024;
const ZERO_SPAN = Buffer.alloc(SPAN_BYTES);

/** The memory of one QuickJS module before any run, and its restoration. */
export class PristineMemory {
  private constructor(
    private readonly module: QuickJSWASMModule,
    /** A copy of every span that is not all zeros, by span number (undefined: zeros). */
    private readonly spans: readonly (Buffer | undefined)[],
    /** The memory's size when taken. */
    private readonly bytes: number,
  ) {}

  /** The memory of `module` now: call it when no runtime of the module is alive. */
  static take(module: QuickJSWASMModule): PristineMemory {
    const memory = memoryOf(module);
    const spans: (Buffer | undefined)[] = [];
    for (let offset = 0; offset < memory.byteLength; offset += SPAN_BYTES) {
      const span = memory.subarray(offset, offset + SPAN_BYTES);
      spans.push(span.equals(ZERO_SPAN) ? undefined : Buffer.from(span));
    }
    return new PristineMemory(module, spans, memory.byteLength);
  }

  /**
   * True when the memory is larger than when it was taken. Comparing memory a run wrote costs
   * memory bandwidth (one-line runs became several times slower after a run grew the memory
   * tens of MiB), so the worker starts a new instance instead of restoring a grown one.
   */
  grown(): boolean {
    return memoryOf(this.module).byteLength > this.bytes;
  }

  /**
   * Puts every byte of the memory back as it was taken (zeros past it); call it when no runtime
   * of the module is alive. Returns the number of 64 KiB spans that differed.
   */
  restore(): number {
    const memory = memoryOf(this.module);
    let written = 0;
    for (let i = 0, offset = 0; offset < memory.byteLength; i++, offset += SPAN_BYTES) {
      const pristine = this.spans[i] ?? ZERO_SPAN;
      const span = memory.subarray(offset, offset + SPAN_BYTES);
      if (span.equals(pristine)) continue;
      span.set(pristine);
      written++;
    }
    return written;
  }
}

/** The whole linear memory of `module`, as a Buffer over it (Emscripten renews its view when the memory grows). */
function memoryOf(module: QuickJSWASMModule): Buffer {
  const heap = emscriptenOf(module).HEAPU8;
  if (heap.byteLength % SPAN_BYTES !== 0) throw new Error(`the engine's memory is ${heap.byteLength} bytes, not a whole number of WebAssembly pages`);
  return Buffer.from(heap.buffer, heap.byteOffset, heap.byteLength);
}
