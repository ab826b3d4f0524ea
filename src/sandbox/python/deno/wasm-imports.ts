/**
 * The one door between Pyodide's WebAssembly and JavaScript: the import object. Python (and
 * anything a guest makes the interpreter do) changes JavaScript state only by calling an
 * imported JavaScript function: file-system syscalls, JS object access, timers, proxies. This
 * module wraps every function of the import object before the instance is created, so every
 * such call passes through one check: `classify` says whether the call provably left no
 * JavaScript state behind (a short allowlist, pure-imports.ts). Anything else marks the
 * interpreter "touched", and the worker is replaced instead of reset in place.
 *
 * Runs inside the Deno worker, before any Python.
 */

type Fn = (...args: never[]) => unknown;

/** The WebAssembly API as this file uses it (the project's TypeScript libraries have no WebAssembly types). */
interface WasmApi {
  instantiate(source: unknown, imports?: unknown): Promise<unknown>;
  Module: { imports(module: unknown): Array<{ module: string; name: string; kind: string }> };
}
const Wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
/** A WebAssembly instance and module (opaque here). */
export type WasmInstance = { exports: Record<string, unknown> };
export type WasmModule = object;

/** Decides whether one import call left no JavaScript state behind. */
export type ImportClassifier = (name: string, args: unknown[], result: unknown, threw: boolean) => boolean;

/** What the wrapped imports report. */
export interface ImportWatch {
  /** Name of the first import since `clear()` that was not provably pure ("" when none). */
  readonly impure: string;
  /** Calls since `clear()` per import name (for diagnostics and tests). */
  counts(): Record<string, number>;
  clear(): void;
  /** Set once the worker knows how to judge calls (until then every call counts as impure). */
  setClassifier(classify: ImportClassifier): void;
}

/** What instantiation gave back: the instance, its module and the (wrapped) import object. */
export interface InstantiatedPyodide {
  instance: WasmInstance;
  module: WasmModule;
  imports: Record<string, Record<string, unknown>>;
}

/**
 * Functions of the import object that are not JavaScript we can wrap (`[native code]`): Math
 * built-ins, the two exports of Pyodide's tiny `jsverror` module, and two JSPI helpers. They
 * are left as they are; any other native function is refused at start.
 */
const NATIVE_IMPORTS = new Set(["JsvError_Check", "Jsv_GetError_import", "pyodide_js_init", "syncifyHandler"]);

const ReflectApply = Reflect.apply;
const functionToString = Function.prototype.toString;
const getOwnPropertyNames = Object.getOwnPropertyNames;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const defineProperty = Object.defineProperty;

/**
 * Wraps every JavaScript function of `imports` (each namespace object in place; one wrapper per
 * function, so functions shared by several names keep one table slot, which memory snapshots
 * rely on).
 *
 * @throws Error when the import object holds a native function that is not known to be pure.
 * @example
 * const watch = watchImports(imports);
 * watch.setClassifier((name) => name === "fd_write");
 */
export function watchImports(imports: Record<string, Record<string, unknown>>): ImportWatch {
  let classify: ImportClassifier = () => false;
  let impure = "";
  const counts = new Map<string, number>();
  const wrappers = new Map<Fn, Fn>();
  const isWrapper = new WeakSet<Fn>();

  const wrap = (name: string, real: Fn): Fn => {
    const wrapper = function (this: unknown, ...args: unknown[]): unknown {
      counts.set(name, (counts.get(name) ?? 0) + 1);
      let threw = true;
      let result: unknown;
      try {
        result = ReflectApply(real, this, args);
        threw = false;
        return result;
      } finally {
        if (impure === "" && !classify(name, args, result, threw)) impure = name;
      }
    };
    // Emscripten reads `sig` (and friends) to put JS functions into the function table.
    for (const key of getOwnPropertyNames(real)) {
      if (key === "prototype" || key === "caller" || key === "arguments") continue;
      const descriptor = getOwnPropertyDescriptor(real, key);
      if (descriptor) defineProperty(wrapper, key, descriptor);
    }
    return wrapper;
  };

  for (const namespace of Object.keys(imports)) {
    const table = imports[namespace];
    // GOT.mem / GOT.func are proxies that hand out WebAssembly.Global objects, not functions.
    if (table === null || typeof table !== "object" || namespace.startsWith("GOT.")) continue;
    for (const name of Object.keys(table)) {
      const value = table[name];
      // Namespaces may share one object (env and wasi_snapshot_preview1 do): wrap once.
      if (typeof value !== "function" || isWrapper.has(value as Fn)) continue;
      if (ReflectApply(functionToString, value, []).includes("[native code]")) {
        if (!NATIVE_IMPORTS.has(name) && !name.startsWith("emscripten_math_")) {
          throw new Error(`codegen-sandbox: unexpected native import ${name}; the import watch cannot see it`);
        }
        continue;
      }
      let wrapper = wrappers.get(value as Fn);
      if (!wrapper) {
        wrapper = wrap(name, value as Fn);
        wrappers.set(value as Fn, wrapper);
        isWrapper.add(wrapper);
      }
      table[name] = wrapper;
    }
  }

  return {
    get impure() {
      return impure;
    },
    counts: () => Object.fromEntries(counts),
    clear() {
      impure = "";
      counts.clear();
    },
    setClassifier(next) {
      classify = next;
    },
  };
}

/** The imports a compiled module declares (module, name, kind). */
export function moduleImports(module: WasmModule): Array<{ module: string; name: string; kind: string }> {
  return Wasm.Module.imports(module);
}

/**
 * Runs `load` with `WebAssembly.instantiate` patched so that Pyodide's instantiation (the call
 * that passes an `env` import namespace) gets its imports watched; gives back the watch and what
 * was instantiated. Other instantiations (Pyodide's small helper modules) pass through.
 *
 * @example
 * const { value: py, watch, instantiated } = await withWatchedInstantiation(() => loadPyodide({ ... }));
 */
export async function withWatchedInstantiation<T>(load: () => Promise<T>): Promise<{ value: T; watch: ImportWatch; instantiated: InstantiatedPyodide }> {
  const real = Wasm.instantiate;
  let watch: ImportWatch | undefined;
  let instantiated: InstantiatedPyodide | undefined;
  Wasm.instantiate = async function (source: unknown, given?: unknown) {
    const imports = given as Record<string, Record<string, unknown>> | undefined;
    if (imports && typeof imports === "object" && imports.env && typeof imports.env === "object" && !watch) {
      watch = watchImports(imports);
      const result = (await ReflectApply(real, Wasm, [source, imports])) as { instance: WasmInstance; module: WasmModule };
      instantiated = { instance: result.instance, module: result.module, imports };
      return result;
    }
    return ReflectApply(real, Wasm, [source, given]);
  };
  try {
    const value = await load();
    if (!watch || !instantiated) throw new Error("codegen-sandbox: Pyodide was instantiated without its imports being watched");
    return { value, watch, instantiated };
  } finally {
    Wasm.instantiate = real;
  }
}
