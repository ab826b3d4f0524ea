import { newQuickJSWASMModule, RELEASE_SYNC } from "quickjs-emscripten";
const q = await newQuickJSWASMModule(RELEASE_SYNC);
const { INTL_SHIM_SOURCE } = await import("../dist/src/sandbox/js/worker/intl-shim.js");
const rt = q.newRuntime(); const c = rt.newContext();
const ev=[], ca=[];
for (let i=0;i<300;i++){ let t=performance.now(); const fn = c.unwrapResult(c.evalCode(INTL_SHIM_SOURCE)); ev.push(performance.now()-t); const op = c.newFunction("op", () => undefined); t=performance.now(); c.unwrapResult(c.callFunction(fn, c.undefined, op)).dispose(); ca.push(performance.now()-t); op.dispose(); fn.dispose(); }
const st = a => { a.sort((x,y)=>x-y); return `min ${a[0].toFixed(3)} p50 ${a[a.length>>1].toFixed(3)}`; };
console.log("eval", st(ev), "call", st(ca));
