// Restores a snapshot in this (fresh) process and checks the state (question 2).
// Usage: deno.sh restore.ts state|long raw|deflate|delta [chain]
import { applyDelta, decompress, load, now, OUT } from "./lib.ts";
import { BIG_CHECK, CHECK, LONG_CHECK } from "./cells.ts";

const [mode = "state", source = "raw", chain] = Deno.args;
const r: Record<string, unknown> = { mode, source };
const t0 = now();
let snap: Uint8Array;
if (source === "raw") snap = Deno.readFileSync(`${OUT}${mode}.snap`);
else if (source === "deflate") snap = await decompress(Deno.readFileSync(`${OUT}${mode}.snap.deflate`), "deflate-raw");
else if (source === "chain") snap = Deno.readFileSync(`${OUT}${mode}-chain.snap`);
else snap = applyDelta(Deno.readFileSync(`${OUT}base.snap`), await decompress(Deno.readFileSync(`${OUT}${mode}.delta.deflate`), "deflate-raw"));
r.readMs = now() - t0;

// The worker's host bridge object, given back for its tag (the serializer of make.ts wrote it).
const hooks = Object.freeze({ hostCall: (name: string) => `host:${name}` });
const deserializer = (obj: unknown) => {
  if ((obj as { capability?: string })?.capability === "hooks") return hooks;
  if ((obj as { capability?: string })?.capability === "hooks.hostCall") return hooks.hostCall;
  throw new Error(`unknown capability in snapshot: ${JSON.stringify(obj)}`);
};
const t1 = now();
const py = await load({ snapshot: snap, makeSnapshot: true, deserializer });
r.loadPyodideMs = now() - t1;
const t2 = now();
const got = String(py.runPython(mode === "state" ? CHECK : mode === "big" ? BIG_CHECK : LONG_CHECK));
r.firstCellMs = now() - t2;
r.restoreTotalMs = now() - t0;
const expected = new TextDecoder().decode(Deno.readFileSync(`${OUT}${mode}.expected.json`));
const a = JSON.parse(got), e = JSON.parse(expected);
const diff: Record<string, unknown> = {};
for (const k of Object.keys(e)) if (JSON.stringify(a[k]) !== JSON.stringify(e[k])) diff[k] = { live: e[k], restored: a[k] };
r.same = Object.keys(diff).length === 0;
r.diff = diff;
// The host bridge object is back and callable from Python.
r.hooks = String(py.runPython("import sys; sys.modules['_cs_runtime_probe']._cs_hooks.hostCall('ping')"));
if (chain) {
  // Restored interpreters must be able to snapshot again (a thread's next checkpoint).
  const serializer = (obj: unknown) => {
    if (obj === hooks) return { capability: "hooks" };
    if (obj === hooks.hostCall) return { capability: "hooks.hostCall" };
    throw new Error(`refused: ${Object.prototype.toString.call(obj)} name=${(obj as { name?: string }).name} src=${String(obj).slice(0, 160)}`);
  };
  py.runPython("chained = 'cell after restore'");
  try {
    py.makeMemorySnapshot({ serializer });
    r.chainBeforeGc = "made";
  } catch (err) {
    r.chainBeforeGc = String(err);
  }
  py.runPython("import gc; gc.collect()");
  const t3 = now();
  try {
    const again = py.makeMemorySnapshot({ serializer });
    r.chainSnapshot = { bytes: again.length, ms: now() - t3 };
    Deno.writeFileSync(`${OUT}${mode}-chain.snap`, again);
  } catch (err) {
    r.chainSnapshot = String(err);
  }
}
if (source === "chain") r.chained = String(py.runPython("chained"));
console.log(JSON.stringify(r));
Deno.exit(0);
