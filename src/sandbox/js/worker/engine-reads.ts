/**
 * Engine calls with out-parameters, made as quickjs-emscripten 0.32.0 makes them but read right
 * after the engine's memory has grown: an object's own keys (`getOwnPropertyNames`) and a new
 * promise with its resolving functions (`newPromise`, which reads them through a view made before
 * the call in the same way: after a growth it read none, and the host call's promise could never
 * be settled). For the keys: the library reads its out-parameters through typed arrays
 * made over the memory's buffer before the call (the context's `uint32Out`, made with the
 * context), and growing a WebAssembly memory detaches that buffer. The library then reads a
 * length of undefined, takes the whole memory as its list of keys and makes a handle for every
 * word of it: the worker thread's own heap fills and the thread dies (a test comparing a
 * million-element array did this; its `getLength` answers undefined for the same reason). Here
 * the out-parameters are read from the memory as it is after the call, and the list is bounded:
 * past `max` names the keys are counted and freed unread.
 *
 * Runs in the worker thread.
 */
import { GetOwnPropertyNamesFlags, QuickJSDeferredPromise, type QuickJSContext, type QuickJSHandle } from "quickjs-emscripten-core";
import { adoptHandle, contextParts, type ContextParts } from "./engine-internals.js";

/** The 32-bit word at `address`, read from the memory as it is now. */
function wordAt(module: ContextParts["module"], address: number): number {
  const heap = module.HEAPU8;
  return (heap[address]! | (heap[address + 1]! << 8) | (heap[address + 2]! << 16) | (heap[address + 3]! << 24)) >>> 0;
}

/** Two words of scratch memory for out-parameters, freed after `use`; undefined when the memory is full. */
function withScratch<T>(module: ContextParts["module"], use: (at: number) => T): T | undefined {
  const at = module._malloc(8);
  if (at === 0) return undefined;
  try {
    return use(at);
  } finally {
    module._free(at);
  }
}

/** The own string keys of an object, at most `max` of them, and how many it has. */
export interface OwnKeys {
  names: string[];
  total: number;
}

/**
 * The own string keys of `handle` (integer keys as strings, as `Object.keys` gives them), read
 * by the engine: the first `max` as text, the rest counted and freed. Undefined when the engine
 * refused (out of memory, a revoked Proxy, ...).
 *
 * @example
 * ownKeys(ctx, objectHandle, { onlyEnumerable: true, max: 100 }); // { names: ["a", "b"], total: 2 }
 */
export function ownKeys(context: QuickJSContext, handle: QuickJSHandle, options: { onlyEnumerable?: boolean; max?: number } = {}): OwnKeys | undefined {
  const { pointer, module, ffi } = contextParts(context);
  const max = options.max ?? Number.POSITIVE_INFINITY;
  const flags =
    GetOwnPropertyNamesFlags.JS_GPN_STRING_MASK |
    GetOwnPropertyNamesFlags.QTS_STANDARD_COMPLIANT_NUMBER |
    (options.onlyEnumerable ? GetOwnPropertyNamesFlags.JS_GPN_ENUM_ONLY : 0);
  return withScratch(module, (at) => {
    const error = ffi.QTS_GetOwnPropertyNames(pointer, at, at + 4, handle.value as number, flags);
    if (error !== 0) {
      ffi.QTS_FreeValuePointer(pointer, error);
      return undefined;
    }
    const list = wordAt(module, at);
    const total = wordAt(module, at + 4);
    const names: string[] = [];
    for (let i = 0; i < total; i++) {
      const key = wordAt(module, list + 4 * i);
      if (names.length < max) {
        const text = ffi.QTS_GetString(pointer, key);
        names.push(module.UTF8ToString(text));
        ffi.QTS_FreeCString(pointer, text);
      }
      ffi.QTS_FreeValuePointer(pointer, key);
    }
    ffi.QTS_FreeVoidPointer(pointer, list);
    return { names, total };
  });
}

/**
 * A new promise of `context` and its resolving functions, as `context.newPromise()` makes them,
 * with the functions' pointers read after the call. Throws when the engine could not make them
 * (out of memory): the caller's host-function machinery turns that into the guest's error.
 *
 * @example
 * const deferred = newDeferredPromise(ctx); // deferred.handle is what the guest awaits
 */
export function newDeferredPromise(context: QuickJSContext): QuickJSDeferredPromise {
  const { pointer, module, ffi } = contextParts(context);
  const deferred = withScratch(module, (at) => {
    module.HEAPU8.fill(0, at, at + 8);
    const promise = ffi.QTS_NewPromiseCapability(pointer, at);
    const resolve = wordAt(module, at);
    const reject = wordAt(module, at + 4);
    const promiseHandle = adoptHandle(context, promise);
    if (resolve === 0 || reject === 0) {
      // The engine failed and wrote no resolving functions: free what it returned.
      promiseHandle.dispose();
      return undefined;
    }
    return new QuickJSDeferredPromise({ context, promiseHandle, resolveHandle: adoptHandle(context, resolve), rejectHandle: adoptHandle(context, reject) });
  });
  if (deferred === undefined) throw new Error("the engine is out of memory: no promise could be made for this host call");
  return deferred;
}
