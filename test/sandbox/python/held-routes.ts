/**
 * Python expressions for tests that attack the worker's JavaScript side. `js`, `pyodide` and
 * `_pyodide_core` cannot be imported (import-seal.ts), but the runtime still holds Pyodide's
 * `pyodide.ffi` module (its event loop uses it), and `gc.get_objects()` hands it out: the
 * route a hostile program has left to JavaScript values, so the tests of the reset, the images
 * and the realm attack through it.
 */

/** `pyodide.ffi`, found through the collector (single quotes inside). */
export const HELD_FFI = "next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi')";

/** The realm's `Function` constructor, reached from a converted value (was `js.setTimeout.constructor`). */
export const HELD_FUNCTION = `${HELD_FFI}.to_js([]).constructor.constructor`;

/** A module the runtime still holds though it cannot be imported (`pyodide.code`, `_pyodide_core`), found through the collector. */
export function heldModule(name: string): string {
  return `next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == '${name}')`;
}
