/**
 * A pristine image of a pool worker's context: a runtime + context made once, with what every run
 * preloads (the prelude's dispatcher, `console`), taken as the module's WebAssembly memory and the
 * JavaScript-side state beside it (js-side-state.ts). Each fresh run starts from that context put
 * back in place: its memory byte for byte, its JavaScript-side objects property for property, and
 * its `Math.random` state seeded anew, as a new context's is. A run is then served by a context no
 * earlier run has touched, without making one or disposing one.
 *
 * What a restore covers: memory is compared with the image and written back span by span, from
 * address 0 up to the allocator's break (the top of every allocation the engine ever made, see
 * `findBreakWord`); memory above the break is never handed out, so correct engine code never
 * writes there. When the break cannot be found, the whole memory is compared. Memory that grew is
 * not restored: the worker starts a new instance and a new image (as isolation "module" does).
 */
import type { QuickJSWASMModule } from "quickjs-emscripten-core";
import { emscriptenOf } from "./engine-internals.js";
import { JsSideState } from "./js-side-state.js";
import { activateRunClock, newRunClock } from "./run-clock.js";

/** Bytes compared (and written back when they differ) at once. */
const SPAN_BYTES = 16 * 1024;
const ZERO_SPAN = Buffer.alloc(SPAN_BYTES);
/** An allocation larger than any free chunk of a new context's heap: the allocator takes it from its break. */
const PROBE_BYTES = 2 * 1024 * 1024;
/** How far past the probe's end the allocator may move its break (its own headers and rounding). */
const PROBE_SLACK_BYTES = 256 * 1024;
/**
 * The clock a context is made under while its image is taken. QuickJS seeds a context's
 * `Math.random` state with the time in microseconds when the context is made; made under this
 * reading, the seed is a value found once in the memory, where each run's own seed is written.
 */
const IMAGE_CLOCK_MS = 1_234_567_890_123;
const IMAGE_SEED = BigInt(IMAGE_CLOCK_MS) * 1000n;

/** How a run's memory was put back (for tests and the bench). */
export interface RestoreReport {
  /** Spans that differed from the image and were written back. */
  written: number;
  /** Bytes compared. */
  comparedBytes: number;
}

/** The pristine context of one module, and its restoration in place. */
export class FreshImage<Context extends object> {
  private constructor(
    /** The context the image is of: the same object serves every run. */
    readonly context: Context,
    private readonly module: QuickJSWASMModule,
    private readonly heapU8: Uint8Array,
    private readonly spans: readonly (Buffer | undefined)[],
    private readonly bytes: number,
    private readonly jsState: JsSideState,
    /** Where QuickJS keeps the context's `Math.random` state. */
    private readonly seedOffset: number,
    /** Where the allocator keeps its break, when found; its value when the image was taken. */
    private readonly breakWord: { offset: number; imageValue: number } | undefined,
  ) {}

  /**
   * Makes the context with `make` (under a known clock, see IMAGE_CLOCK_MS) and takes its image,
   * or says why not (the caller then makes contexts the old way). `leaves` are objects reachable
   * from the context that are shared by the worker, not its state (js-side-state.ts).
   */
  static take<C extends object>(module: QuickJSWASMModule, make: () => C, leaves: readonly object[]): FreshImage<C> | string {
    const emscripten = emscriptenOf(module);
    activateRunClock(newRunClock(new Array<number>(64).fill(IMAGE_CLOCK_MS)));
    let context: C;
    try {
      context = make();
    } finally {
      activateRunClock(undefined);
    }
    const heap = emscripten.HEAPU8;
    const memory = Buffer.from(heap.buffer, heap.byteOffset, heap.byteLength);
    if (memory.byteLength % SPAN_BYTES !== 0) return `the engine's memory is ${memory.byteLength} bytes, not a whole number of spans`;
    const seeds = findUint64(memory, IMAGE_SEED);
    if (seeds.length !== 1) return `the context's random state was found ${seeds.length} times in its memory, not once`;
    // Only the spans that are not all zeros are kept (most of a new instance's memory is zeros).
    const spans: (Buffer | undefined)[] = [];
    for (let offset = 0; offset < memory.byteLength; offset += SPAN_BYTES) {
      const span = memory.subarray(offset, offset + SPAN_BYTES);
      spans.push(span.equals(ZERO_SPAN) ? undefined : Buffer.from(span));
    }
    const bytes = memory.byteLength;
    const breakWord = findBreakWord(module, spans);
    // The probe used the allocator: the memory goes back to the image taken before it.
    if (emscripten.HEAPU8.byteLength !== bytes) return "the engine's memory grew while its image was taken";
    const probed = Buffer.from(emscripten.HEAPU8.buffer, emscripten.HEAPU8.byteOffset, emscripten.HEAPU8.byteLength);
    spans.forEach((span, i) => {
      const offset = i * SPAN_BYTES;
      if (span) probed.set(span, offset);
      else if (!probed.subarray(offset, offset + SPAN_BYTES).equals(ZERO_SPAN)) probed.fill(0, offset, offset + SPAN_BYTES);
    });
    let jsState: JsSideState;
    try {
      jsState = JsSideState.take([context], [emscripten, ...leaves]);
    } catch (error) {
      return (error as Error).message;
    }
    const image = new FreshImage(context, module, emscripten.HEAPU8, spans, bytes, jsState, seeds[0]!, breakWord);
    // The first run is served before any restore: it gets its own seed too.
    image.seed(nowMicros());
    return image;
  }

