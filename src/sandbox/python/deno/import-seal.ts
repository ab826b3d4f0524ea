/**
 * Makes the modules the import policy forbids absent from the interpreter, once, before any
 * guest code runs and before the pool's baseline or a session's fresh state is taken (both then
 * hold the sealed interpreter, so a reset or a restore seals again by construction):
 *
 * - the C modules built into Pyodide's binary (`_ctypes`, `_testcapi`, `_testinternalcapi`,
 *   `_pyodide_core`, `posix`, `_socket`, `mmap`, ...) are taken out of the interpreter's table of
 *   built-in modules (`PyImport_Inittab` and the runtime's copy of it), and a single-phase one
 *   already loaded loses the copy CPython keeps to make it again: `BuiltinImporter`,
 *   `_imp.create_builtin`, `importlib`, `__import__` find nothing;
 * - the pure-Python modules (`ctypes/`, `subprocess.py`, `pyodide/`, ...) are renamed inside the
 *   standard library's zip (a name no import can ask for), so no finder, `zipimport` or re-read
 *   of the archive finds them, and what they were built on is gone anyway;
 * - every forbidden module already loaded (asyncio imports `socket`, `subprocess`, `threading`)
 *   is dropped from `sys.modules`, `js` and `pyodide_js` are unregistered and the JavaScript
 *   module finder leaves `sys.meta_path`.
 *
 * What the runtime itself keeps alive (asyncio's `socket`, `threading` and `signal` modules,
 * Pyodide's event loop and the `_pyodide_core` functions it holds) stays reachable through those
 * objects' attributes; docs/security.md says what that gives (nothing the process allows).
 *
 * Runs inside the Deno worker.
 */

/** What this needs of Pyodide's Emscripten module. */
export interface SealModule {
  HEAPU8: Uint8Array;
  /** Address of the C variable `PyImport_Inittab` (a pointer to the table). */
  _PyImport_Inittab: number;
  /** Address of `_PyRuntime` (holds the runtime's copy of the table). */
  __PyRuntime: number;
  FS: { lookupPath(path: string): { node: { contents?: Uint8Array | null; usedBytes?: number } } };
}

/** Stdlib modules that import a forbidden one when they load: imported before the seal, so they keep working. */
export const PRELOADED_BEFORE_SEAL: readonly string[] = [
  "queue", "email.utils", "email.message", "unittest", "unittest.mock", "doctest", "logging.handlers", "sched", "_threading_local",
];

/** Python run in the runtime's namespace: pre-imports, drops, the posix module's process calls; returns what the JavaScript side needs. */
const SEAL_PYTHON = String.raw`
def _cs_seal(forbidden, preload):
    import sys, importlib
    for name in preload:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    def banned(name):
        return any(name == f or name.startswith(f + ".") for f in forbidden)
    posix = sys.modules.get("posix")
    if posix is not None:
        # os's functions are posix's: the module stays reachable as os.stat.__self__.
        for name in list(vars(posix)):
            if name in ("system", "popen", "fork", "forkpty", "execv", "execve", "posix_spawn", "posix_spawnp"):
                delattr(posix, name)
    singles = []
    for name in [n for n in sys.modules if banned(n)]:
        module = sys.modules.pop(name)
        parent, _, child = name.rpartition(".")
        # A package keeps its loaded submodules as attributes (import urllib; urllib.request).
        if parent and getattr(sys.modules.get(parent), child, None) is module:
            delattr(sys.modules[parent], child)
        if getattr(getattr(module, "__spec__", None), "origin", None) == "built-in":
            singles.append([name, id(module)])
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "JsFinder"]
    # No audit hook of ours exists, and one a program adds cannot be removed and sees the worker's
    # own exec of the tests: sys.addaudithook goes from every dict that holds it (the sys module's
    # and the copy CPython keeps to make sys again), so no route (sys.__dict__, gc, a re-made sys)
    # finds it.
    import gc
    hook = sys.addaudithook
    for holder in gc.get_referrers(hook):
        if type(holder) is dict:
            for key in [k for k, v in holder.items() if v is hook]:
                del holder[key]
    del hook, holder
    return __import__("json").dumps({"builtins": sorted(n for n in sys.builtin_module_names if banned(n)), "loaded": singles, "zip": [p for p in sys.path if p.endswith(".zip")]})

def _cs_seal_finish():
    import sys, importlib
    # The archive's directory is read again (the renamed entries are not in it).
    importlib.invalidate_caches()
    sys.path_importer_cache.clear()
`;

function cString(heap: Uint8Array, address: number): string {
  let text = "";
  for (let i = address; heap[i] !== 0 && text.length < 256; i++) text += String.fromCharCode(heap[i]!);
  return text;
}

/** Removes the entries named in `names` from the `{ name, initfunc }` table at `table` (compacted in place). */
function dropInittabEntries(module: SealModule, table: number, names: ReadonlySet<string>): number {
  const words = new Uint32Array(module.HEAPU8.buffer);
  let write = table >>> 2;
  let dropped = 0;
  for (let read = table >>> 2; ; read += 2) {
    const name = words[read]!;
    if (name === 0) {
      words[write] = 0;
      words[write + 1] = 0;
      return dropped;
    }
    if (names.has(cString(module.HEAPU8, name))) {
      dropped += 1;
      continue;
    }
    words[write] = name;
    words[write + 1] = words[read + 1]!;
    write += 2;
  }
}

