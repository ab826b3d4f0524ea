// Restore into an interpreter started ahead (the middleware prestarts one): the thread's heap is
// written over a pristine interpreter's in place, as interpreter-baseline.ts does for pool runs.
// Usage: deno.sh inplace.ts long|state raw|delta
import { applyDelta, decompress, heapOffset, load, now, OUT } from "./lib.ts";
import { BIG_CHECK, CHECK, LONG_CHECK } from "./cells.ts";

const [mode = "long", source = "raw"] = Deno.args;
const hooks = Object.freeze({ hostCall: (name: string) => `host:${name}` });
const caps: Record<string, unknown> = { hooks, "hooks.hostCall": hooks.hostCall };
const t0 = now();
const py = await load({ snapshot: Deno.readFileSync(`${OUT}base.snap`), makeSnapshot: true, deserializer: (o) => caps[(o as { capability: string }).capability] });
const prestartMs = now() - t0;

type M = { growMemory(size: number): number | undefined; HEAP8: Int8Array; HEAPU8: Uint8Array; __hiwire_set(i: number, v: unknown): number; __hiwire_get(i: number): unknown; __hiwire_immortal_add(s: string): void; __hiwire_immortal_get(i: number): unknown };
const m = (py as unknown as { _module: M })._module;
const t1 = now();
const snap = source === "raw" ? Deno.readFileSync(`${OUT}${mode}.snap`) : applyDelta(Deno.readFileSync(`${OUT}base.snap`), await decompress(Deno.readFileSync(`${OUT}${mode}.delta.deflate`), "deflate-raw"));
const readMs = now() - t1;
const t2 = now();
const off = heapOffset(snap);
const headerLen = new DataView(snap.buffer, snap.byteOffset).getUint32(8, true);
const header = JSON.parse(new TextDecoder().decode(snap.subarray(48, 48 + headerLen))) as { hiwireKeys: Array<null | { path?: string[]; serialized?: unknown; API?: true }>; immortalKeys: string[] };
const heap = snap.subarray(off);
// Pyodide's own restore cannot do this (its build ignores INITIAL_MEMORY): grow first.
let grewMs = 0;
if (heap.length > m.HEAPU8.length) {
  const tg = now();
  if (!m.growMemory(heap.length)) throw new Error("growMemory refused");
  grewMs = now() - tg;
}
if (heap.length !== m.HEAPU8.length) throw new Error(`heap sizes differ: ${heap.length} vs ${m.HEAPU8.length}`);
m.HEAPU8.set(heap);
// Hiwire slots after the 7 expected ones, as Pyodide's syncUpSnapshotLoad2 sets them.
header.hiwireKeys.forEach((k, i) => {
  const v = k === null ? null : k.serialized !== undefined ? caps[(k.serialized as { capability: string }).capability] : k.API ? (py as unknown as { _api: unknown })._api : null;
  m.__hiwire_set(7 + i, v);
});
let immortals = 0;
for (let i = 7; ; i++) { try { m.__hiwire_immortal_get(i); immortals++; } catch { break; } }
header.immortalKeys.slice(immortals).forEach((s) => m.__hiwire_immortal_add(s));
const writeMs = now() - t2;
const t3 = now();
let answer: string;
try {
  answer = String(py.runPython(mode === "state" ? CHECK : mode === "big" ? BIG_CHECK : LONG_CHECK));
} catch (e) {
  answer = `FAILED: ${String(e).slice(0, 300)}`;
}
const firstCellMs = now() - t3;
const expected = new TextDecoder().decode(Deno.readFileSync(`${OUT}${mode}.expected.json`));
console.log(JSON.stringify({ mode, source, grewMs, prestartMs, readMs, writeMs, firstCellMs, restoreAfterPrestartMs: readMs + writeMs + firstCellMs, hiwireKeys: header.hiwireKeys.length, same: answer === expected, answer: answer.slice(0, 400) }));
Deno.exit(0);
