/**
 * The pristine interpreter a pool run starts from, and its restoration in place.
 *
 * What a run can change is (a) the WebAssembly instance: its memory, its mutable globals and
 * its tables, and (b) JavaScript objects, which WebAssembly reaches only through its imports.
 * The worker resets in place only runs whose every import call was on the closed list of
 * pure-imports.ts (anything else replaces the worker). So the reset restores:
 * - the whole linear memory, byte for byte (a run that grew it is never reset: growth is not on
 *   the list, and memory cannot shrink), from a copy without its all-zero pages (about half);
 * - every mutable global: `__stack_pointer` (exported), the stack limits and `tempRet0` (not
 *   exported: read and written through their exported accessors), and the 280 imported GOT
 *   globals;
 * - the function table (its length and every entry are compared; a change means no reset) and
 *   the baseline entries of Pyodide's JS reference table (hiwire);
 * - property by property, the only JavaScript objects the listed imports write: Module, its
 *   API, FS, SYSCALLS, the descriptor table and its baseline streams (with their shared
 *   position/flags record) and nodes.
 * Every function used after user code started was captured here, before it.
 *
 * Runs inside the Deno worker.
 */

import { defineProperty, deleteProperty, getOwnPropertyDescriptor, isArray, lengthGetter, ownKeys, ReflectApply, TypedArrayFill, TypedArraySet, TypedArraySubarray, Uint8ArrayCtor } from "./primordials.js";

/** The parts of Pyodide's Emscripten module the baseline needs. */
export interface BaselineModule {
  HEAPU8: Uint8Array;
  wasmTable: { length: number; get(index: number): unknown };
  ___stack_pointer: { value: number };
  _emscripten_stack_get_base(): number;
  _emscripten_stack_get_end(): number;
  _emscripten_stack_set_limits(base: number, end: number): void;
  _getTempRet0(): number;
  _setTempRet0(value: number): void;
  __hiwire_slot_info(index: number): number;
  __hiwire_get(index: number): unknown;
  __hiwire_set(index: number, value: unknown): number;
  FS: Record<string, unknown> & { streams: Array<Record<string, unknown> | null | undefined> };
  SYSCALLS: Record<string, unknown>;
}

/** Hiwire slots looked at: the baseline holds a handful of references among the first ones. */
const CHECKED_SLOTS = 1024;

const BigUint64ArrayCtor = BigUint64Array;

/** Granularity of the sparse copy of the memory: a page is kept only when it is not all zero. */
const PAGE = 4096;

/**
 * The memory at baseline, without its all-zero pages (about half of a ready interpreter's
 * 31 MB): `segments` are [start, end, offset in `data` or -1 for zeros], merged into runs.
 */
interface SparseHeap {
  bytes: number;
  data: Uint8Array;
  segments: Int32Array;
  count: number;
}

function sparseCopy(live: Uint8Array): SparseHeap {
  const bytes = ReflectApply(lengthGetter, live, []) as number;
  // Read 8 bytes at a time: `bytes` is a multiple of the WebAssembly page (64 KiB).
  const words = new BigUint64ArrayCtor(live.buffer, live.byteOffset, bytes / 8);
  const pages = Math.ceil(bytes / PAGE);
  const zero: boolean[] = [];
  let dataBytes = 0;
  for (let page = 0; page < pages; page++) {
    let isZero = true;
    for (let w = (page * PAGE) / 8, end = Math.min(bytes, (page + 1) * PAGE) / 8; w < end; w++) {
      if (words[w] !== 0n) {
        isZero = false;
        break;
      }
    }
    zero.push(isZero);
    if (!isZero) dataBytes += Math.min(bytes, (page + 1) * PAGE) - page * PAGE;
  }
  const data = new Uint8ArrayCtor(dataBytes);
  const segments: number[] = [];
  let offset = 0;
  for (let page = 0; page < pages; ) {
    const kind = zero[page];
    let last = page;
    while (last + 1 < pages && zero[last + 1] === kind) last += 1;
    const start = page * PAGE;
    const end = Math.min(bytes, (last + 1) * PAGE);
    if (kind) segments.push(start, end, -1);
    else {
      ReflectApply(TypedArraySet, data, [ReflectApply(TypedArraySubarray, live, [start, end]), offset]);
      segments.push(start, end, offset);
      offset += end - start;
    }
    page = last + 1;
  }
  return { bytes, data, segments: Int32Array.from(segments), count: segments.length };
}

function restoreSparse(live: Uint8Array, heap: SparseHeap): void {
  const { data, segments, count } = heap;
  for (let i = 0; i < count; i += 3) {
    const start = segments[i]!;
    const end = segments[i + 1]!;
    const offset = segments[i + 2]!;
    if (offset < 0) ReflectApply(TypedArrayFill, live, [0, start, end]);
    else ReflectApply(TypedArraySet, live, [ReflectApply(TypedArraySubarray, data, [offset, offset + (end - start)]), start]);
  }
}

/** One object's own properties at baseline, to put back after a run. */
interface ObjectShape {
  target: object;
  keys: Array<string | symbol>;
  descriptors: Map<string | symbol, PropertyDescriptor>;
}

function shapeOf(target: object): ObjectShape {
  const keys = ownKeys(target);
  const descriptors = new Map<string | symbol, PropertyDescriptor>();
  for (const key of keys) descriptors.set(key, getOwnPropertyDescriptor(target, key)!);
  return { target, keys, descriptors };
}

