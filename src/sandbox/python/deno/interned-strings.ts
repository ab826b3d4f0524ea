/**
 * Takes the interpreter's table of interned strings out of the guest's object graph.
 *
 * CPython keeps every interned string in one dict owned by the interpreter state. In this
 * build that dict is tracked by the cycle collector, so `gc.get_objects()` hands it to any
 * program, and a program that writes a key into it (`d['name'] = 'x'`, as a search for a
 * runtime's names does) breaks an invariant the interpreter relies on: the next lookup of that
 * name reads freed memory and the interpreter dies ("table index is out of bounds"). The table
 * holds only strings, which never form cycles, so the collector has no need to see it:
 * untracking it is safe and leaves it reachable from the interpreter state alone.
 *
 * Runs inside the Deno worker, once, before the baseline (so a pool reset keeps it untracked).
 */

/** What this needs of Pyodide: running Python and the C API's GC functions. */
export interface InternedTableRuntime {
  /** Evaluates Python in the runtime's own namespace (never `__main__`). */
  evaluate(code: string): unknown;
  module: { _PyObject_GC_UnTrack(address: number): void; _PyObject_GC_IsTracked(address: number): number };
}

/**
 * Finds the table by identity (the dict whose key is a string interned just now, mapped to
 * itself) and untracks it; throws if it cannot be found or is still tracked afterwards, so a
 * Pyodide update that moves the table is noticed at start, not by a guest.
 */
export function untrackInternedStrings(py: InternedTableRuntime): void {
  // The table maps each interned string to itself; no other dict maps this new probe to itself.
  const address = Number(
    py.evaluate(
      "(lambda gc, probe: (lambda found: found[0] if len(found) == 1 else -len(found))(" +
        "[id(o) for o in gc.get_objects() if type(o) is dict and o.get(probe) is probe]))" +
        "(__import__('gc'), __import__('sys').intern(''.join(['_cs_interned_', 'probe'])))",
    ),
  );
  if (!(address > 0)) throw new Error(`the interpreter's interned-string table was not found (${address})`);
  py.module._PyObject_GC_UnTrack(address);
  if (py.module._PyObject_GC_IsTracked(address) !== 0) throw new Error("the interpreter's interned-string table is still tracked");
}
