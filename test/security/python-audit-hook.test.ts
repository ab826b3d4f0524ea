/**
 * `sys.addaudithook` is gone before any guest code runs (import-seal.ts): nothing of the sandbox
 * adds an audit hook, and one a program added could not be removed and saw the worker's own exec
 * of the tests. No route finds it: the sys module, `sys.__dict__`, the collector, a sys module
 * made again from CPython's kept copy, `importlib.reload`.
 */
import { describe, expect, it } from "vitest";
import { options, useWarmPythonEngine } from "../sandbox/python/support.js";

const engine = useWarmPythonEngine();

const ROUTES = `
import sys, gc, importlib, importlib.machinery, _imp
found = []
if hasattr(sys, "addaudithook"):
    found.append("sys.addaudithook")
if "addaudithook" in sys.__dict__:
    found.append("sys.__dict__")
for o in gc.get_objects():
    if type(o) is dict and "addaudithook" in o:
        found.append("a dict of the collector")
    if type(o).__name__ == "builtin_function_or_method" and getattr(o, "__name__", "") == "addaudithook":
        found.append("the function, through gc")
try:
    again = _imp.create_builtin(importlib.machinery.ModuleSpec("sys", None))
    if hasattr(again, "addaudithook"):
        found.append("_imp.create_builtin")
except BaseException:
    pass
try:
    if hasattr(importlib.reload(sys), "addaudithook"):
        found.append("importlib.reload")
except BaseException:
    pass
found
`;

describe("Python: no audit hook can be added", { timeout: 120_000 }, () => {
  it("finds sys.addaudithook through no route, run after run", async () => {
    for (let i = 0; i < 2; i++) {
      const r = await engine.run(ROUTES, options({ timeoutMs: 30_000 }));
      expect(r.error).toBeUndefined();
      expect(r.result).toEqual([]);
    }
  });

  it("a program that tries to add one gets AttributeError; sys.audit still works", async () => {
    const r = await engine.run("import sys\nsys.addaudithook(lambda *a: None)", options());
    expect(r.status).toBe("runtime_error");
    expect(r.error?.name).toBe("AttributeError");
    const audit = await engine.run("import sys\nsys.audit('cs.event', 1)\n'ok'", options());
    expect(audit.result).toBe("ok");
  });
});
