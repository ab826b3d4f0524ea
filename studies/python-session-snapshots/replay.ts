// What we do now, in plain Deno (question 3): a fresh process starts from the pristine snapshot
// and replays the 200-cell log with runPython (no sandbox hardening, no host round trips).
import { load, now, OUT } from "./lib.ts";
import { LONG_CHECK, longCell } from "./cells.ts";

const t0 = now();
const snap = Deno.readFileSync(`${OUT}base.snap`);
const py = await load({ snapshot: snap, makeSnapshot: true, deserializer: () => Object.freeze({}) });
const loaded = now() - t0;
const t1 = now();
for (let i = 0; i < 200; i++) py.runPython(longCell(i));
const replayMs = now() - t1;
const answer = String(py.runPython(LONG_CHECK));
console.log(JSON.stringify({ startMs: loaded, replayMs, totalMs: now() - t0, answer }));
Deno.exit(0);
