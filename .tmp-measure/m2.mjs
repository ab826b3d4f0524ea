import { readFileSync } from "node:fs";
import { newQuickJSWASMModule, RELEASE_SYNC } from "quickjs-emscripten";
const q = await newQuickJSWASMModule(RELEASE_SYNC);
const { INTL_SHIM_SOURCE } = await import("../dist/src/sandbox/js/worker/intl-shim.js");
function time(label, n, f) { for (let i=0;i<5;i++) f(); const s=[]; for (let i=0;i<n;i++){const t=performance.now(); f(); s.push(performance.now()-t);} s.sort((a,b)=>a-b); console.log(label, "p50", s[n>>1].toFixed(3), "ms"); }
time("fresh runtime+context", 200, () => { const rt = q.newRuntime(); const c = rt.newContext(); c.dispose(); rt.dispose(); });
time("our shim eval+call (incl. fresh ctx)", 200, () => { const rt = q.newRuntime(); const c = rt.newContext(); const fn = c.unwrapResult(c.evalCode(INTL_SHIM_SOURCE)); const op = c.newFunction("op", () => undefined); c.unwrapResult(c.callFunction(fn, c.undefined, op)).dispose(); op.dispose(); fn.dispose(); c.dispose(); rt.dispose(); });
for (const f of ["/tmp/poly/bundle2.js"]) { const src = readFileSync(f, "utf8");
time("formatjs (no tz) eval incl ctx " + src.length, 10, () => { const rt = q.newRuntime(); const c = rt.newContext(); c.unwrapResult(c.evalCode(src)).dispose(); c.dispose(); rt.dispose(); });
const rt = q.newRuntime(); const c = rt.newContext(); const u0 = rt.dumpMemoryUsage(); c.unwrapResult(c.evalCode(src)).dispose(); const u1 = rt.dumpMemoryUsage(); console.log(u0.split("\n").slice(0,4).join("\n")); console.log(u1.split("\n").slice(0,4).join("\n")); c.dispose(); rt.dispose(); }
{ const rt = q.newRuntime(); const c = rt.newContext(); const u0 = rt.dumpMemoryUsage(); const fn = c.unwrapResult(c.evalCode(INTL_SHIM_SOURCE)); const op = c.newFunction("op", () => undefined); c.unwrapResult(c.callFunction(fn, c.undefined, op)).dispose(); op.dispose(); fn.dispose(); console.log("shim:\n"+rt.dumpMemoryUsage().split("\n").slice(0,4).join("\n")); c.dispose(); rt.dispose(); }
