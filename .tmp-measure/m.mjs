import { readFileSync } from "node:fs";
import { newQuickJSWASMModule, RELEASE_SYNC } from "quickjs-emscripten";
const q = await newQuickJSWASMModule(RELEASE_SYNC);
const src = readFileSync("/tmp/poly/bundle.js", "utf8");
const { INTL_SHIM_SOURCE } = await import("../dist/src/sandbox/js/worker/intl-shim.js");
function time(label, n, f) { for (let i=0;i<3;i++) f(); const t=performance.now(); for (let i=0;i<n;i++) f(); console.log(label, ((performance.now()-t)/n).toFixed(3), "ms"); }
time("fresh runtime+context", 50, () => { const rt = q.newRuntime(); const c = rt.newContext(); c.dispose(); rt.dispose(); });
time("formatjs polyfills (en,de) eval", 10, () => { const rt = q.newRuntime(); const c = rt.newContext(); c.unwrapResult(c.evalCode(src)).dispose(); c.dispose(); rt.dispose(); });
time("our shim eval+call", 50, () => { const rt = q.newRuntime(); const c = rt.newContext(); const fn = c.unwrapResult(c.evalCode(INTL_SHIM_SOURCE)); const op = c.newFunction("op", () => undefined); c.unwrapResult(c.callFunction(fn, c.undefined, op)).dispose(); op.dispose(); fn.dispose(); c.dispose(); rt.dispose(); });
{ const rt = q.newRuntime(); const c = rt.newContext(); const before = rt.computeMemoryUsage(); const b = c.dump(before); before.dispose(); c.unwrapResult(c.evalCode(src)).dispose(); const m = rt.computeMemoryUsage(); console.log("heap before", b.malloc_size, "after polyfills", c.dump(m).malloc_size); m.dispose();
  const r = c.evalCode(`[new Intl.DateTimeFormat('en-US',{weekday:'long', timeZone:'UTC'}).format(new Date('2024-02-29')), new Intl.NumberFormat('de-DE').format(1234567.891)]`); console.log(r.error ? c.dump(r.error) : c.dump(r.value)); (r.error||r.value).dispose();
  time("polyfill DTF construct+format", 20, () => { const r = c.unwrapResult(c.evalCode(`new Intl.DateTimeFormat('de-DE',{dateStyle:'full'}).format(0)`)); r.dispose(); });
  c.dispose(); rt.dispose(); }