function sameDescriptor(a: PropertyDescriptor, b: PropertyDescriptor): boolean {
  return a.value === b.value && a.get === b.get && a.set === b.set && a.writable === b.writable && a.enumerable === b.enumerable && a.configurable === b.configurable;
}

/** Puts an object's own properties back as they were; false if that was impossible. */
function restoreShape(shape: ObjectShape): boolean {
  const { target, descriptors } = shape;
  for (const key of ownKeys(target)) {
    if (!descriptors.has(key) && !deleteProperty(target, key)) return false;
  }
  // `length` last: for arrays it truncates what the loop above did not.
  let length: PropertyDescriptor | undefined;
  for (const [key, descriptor] of descriptors) {
    if (key === "length") {
      length = descriptor;
      continue;
    }
    const now = getOwnPropertyDescriptor(target, key);
    if (now === undefined || !sameDescriptor(now, descriptor)) {
      if (!defineProperty(target, key, descriptor)) return false;
    }
  }
  if (length) {
    const now = getOwnPropertyDescriptor(target, "length");
    if (now === undefined || !sameDescriptor(now, length)) {
      if (!defineProperty(target, "length", length)) return false;
    }
  }
  // Key order is observable (Object.keys): a property deleted and added back moved to the end.
  const keys = ownKeys(target);
  let sameOrder = keys.length === shape.keys.length;
  for (let i = 0; sameOrder && i < keys.length; i++) sameOrder = keys[i] === shape.keys[i];
  if (!sameOrder && !isArray(target)) {
    for (const key of shape.keys) if (!deleteProperty(target, key)) return false;
    for (const key of shape.keys) if (!defineProperty(target, key, descriptors.get(key)!)) return false;
  }
  return true;
}

/** A pristine interpreter's state, and the way back to it. */
export interface InterpreterBaseline {
  /** Restores the baseline in place; returns why it could not (then the worker must go), or "". */
  restore(): string;
  /** Bytes of WebAssembly memory at baseline. */
  readonly heapBytes: number;
}

/**
 * Captures the baseline of a ready interpreter. `objects` are the extra JavaScript objects to
 * restore property by property (Pyodide's API object); `got` are the imported GOT globals.
 *
 * @example
 * const baseline = captureBaseline(module, [api], gotGlobals);
 * // after a pure run:
 * const miss = baseline.restore(); // "" when the interpreter is pristine again
 */
export function captureBaseline(module: BaselineModule, objects: readonly object[], got: ReadonlyArray<{ value: unknown }>): InterpreterBaseline {
  const heapOf = () => module.HEAPU8;
  const heap = sparseCopy(heapOf());
  const heapBytes = heap.bytes;
  const stackPointer = module.___stack_pointer;
  const stackPointerValue = stackPointer.value;
  const getBase = module._emscripten_stack_get_base;
  const getEnd = module._emscripten_stack_get_end;
  const setLimits = module._emscripten_stack_set_limits;
  const getTempRet = module._getTempRet0;
  const setTempRet = module._setTempRet0;
  const stackBase = getBase();
  const stackEnd = getEnd();
  const tempRet = getTempRet();
  const gotValues = got.map((global) => global.value);
  const table = module.wasmTable;
  const tableLength = table.length;
  const tableGet = table.get;
  const tableEntries: unknown[] = [];
  for (let i = 0; i < tableLength; i++) tableEntries.push(ReflectApply(tableGet, table, [i]));
  const slotInfo = module.__hiwire_slot_info;
  const hiwireGet = module.__hiwire_get;
  const hiwireSet = module.__hiwire_set;
  const slots: Array<[number, unknown]> = [];
  for (let i = 0; i < CHECKED_SLOTS; i++) if ((slotInfo(i) & 1) === 1) slots.push([i, hiwireGet(i)]);

  // The JavaScript objects the allowed imports write (see pure-imports.ts).
  const fs = module.FS;
  const streams = fs.streams;
  const shapes: ObjectShape[] = [shapeOf(module), shapeOf(fs), shapeOf(module.SYSCALLS), shapeOf(streams)];
  for (const object of objects) shapes.push(shapeOf(object));
  for (const stream of streams) {
    if (stream === null || typeof stream !== "object") continue;
    shapes.push(shapeOf(stream));
    // FSStream keeps flags and position in `shared` (behind prototype accessors).
    const shared = stream.shared;
    if (shared !== null && typeof shared === "object") shapes.push(shapeOf(shared));
    const node = stream.node;
    if (node !== null && typeof node === "object") shapes.push(shapeOf(node));
  }

  return {
    heapBytes,
    restore(): string {
      const live = heapOf();
      if ((ReflectApply(lengthGetter, live, []) as number) !== heapBytes) return "memory grew";
      if (table.length !== tableLength) return "function table grew";
      for (let i = 0; i < tableLength; i++) {
        if (ReflectApply(tableGet, table, [i]) !== tableEntries[i]) return "function table changed";
      }
      restoreSparse(live, heap);
      stackPointer.value = stackPointerValue;
      if (getBase() !== stackBase || getEnd() !== stackEnd) setLimits(stackBase, stackEnd);
      if (getTempRet() !== tempRet) setTempRet(tempRet);
      for (let i = 0; i < got.length; i++) if (got[i]!.value !== gotValues[i]) got[i]!.value = gotValues[i];
      for (let i = 0; i < slots.length; i++) hiwireSet(slots[i]![0], slots[i]![1]);
      for (let i = 0; i < shapes.length; i++) if (!restoreShape(shapes[i]!)) return "a JavaScript object could not be restored";
      return "";
    },
  };
}
