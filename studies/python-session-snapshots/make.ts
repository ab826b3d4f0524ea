// Makes memory snapshots after user code ran and measures them (question 1).
// Usage: deno.sh make.ts state|long
import { compress, jsGlobals, kib, load, now, OUT, pageDelta, sparse } from "./lib.ts";
import { BIG_CHECK, CHECK, LONG_CHECK, longCell, STATE_CELL } from "./cells.ts";

const mode = Deno.args[0] ?? "state";
const report: Record<string, unknown> = { mode };

let t = now();
const py = await load({ makeSnapshot: true });
report.loadMs = now() - t;

// The pristine snapshot of this very configuration (what a delta is taken against).
t = now();
const base = py.makeMemorySnapshot();
report.baseSnapshot = { bytes: base.length, makeMs: now() - t };
Deno.writeFileSync(`${OUT}base.snap`, base);

// The host bridge's JS object, held by Python as in the worker (`_cs_hooks` in a runtime namespace).
const hooks = Object.freeze({ hostCall: (name: string) => `host:${name}` });
const runtime = py.runPython("import types as _t\n_rt = _t.ModuleType('_cs_runtime')\nimport sys; sys.modules['_cs_runtime_probe'] = _rt\n_rt.__dict__") as { set(k: string, v: unknown): void };
runtime.set("_cs_hooks", hooks);
const serializer = (obj: unknown) => {
  if (obj === hooks) return { capability: "hooks" };
  throw new Error(`refused by our serializer: ${Object.prototype.toString.call(obj)} ${typeof obj === "function" ? (obj as { name: string }).name : ""}`);
};

const refusals: Record<string, string> = {};
const attempt = (name: string, make: () => Uint8Array) => {
  try {
    const b = make();
    refusals[name] = `made (${b.length} bytes)`;
  } catch (e) {
    refusals[name] = String(e instanceof Error ? e.message : e).split("\n")[0]!;
  }
};
attempt("host-bridge object, no serializer", () => py.makeMemorySnapshot());

t = now();
if (mode === "state") py.runPython(STATE_CELL);
else if (mode === "big") py.runPython("import os\nblob = bytearray(os.urandom(40 * 1024 * 1024))  # incompressible, near the 64 MiB default limit\nnums = list(range(300000))");
else for (let i = 0; i < 200; i++) py.runPython(longCell(i));
report.userCodeMs = now() - t;

t = now();
const snap = py.makeMemorySnapshot({ serializer });
report.snapshot = { bytes: snap.length, makeMs: now() - t, heapBytes: (py as unknown as { _module: { HEAP8: Int8Array } })._module.HEAP8.length, baseHeapBytes: base.length };
Deno.writeFileSync(`${OUT}${mode}.snap`, snap);

for (const format of ["gzip", "deflate-raw"] as const) {
  const c = await compress(snap, format);
  report[format] = { bytes: c.bytes.length, ms: c.ms };
  if (format === "deflate-raw") Deno.writeFileSync(`${OUT}${mode}.snap.deflate`, c.bytes);
}
report.sparse = sparse(snap);
const d = pageDelta(base, snap);
const dz = await compress(d.delta, "deflate-raw");
Deno.writeFileSync(`${OUT}${mode}.delta.deflate`, dz.bytes);
report.deltaVsBase = { changedPages: d.changed, of: d.pages, bytes: d.delta.length, ms: d.ms, deflateBytes: dz.bytes.length, deflateMs: dz.ms };

// What the live session answers right after the snapshot (the restore must answer the same).
const expected = String(py.runPython(mode === "state" ? CHECK : mode === "big" ? BIG_CHECK : LONG_CHECK));
Deno.writeFileSync(`${OUT}${mode}.expected.json`, new TextEncoder().encode(expected));
report.expected = JSON.parse(expected);

if (mode === "state") {
  // What makeMemorySnapshot refuses, one thing at a time.
  py.runPython("from pyodide.ffi import to_js\n_js_obj = to_js({'a': 1})");
  attempt("a JS object held by Python (to_js dict)", () => py.makeMemorySnapshot({ serializer }));
  const clean = "import gc; [globals().pop(_n, None) for _n in ('_js_obj', '_t', '_p')]; gc.collect()";
  py.runPython(clean);
  attempt("after deleting it", () => py.makeMemorySnapshot({ serializer }));
  py.runPython("import js\n_t = js.setTimeout");
  attempt("a jsglobals function held by Python (js.setTimeout; our jsglobals is frozen)", () => py.makeMemorySnapshot({ serializer }));
  py.runPython(clean);
  py.runPython("import js\n_p = js.setTimeout.constructor");
  attempt("a JS constructor reached from jsglobals (setTimeout.constructor)", () => py.makeMemorySnapshot({ serializer }));
  py.runPython(clean);
  attempt("after deleting them", () => py.makeMemorySnapshot({ serializer }));
  py.runPython("import js\nfrom pyodide.ffi import create_proxy\n_tid = js.setTimeout(create_proxy(lambda: None), 600000)\ndel js");
  attempt("a pending JS timer holding a Python callback (nothing JS held by Python)", () => py.makeMemorySnapshot({ serializer }));
  py.runPython("import asyncio\n_fut = asyncio.ensure_future(asyncio.sleep(600))");
  attempt("a pending asyncio task (asyncio.sleep)", () => py.makeMemorySnapshot({ serializer }));
  const fresh = await load({});
  attempt("interpreter loaded without _makeSnapshot (as the worker loads)", () => fresh.makeMemorySnapshot());
}
report.refusals = refusals;
void jsGlobals;
console.log(JSON.stringify(report, null, 1));
Deno.exit(0); // pending timers of the refusal tests
void kib;
