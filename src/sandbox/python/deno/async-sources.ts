/**
 * Everything in the worker's realm that can run code later, scoped to the run (or session
 * call) that started it. The guest reaches the realm from Python, so "later" must never mean
 * "in the next call":
 * - timers: the guest's and Pyodide's go through the worker's scoped timers (worker.ts), all
 *   cleared when the run ends; Pyodide's callbacks due at once go through the worker's own task
 *   queue, and one whose run has ended is dropped;
 * - `AbortSignal.timeout` (reachable as `abortSignalAny([]).constructor.timeout`) ran on Deno's
 *   own timers: it is replaced by one built on the scoped timers;
 * - `FinalizationRegistry` callbacks run at the collector's moment: registries the guest makes
 *   call back only inside the run that made them; the Python proxies Pyodide registers during a
 *   run are released at its end (their Python objects' `__del__` runs then, inside the run);
 * - `Atomics.waitAsync` and the asynchronous WebAssembly compilers settle later: removed;
 * - promise jobs drain before the worker reports the end of a run (a chain that never ends
 *   keeps the run going until its time limit).
 *
 * Runs inside the Deno worker, before any user code.
 */

type Fn = (...args: never[]) => unknown;

/** What the scoping needs from the worker. */
export interface RunClock {
  /** The worker's scoped setTimeout (0 outside a run: nothing is scheduled). */
  setTimeout(fn: () => void, ms: number): number;
  /** Identifies the current run; changes when a run ends. */
  epoch(): number;
  inRun(): boolean;
}

/** The registry facade Pyodide registers its proxies with, and the run-end release. */
export interface ProxyRelease {
  /** Releases every registration made during the run: unregisters it and drops its Python reference. */
  releaseRun(): number;
}

const ReflectApply = Reflect.apply;
const defineProperty = Object.defineProperty;

/**
 * Replaces the realm's later-running sources with scoped ones, and wraps Pyodide's own
 * finalization registry so the proxies made during a run can be released at its end.
 *
 * @example
 * const release = scopeAsyncSources(clock, module, (ptr) => module._Py_DecRef(ptr));
 * // at the end of a run:
 * release.releaseRun();
 */
export function scopeAsyncSources(
  clock: RunClock,
  module: { finalizationRegistry: { register(target: object, held: unknown, token?: object): void; unregister(token: object): boolean } },
  decRef: (ptr: number) => void,
): ProxyRelease {
  const realm = globalThis as unknown as Record<string, unknown>;

  // AbortSignal.timeout on the run's own timers.
  const AbortControllerCtor = realm.AbortController as new () => { signal: unknown; abort(reason?: unknown): void };
  const AbortSignalCtor = realm.AbortSignal as Record<string, unknown> | undefined;
  const DOMExceptionCtor = realm.DOMException as new (message: string, name: string) => unknown;
  if (AbortSignalCtor) {
    defineProperty(AbortSignalCtor, "timeout", {
      value: function timeout(ms: unknown): unknown {
        const controller = new AbortControllerCtor();
        clock.setTimeout(() => controller.abort(new DOMExceptionCtor("The operation timed out.", "TimeoutError")), Number(ms) || 0);
        return controller.signal;
      },
      writable: false,
      configurable: false,
    });
  }

  // Finalization callbacks of the guest's registries: only inside the run that made them.
  const RealRegistry = realm.FinalizationRegistry as new (cleanup: (held: unknown) => void) => object;
  if (typeof RealRegistry === "function") {
    const GuardedRegistry = function FinalizationRegistry(this: unknown, cleanup: unknown) {
      if (new.target === undefined) throw new TypeError("Constructor FinalizationRegistry requires 'new'");
      if (typeof cleanup !== "function") throw new TypeError("cleanup must be callable");
      const epoch = clock.epoch();
      return Reflect.construct(RealRegistry, [(held: unknown) => {
        if (clock.inRun() && clock.epoch() === epoch) ReflectApply(cleanup as Fn, undefined, [held as never]);
      }], new.target);
    };
    GuardedRegistry.prototype = (RealRegistry as unknown as { prototype: object }).prototype;
    defineProperty((RealRegistry as unknown as { prototype: object }).prototype, "constructor", { value: GuardedRegistry, writable: false, configurable: false });
    defineProperty(globalThis, "FinalizationRegistry", { value: GuardedRegistry, writable: false, configurable: false });
  }

  // Sources that settle later and that nothing in a run needs.
  const atomics = realm.Atomics as Record<string, unknown> | undefined;
  if (atomics) delete atomics.waitAsync;
  const wasm = realm.WebAssembly as Record<string, unknown> | undefined;
  if (wasm) for (const name of ["compile", "instantiate", "compileStreaming", "instantiateStreaming"]) delete wasm[name];

  // Pyodide's own registry: what a run registers is released when the run ends.
  const real = module.finalizationRegistry;
  const realRegister = real.register;
  const realUnregister = real.unregister;
  let registered: Array<{ target: object; held: unknown; token: object | undefined }> = [];
  module.finalizationRegistry = {
    register(target, held, token) {
      ReflectApply(realRegister, real, [target, held, token]);
      if (clock.inRun()) registered.push({ target, held, token });
    },
    unregister(token) {
      return ReflectApply(realUnregister, real, [token]) as boolean;
    },
  };
  return {
    releaseRun(): number {
      const list = registered;
      registered = [];
      let released = 0;
      for (const { target, held, token } of list) {
        if (token === undefined || !(ReflectApply(realUnregister, real, [token]) as boolean)) continue;
        // Still registered: nothing destroyed it. Mark the proxy dead and drop its reference now.
        const shared = target as { ptr?: number; destroyed_msg?: string };
        if (typeof shared.ptr === "number") {
          shared.ptr = 0;
          shared.destroyed_msg = "This proxy was released when the run that made it ended.";
        }
        const ptr = (held as { ptr?: unknown } | null)?.ptr;
        if (typeof ptr === "number" && ptr !== 0) decRef(ptr);
        released += 1;
      }
      return released;
    },
  };
}
