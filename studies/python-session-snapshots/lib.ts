// Shared helpers of the study scripts (plain Deno, no sandbox code).
import { loadPyodide, type PyodideAPI } from "../node_modules/pyodide/pyodide.mjs";

export const PYODIDE_DIR = new URL("../node_modules/pyodide/", import.meta.url).pathname;
export const OUT = new URL("./out/", import.meta.url).pathname;

/** Like the worker's jsglobals: a frozen object with timers only. */
export const jsGlobals = Object.freeze({
  setTimeout: globalThis.setTimeout.bind(globalThis),
  clearTimeout: globalThis.clearTimeout.bind(globalThis),
  setInterval: globalThis.setInterval.bind(globalThis),
  clearInterval: globalThis.clearInterval.bind(globalThis),
});

export interface LoadOptions {
  snapshot?: Uint8Array;
  makeSnapshot?: boolean;
  deserializer?: (obj: unknown) => unknown;
}

export async function load(o: LoadOptions = {}): Promise<PyodideAPI> {
  return await loadPyodide({
    indexURL: PYODIDE_DIR,
    env: { HOME: "/home/pyodide", PYTHONHASHSEED: "0" },
    jsglobals: jsGlobals,
    ...(o.snapshot ? { _loadSnapshot: o.snapshot } : {}),
    ...(o.makeSnapshot ? { _makeSnapshot: true } : {}),
    ...(o.deserializer ? { _snapshotDeserializer: o.deserializer } : {}),
  } as never);
}

export function now(): number {
  return performance.now();
}

export async function compress(bytes: Uint8Array, format: "gzip" | "deflate-raw"): Promise<{ bytes: Uint8Array; ms: number }> {
  const t = now();
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream(format));
  const out = new Uint8Array(await new Response(stream).arrayBuffer());
  return { bytes: out, ms: now() - t };
}

export async function decompress(bytes: Uint8Array, format: "gzip" | "deflate-raw"): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream(format));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const PAGE = 4096;

/** Non-zero 4 KiB pages of `bytes` (as the pool baseline's sparse copy keeps them). */
export function sparse(bytes: Uint8Array): { pages: number; nonZero: number; bytes: number; ms: number } {
  const t = now();
  const pages = Math.ceil(bytes.length / PAGE);
  let nonZero = 0;
  for (let p = 0; p < pages; p++) {
    const end = Math.min(bytes.length, (p + 1) * PAGE);
    for (let i = p * PAGE; i < end; i++) {
      if (bytes[i] !== 0) {
        nonZero++;
        break;
      }
    }
  }
  return { pages, nonZero, bytes: nonZero * PAGE, ms: now() - t };
}

/** Pyodide's snapshot layout: a JSON header of u32[1] bytes, then the whole heap. */
export function heapOffset(snap: Uint8Array): number {
  return new DataView(snap.buffer, snap.byteOffset, snap.byteLength).getUint32(4, true);
}

/**
 * A delta of snapshot `next` against snapshot `base`, in whole 4 KiB pages of the heap (the
 * headers differ in length, so heaps are compared at their own offsets):
 * [u32 header bytes][header][u32 heap bytes] then records [u32 page][u32 length][bytes].
 */
export function pageDelta(base: Uint8Array, next: Uint8Array): { delta: Uint8Array; changed: number; pages: number; ms: number } {
  const t = now();
  const bh = base.subarray(heapOffset(base));
  const header = next.subarray(0, heapOffset(next));
  const nh = next.subarray(heapOffset(next));
  const pages = Math.ceil(nh.length / PAGE);
  const chunks: Uint8Array[] = [];
  let changed = 0;
  const b64 = new BigUint64Array(bh.buffer.slice(bh.byteOffset, bh.byteOffset + bh.length - (bh.length % 8)));
  const n64 = new BigUint64Array(nh.buffer.slice(nh.byteOffset, nh.byteOffset + nh.length - (nh.length % 8)));
  for (let p = 0; p < pages; p++) {
    const s = p * PAGE;
    const e = Math.min(nh.length, s + PAGE);
    let same = e <= bh.length;
    if (same) for (let i = s / 8; i < e / 8; i++) if (b64[i] !== n64[i]) { same = false; break; }
    if (same) continue;
    changed++;
    const rec = new Uint8Array(8 + (e - s));
    const v = new DataView(rec.buffer);
    v.setUint32(0, p, true);
    v.setUint32(4, e - s, true);
    rec.set(nh.subarray(s, e), 8);
    chunks.push(rec);
  }
  const total = chunks.reduce((n, c) => n + c.length, 8 + header.length);
  const delta = new Uint8Array(total);
  const dv = new DataView(delta.buffer);
  dv.setUint32(0, header.length, true);
  delta.set(header, 4);
  dv.setUint32(4 + header.length, nh.length, true);
  let off = 8 + header.length;
  for (const c of chunks) { delta.set(c, off); off += c.length; }
  return { delta, changed, pages, ms: now() - t };
}

/** Rebuilds the snapshot from `base` and a delta of pageDelta. */
export function applyDelta(base: Uint8Array, delta: Uint8Array): Uint8Array {
  const view = new DataView(delta.buffer, delta.byteOffset, delta.byteLength);
  const headerBytes = view.getUint32(0, true);
  const heapBytes = view.getUint32(4 + headerBytes, true);
  const out = new Uint8Array(headerBytes + heapBytes);
  out.set(delta.subarray(4, 4 + headerBytes), 0);
  const bh = base.subarray(heapOffset(base));
  out.set(bh.subarray(0, Math.min(heapBytes, bh.length)), headerBytes);
  let off = 8 + headerBytes;
  while (off < delta.length) {
    const p = view.getUint32(off, true);
    const n = view.getUint32(off + 4, true);
    out.set(delta.subarray(off + 8, off + 8 + n), headerBytes + p * PAGE);
    off += 8 + n;
  }
  return out;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export function kib(n: number): string {
  return `${(n / 1024).toFixed(0)} KiB`;
}
