// Are the addresses of objects made after load the same in every process? (An in-place restore
// into a prestarted, hardened interpreter needs the worker's PyProxies to point at the same objects.)
import { load, OUT } from "./lib.ts";
const py = await load({ snapshot: Deno.readFileSync(`${OUT}base.snap`), makeSnapshot: true, deserializer: () => Object.freeze({}) });
const ids = py.runPython(`
import types, random, json
_rt = types.ModuleType('_cs_runtime')
exec("def entry(x):\\n    return x", _rt.__dict__)
str([id(_rt), id(_rt.__dict__), id(_rt.entry), id(random._inst), random.random()])
`);
console.log(String(ids));
Deno.exit(0);
