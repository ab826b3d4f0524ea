/**
 * The JavaScript-side state of a context, taken once and put back after each run: every own
 * property of every object reachable from a set of roots (the worker's context object, and through
 * it quickjs-emscripten's runtime and context objects, their handle scopes and host-function
 * table), every entry of every Map and Set among them, every element of every array. Put back, each
 * of those objects holds exactly what it held when taken: anything a run made (a handle, a lifetime,
 * a host function, a buffer of output) is no longer reachable from the roots, and is dropped
 * without being disposed (its memory was restored beside it, so freeing it would corrupt the heap).
 *
 * Functions are kept as values and not walked: their closures capture only objects that are walked
 * (the context's `this`) or that no run changes. Objects outside the walk are given as `leaves`
 * (the engine's WebAssembly module, the port to the host): they are shared by the worker and are not
 * the context's state.
 */

/** One object's own properties (or a collection's entries) as taken. */
type Taken =
  | { kind: "object"; target: object; keys: (string | symbol)[]; values: unknown[]; descriptors: PropertyDescriptor[] }
  | { kind: "map"; target: Map<unknown, unknown>; entries: [unknown, unknown][] }
  | { kind: "set"; target: Set<unknown>; values: unknown[] };

/** The own state of an object graph, taken once, and its restoration. */
export class JsSideState {
  private constructor(private readonly taken: readonly Taken[]) {}

  /** Takes the state reachable from `roots`; `leaves` are kept as values and not walked. */
  static take(roots: readonly object[], leaves: readonly object[]): JsSideState {
    const skip = new Set<unknown>(leaves);
    const seen = new Set<unknown>();
    const taken: Taken[] = [];
    const stack: unknown[] = [...roots];
    const visit = (value: unknown): void => {
      if (value !== null && typeof value === "object" && !seen.has(value) && !skip.has(value)) stack.push(value);
    };
    while (stack.length > 0) {
      const value = stack.pop() as object;
      if (seen.has(value)) continue;
      seen.add(value);
      // Views of the engine's memory (the memory itself is restored byte for byte).
      if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) continue;
      if (value instanceof Map) {
        const entries = [...value.entries()];
        taken.push({ kind: "map", target: value, entries });
        for (const [k, v] of entries) {
          visit(k);
          visit(v);
        }
        continue;
      }
      if (value instanceof Set) {
        const values = [...value.values()];
        taken.push({ kind: "set", target: value, values });
        values.forEach(visit);
        continue;
      }
      if (value instanceof WeakMap || value instanceof WeakSet || value instanceof Promise) {
        throw new Error(`the context's state holds a ${value.constructor.name}, whose contents cannot be taken`);
      }
      const keys = Reflect.ownKeys(value);
      const values: unknown[] = [];
      const descriptors: PropertyDescriptor[] = [];
      for (const key of keys) {
        const descriptor = Reflect.getOwnPropertyDescriptor(value, key)!;
        if (!("value" in descriptor)) throw new Error(`the context's state has an accessor ${String(key)}, whose state cannot be taken`);
        values.push(descriptor.value);
        descriptors.push(descriptor);
        visit(descriptor.value);
      }
      taken.push({ kind: "object", target: value, keys, values, descriptors });
    }
    return new JsSideState(taken);
  }

  /** Number of objects and collections taken (for tests and the bench). */
  get size(): number {
    return this.taken.length;
  }

  /** Puts every taken object back as it was taken: added properties are deleted, changed ones set back. */
  restore(): void {
    for (const t of this.taken) {
      if (t.kind === "map") {
        const { target, entries } = t;
        if (target.size !== entries.length || !sameEntries(target, entries)) {
          target.clear();
          for (const [k, v] of entries) target.set(k, v);
        }
        continue;
      }
      if (t.kind === "set") {
        const { target, values } = t;
        if (target.size !== values.length || values.some((v) => !target.has(v))) {
          target.clear();
          for (const v of values) target.add(v);
        }
        continue;
      }
      const target = t.target as Record<string | symbol, unknown>;
      const { keys, values, descriptors } = t;
      const now = Reflect.ownKeys(target);
      if (now.length !== keys.length) {
        const kept = new Set(keys);
        for (const key of now) if (!kept.has(key)) Reflect.deleteProperty(target, key);
      }
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        if (target[key] !== values[i] || !Object.hasOwn(target, key)) {
          if (!Reflect.defineProperty(target, key, descriptors[i]!)) {
            throw new Error(`the context's state could not be put back (${String(key)})`);
          }
        }
      }
    }
  }
}

function sameEntries(map: Map<unknown, unknown>, entries: readonly [unknown, unknown][]): boolean {
  for (const [k, v] of entries) if (!map.has(k) || map.get(k) !== v) return false;
  return true;
}