  /** Writes the `Math.random` state a new context made now would have. */
  private seed(micros: bigint): void {
    const memory = Buffer.from(this.heapU8.buffer, this.heapU8.byteOffset, this.heapU8.byteLength);
    memory.writeBigUInt64LE(micros === 0n ? 1n : BigInt.asUintN(64, micros), this.seedOffset);
  }

  /** True when the memory is larger than the image's: the worker replaces the instance instead. */
  grown(): boolean {
    return emscriptenOf(this.module).HEAPU8.byteLength > this.bytes;
  }

  /** Why the image cannot serve `module` now (another instance, or memory that grew), if so. */
  refusal(module: QuickJSWASMModule): string | undefined {
    if (module !== this.module) return "the image is of another engine instance";
    const heap = emscriptenOf(module).HEAPU8;
    if (heap.buffer !== this.heapU8.buffer || heap.byteLength !== this.bytes) return "the engine's memory is not the image's";
    return undefined;
  }

  /**
   * Puts the context back as it was taken, with a new `Math.random` state: call it when no run is
   * in progress (nothing of the run may be used after it, and nothing of it is disposed).
   */
  restore(seedMicros = nowMicros()): RestoreReport {
    const refused = this.refusal(this.module);
    if (refused) throw new Error(`the image cannot be restored: ${refused}`);
    const memory = Buffer.from(this.heapU8.buffer, this.heapU8.byteOffset, this.heapU8.byteLength);
    const end = this.dirtyEnd(memory);
    let written = 0;
    for (let i = 0, offset = 0; offset < end; i++, offset += SPAN_BYTES) {
      const pristine = this.spans[i] ?? ZERO_SPAN;
      const span = memory.subarray(offset, offset + SPAN_BYTES);
      if (span.equals(pristine)) continue;
      span.set(pristine);
      written++;
    }
    this.jsState.restore();
    this.seed(seedMicros);
    return { written, comparedBytes: end };
  }

  /** The end of the memory a run can have written: the allocator's break, or the whole memory. */
  private dirtyEnd(memory: Buffer): number {
    if (!this.breakWord) return memory.byteLength;
    const now = memory.readUInt32LE(this.breakWord.offset);
    // A break below the image's or past the memory is not one the allocator set: compare it all.
    if (now < this.breakWord.imageValue || now > memory.byteLength) return memory.byteLength;
    return Math.min(memory.byteLength, Math.ceil(now / SPAN_BYTES) * SPAN_BYTES);
  }
}

/** The time in microseconds, as QuickJS seeds a new context's `Math.random` with it. */
function nowMicros(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000));
}

/** Offsets (8-byte aligned) of `value` as a little-endian 64-bit integer in `memory`. */
function findUint64(memory: Buffer, value: bigint): number[] {
  const needle = Buffer.alloc(8);
  needle.writeBigUInt64LE(value);
  const found: number[] = [];
  for (let at = memory.indexOf(needle); at !== -1; at = memory.indexOf(needle, at + 1)) if (at % 8 === 0) found.push(at);
  return found;
}

/**
 * The word holding the allocator's break (Emscripten's `sbrk` pointer, not exported by this
 * build), found by asking for an allocation no free chunk holds: the break is the highest of the
 * words that held an address at the heap's top and now hold one just past the new allocation, and
 * it stays there when the allocation is freed (this allocator never gives memory back, so the
 * break only rises). Undefined when no single word
 * behaves so: the whole memory is then compared.
 */
function findBreakWord(module: QuickJSWASMModule, spans: readonly (Buffer | undefined)[]): { offset: number; imageValue: number } | undefined {
  const emscripten = emscriptenOf(module);
  let last = spans.length;
  while (last > 0 && spans[last - 1] === undefined) last--;
  const top = last * SPAN_BYTES;
  const word = (offset: number): number => spans[Math.floor(offset / SPAN_BYTES)]?.readUInt32LE(offset % SPAN_BYTES) ?? 0;
  const pointer = emscripten._malloc(PROBE_BYTES);
  if (pointer === 0) return undefined;
  const allocated = Buffer.from(emscripten.HEAPU8.buffer, emscripten.HEAPU8.byteOffset, emscripten.HEAPU8.byteLength);
  const moved: [number, number, number][] = [];
  const end = pointer + PROBE_BYTES;
  for (let offset = 0; offset + 4 <= top; offset += 4) {
    const was = word(offset);
    // The break was at or above the last byte in use, and is now past the new allocation.
    if (was <= top - 2 * SPAN_BYTES || was > top) continue;
    const now = allocated.readUInt32LE(offset);
    if (now >= end && now <= end + PROBE_SLACK_BYTES) moved.push([offset, was, now]);
  }
  emscripten._free(pointer);
  const after = Buffer.from(emscripten.HEAPU8.buffer, emscripten.HEAPU8.byteOffset, emscripten.HEAPU8.byteLength);
  // The break is the highest of the words that moved (the allocator's own top chunk sits just below it).
  const highest = moved.reduce<[number, number, number] | undefined>((best, m) => (!best || m[2] > best[2] ? m : best), undefined);
  if (!highest || moved.filter((m) => m[2] === highest[2]).length !== 1) return undefined;
  if (after.readUInt32LE(highest[0]) !== highest[2]) return undefined;
  return { offset: highest[0], imageValue: highest[1] };
}
