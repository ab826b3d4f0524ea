/**
 * Takes Pyodide's JavaScript API and the interpreter's raw memory out of Python's reach.
 *
 * - Pyodide registers its API as the module `pyodide_js`; through it (`pyodide_js._module.HEAPU8`)
 *   a program could read and write the whole memory of its interpreter.
 * - `PyProxy.getBuffer()` (reachable from Python as `create_proxy(bytearray(1)).getBuffer()`)
 *   answers with a typed array over the WebAssembly memory itself, whose `.buffer` is all of it.
 *
 * With the memory a program could rewrite the tests' code objects, or the task whose state is
 * the run's outcome. The worker drives the interpreter through its own reference to the API,
 * never through Python, and nothing of a run needs either.
 *
 * Runs inside the Deno worker, once, before the baseline.
 */

/** What this needs of Pyodide. */
export interface ApiOwner {
  unregisterJsModule(name: string): void;
  /** Evaluates Python in the runtime's namespace (not `__main__`). */
  evaluate(code: string): unknown;
}

/** The modules Pyodide made of its API: the registered one and its submodule once imported. */
const API_MODULES = ["pyodide_js", "pyodide_js._api"] as const;

/** Unregisters `pyodide_js`, drops its modules, and makes `getBuffer` refuse (see above). */
export function closePyodideApi(py: ApiOwner): void {
  py.unregisterJsModule("pyodide_js");
  // Popped from sys.modules, each module is still held in a cycle (its spec's JsLoader holds
  // the module): cut the loaders' references and collect. (That no Python object is left
  // holding the API is checked by test/sandbox/python/outcomes.test.ts, not at every start.)
  py.evaluate(`
import sys as _s, gc as _g
_popped = [_s.modules.pop(_name, None) for _name in ${JSON.stringify(API_MODULES)}]
for _o in _g.get_objects():
    if type(_o).__name__ == 'JsLoader' and any(getattr(_o, 'jsproxy', None) is _m for _m in _popped if _m is not None):
        _o.jsproxy = None
del _s, _popped, _o
_g.collect()
del _g
`);
  const sample = py.evaluate("bytearray(1)") as object & { destroy(): void };
  try {
    let owner: object | null = sample;
    while (owner !== null && !Object.prototype.hasOwnProperty.call(owner, "getBuffer")) owner = Object.getPrototypeOf(owner) as object | null;
    if (owner === null) throw new Error("PyProxy.getBuffer was not found: Pyodide changed, check pyodide-api.ts");
    Object.defineProperty(owner, "getBuffer", {
      value: function getBuffer(): never {
        throw new Error("getBuffer() is not available in the sandbox (it would expose the interpreter's memory): use bytes(...) or to_js(...) for a copy");
      },
      writable: false,
      configurable: false,
      enumerable: false,
    });
  } finally {
    sample.destroy();
  }
}