/** The runtime's copy of the table: a pointer inside `_PyRuntime` to entries equal to the original's first ones. */
function runtimeInittab(module: SealModule, original: number): number | undefined {
  const words = new Uint32Array(module.HEAPU8.buffer);
  const o = original >>> 2;
  // _PyRuntime is some hundreds of KiB on 32 bits; the imports' state sits in its first part.
  const start = module.__PyRuntime >>> 2;
  for (let i = start; i < start + (1 << 18) && i < words.length; i++) {
    const p = words[i]!;
    if (p === 0 || p === original || p % 4 !== 0 || p + 24 > module.HEAPU8.length) continue;
    const q = p >>> 2;
    if (words[q] === words[o] && words[q + 1] === words[o + 1] && words[q + 2] === words[o + 2] && words[q + 3] === words[o + 3]) return p;
  }
  return undefined;
}

/**
 * Clears `m_copy` of a loaded single-phase built-in module's definition: CPython remakes such a
 * module from that copy (`_imp.create_builtin`) without looking at the table. Layout on wasm32:
 * PyModuleObject { ob_refcnt, ob_type, md_dict, md_def, ... }, PyModuleDef { m_base { ob_refcnt,
 * ob_type, m_init, m_index, m_copy }, m_name, ... }; checked against the module's name.
 */
function clearModuleCopy(module: SealModule, name: string, address: number): void {
  const words = new Uint32Array(module.HEAPU8.buffer);
  const def = words[(address + 12) >>> 2]!;
  if (def === 0) return;
  const defName = cString(module.HEAPU8, words[(def + 20) >>> 2]!);
  if (defName !== name && !defName.endsWith(`.${name}`)) throw new Error(`codegen-sandbox: the module definition of ${name} was not where CPython 3.14 keeps it (found ${defName}): check import-seal.ts`);
  words[(def + 16) >>> 2] = 0;
}

/** Renames, inside a zip held in memory, every entry that belongs to a forbidden module (central directory and local headers). */
function renameInZip(bytes: Uint8Array, length: number, banned: (moduleName: string) => number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, length);
  let end = -1;
  for (let i = length - 22; i >= Math.max(0, length - 65_557); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error("codegen-sandbox: the standard library's zip has no end record: check import-seal.ts");
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  let renamed = 0;
  for (let n = 0; n < count; n++) {
    if (view.getUint32(at, true) !== 0x02014b50) throw new Error("codegen-sandbox: unexpected zip directory entry: check import-seal.ts");
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const local = view.getUint32(at + 42, true);
    let name = "";
    for (let i = 0; i < nameLength; i++) name += String.fromCharCode(bytes[at + 46 + i]!);
    const offset = banned(name);
    if (offset >= 0) {
      bytes[at + 46 + offset] = 0x2d; // '-': no import name starts a component with it
      if (view.getUint32(local, true) === 0x04034b50 && view.getUint16(local + 26, true) === nameLength) bytes[local + 30 + offset] = 0x2d;
      renamed += 1;
    }
    at += 46 + nameLength + extraLength + commentLength;
  }
  return renamed;
}

/** Where, in a zip entry's path, the component that makes it a forbidden module starts (-1 when it is not one). */
function forbiddenOffset(path: string, forbidden: readonly string[]): number {
  const clean = path.replace(/\/$/, "").replace(/\.(py|pyc)$/, "").replace(/\/__init__$/, "");
  const parts = clean.split("/");
  for (const name of forbidden) {
    const wanted = name.split(".");
    if (wanted.length > parts.length) continue;
    if (wanted.every((part, i) => parts[i] === part)) {
      return parts.slice(0, wanted.length - 1).reduce((sum, part) => sum + part.length + 1, 0);
    }
  }
  return -1;
}

/**
 * Seals the interpreter (see the top of the file). `evaluate` runs Python in the runtime's
 * namespace; `unregister` drops a JavaScript module Pyodide registered.
 *
 * @example
 * sealImports(module, FORBIDDEN_MODULES, (code) => py.runPython(code, { globals: runtime }), (name) => py.unregisterJsModule(name));
 */
export function sealImports(module: SealModule, forbidden: readonly string[], evaluate: (code: string) => unknown, unregister: (name: string) => void): void {
  try {
    unregister("js");
  } catch {
    // Not registered (a load without jsglobals).
  }
  evaluate(SEAL_PYTHON);
  const plan = JSON.parse(String(evaluate(`_cs_seal(${JSON.stringify(forbidden)}, ${JSON.stringify(PRELOADED_BEFORE_SEAL)})`))) as {
    builtins: string[];
    loaded: Array<[string, number]>;
    zip: string[];
  };
  const names = new Set(plan.builtins);
  const original = new Uint32Array(module.HEAPU8.buffer)[module._PyImport_Inittab >>> 2]!;
  const copy = runtimeInittab(module, original);
  if (copy === undefined) throw new Error("codegen-sandbox: the runtime's table of built-in modules was not found: check import-seal.ts");
  dropInittabEntries(module, copy, names);
  dropInittabEntries(module, original, names);
  for (const [name, address] of plan.loaded) clearModuleCopy(module, name, address);
  for (const path of plan.zip) {
    const node = module.FS.lookupPath(path).node;
    if (!node.contents) continue;
    renameInZip(node.contents, node.usedBytes ?? node.contents.length, (entry) => forbiddenOffset(entry, forbidden));
  }
  evaluate("_cs_seal_finish()\ndel _cs_seal, _cs_seal_finish");
}
