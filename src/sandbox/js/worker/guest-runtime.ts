/**
 * Lifetime of one QuickJS runtime + context and of the handles that live as long as it: the
 * built-ins captured before any user code runs. Handles that outlive one call are owned by
 * this object's `Scope`; handles that live within one block are owned by `using` there.
 *
 * Timed once in blocks of two handles: `using` costs no more than hand-written `dispose()` and
 * less than `Scope.withScope`, and a one-line run makes only about ten handles, so
 * blocks use `using`; `Scope` is kept for the long-lived handles, where no block encloses them.
 */
import { Scope } from "quickjs-emscripten";
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from "quickjs-emscripten-core";
import "./dispose-symbol.js";
import type { CallResult } from "./call-result.js";
import { engineMemoryOf, type EngineMemory } from "./engine-memory.js";
import { ownKeys } from "./engine-reads.js";

/**
 * QuickJS's own stack limit. Measured when the engine was chosen: 512 KiB or more (or unset)
 * overflows the thread's native stack inside WASM and later aborts the module; 256 KiB ends
 * with a clean InternalError (docs/security.md, "Guest stack").
 */
export const MAX_STACK_SIZE_BYTES = 256 * 1024;

/**
 * Built-ins the prelude and the host use, captured per context before user code runs, so a
 * program that replaces them cannot forge its own result. Order matters: the prelude reads
 * them by index. `["Promise", ""]` is the Promise constructor itself.
 */
const NATIVE_PATHS: readonly (readonly [string, string])[] = [
  ["JSON", "stringify"],
  ["JSON", "parse"],
  ["Promise", "prototype.then"],
  ["Promise", ""],
  ["Promise", "resolve"],
  ["Reflect", "apply"],
  ["eval", ""],
  ["Object", "defineProperty"],
  ["Object", "keys"],
  ["Object", "getOwnPropertyDescriptor"],
  // The tests' value reader (test-values.ts): a prototype chain, and the prototypes of the
  // built-ins whose data lives in internal slots (SLOT_TYPES, in this order).
  ["Object", "getPrototypeOf"],
  ["Map", "prototype"],
  ["Set", "prototype"],
  ["WeakMap", "prototype"],
  ["WeakSet", "prototype"],
  ["Date", "prototype"],
  ["RegExp", "prototype"],
  ["Promise", "prototype"],
  ["ArrayBuffer", "prototype"],
  ["DataView", "prototype"],
  ["Uint8Array", "prototype.__proto__"],
  ["Error", "prototype"],
];

/**
 * A string read from the guest: its text (undefined when not a string), or, when over the
 * limit, a lower bound of its UTF-8 size (its length in characters when it was not read).
 */
export type BoundedString = { text: string | undefined; overLimitBytes?: undefined } | { text?: undefined; overLimitBytes: number };

/**
 * Built-ins the guest is not given, as [owner, name] (owner "" is the global object).
 * `SharedArrayBuffer` (and `Atomics`, which only works on one) has no use in a single-threaded
 * sandbox, and a growable one's new bytes were handed out unzeroed: a pool run read an earlier
 * run's strings from its worker's reused memory (test/security/js-memory-reuse.test.ts).
 * `ArrayBuffer.prototype.resize`, `transfer` and `transferToFixedLength` are the only ways an
 * ArrayBuffer changes its length or loses its data after it was made, and this QuickJS trusts a
 * length it read before a guest callback in #477, #478 and #492: a typed array made while its
 * buffer shrank (#478) reached the whole WebAssembly memory, and a pool run read an earlier
 * run's strings through it (test/security/js-typed-array-reach.test.ts). Without them every
 * buffer keeps its length and data for life.
 */
const UNGRANTED: readonly (readonly [string, string])[] = [
  ["", "SharedArrayBuffer"],
  ["", "Atomics"],
  ["ArrayBuffer.prototype", "resize"],
  ["ArrayBuffer.prototype", "transfer"],
  ["ArrayBuffer.prototype", "transferToFixedLength"],
];

/** The names `UNGRANTED` removes, as one line (part of a session snapshot's engine build). */
export const UNGRANTED_BUILT_INS = UNGRANTED.map(([owner, name]) => (owner ? `${owner}.${name}` : name)).join(",");

function removeUngranted(ctx: QuickJSContext): void {
  using reflect = ctx.getProp(ctx.global, "Reflect");
  using deleteProperty = ctx.getProp(reflect, "deleteProperty");
  for (const [owner, name] of UNGRANTED) {
    let holder: QuickJSHandle = ctx.global.dup();
    for (const key of owner === "" ? [] : owner.split(".")) {
      using parent = holder;
      holder = ctx.getProp(parent, key);
    }
    using held = holder;
    using key = ctx.newString(name);
    using deleted = ctx.unwrapResult(ctx.callFunction(deleteProperty, reflect, held, key));
    if (ctx.typeof(deleted) !== "boolean" || !ctx.dump(deleted)) throw new Error(`could not remove ${owner ? `${owner}.` : ""}${name} from a guest context`);
  }
}

const NATIVE_STRINGIFY = 0;
const NATIVE_PARSE = 1;
const NATIVE_GET_OWN_PROPERTY_DESCRIPTOR = 9;

/** A runtime + context with its captured built-ins and its memory limit. */
export class GuestRuntime {
  readonly runtime: QuickJSRuntime;
  readonly context: QuickJSContext;
  /** Built-ins taken before any user code runs (see NATIVE_PATHS). */
  readonly natives: readonly QuickJSHandle[];
  /** Owner of every handle that lives as long as the context. */
  private readonly owned = new Scope();
  /** The global `JSON` object, the `this` of the captured stringify/parse. */
  private readonly jsonObject: QuickJSHandle;
  private limitBytes: number;
  /**
   * The cap of the module's memory, which holds the limit (QuickJS's own limit only refuses one
   * allocation larger than it: see engine-memory.ts). Undefined for a module made elsewhere.
   */
  private readonly memory: EngineMemory | undefined;

  constructor(module: QuickJSWASMModule, memoryLimitBytes: number, onInterrupt: () => boolean) {
    this.limitBytes = memoryLimitBytes;
    this.memory = engineMemoryOf(module);
    this.runtime = module.newRuntime();
    this.runtime.setMaxStackSize(MAX_STACK_SIZE_BYTES);
    this.runtime.setInterruptHandler(onInterrupt);
    this.context = this.runtime.newContext();
    const ctx = this.context;
    this.jsonObject = this.own(ctx.getProp(ctx.global, "JSON"));
    this.natives = NATIVE_PATHS.map(([owner, path]) => {
      let value = ctx.getProp(ctx.global, owner);
      for (const key of path === "" ? [] : path.split(".")) {
        using parent = value;
        value = ctx.getProp(parent, key);
      }
      return this.own(value);
    });
    removeUngranted(ctx);
  }

  /** Handles owned for the context's life, in the order taken (their pointers are part of a snapshot's state). */
  private readonly ownedHandles: QuickJSHandle[] = [];

  /** Makes this runtime the owner of `handle` (disposed with the context). */
  own<T extends QuickJSHandle>(handle: T): T {
    this.ownedHandles.push(handle);
    return this.owned.manage(handle);
  }

  /** Heap pointers of the handles this runtime owns, in order. */
  ownedPointers(): number[] {
    return this.ownedHandles.map((h) => (h.alive ? (h.value as unknown as number) : -1));
  }

  /** The user's memory limit of the runs to come. */
  get memoryLimitBytes(): number {
    return this.limitBytes;
  }

  /** Sets the memory limit (a context made ahead of its run learns the run's limit here). */
  setMemoryLimitBytes(bytes: number): void {
    this.limitBytes = bytes;
    this.runtime.setMemoryLimit(quickJSLimit(bytes));
    this.memory?.setLimit(bytes);
  }

  /** Lifts the limit by `headroomBytes` (to describe an out-of-memory error); `restoreMemoryLimit` ends it. */
  liftMemoryLimit(headroomBytes: number): void {
    this.runtime.setMemoryLimit(quickJSLimit(this.limitBytes + headroomBytes));
    this.memory?.lift(headroomBytes);
  }

  /** Puts the user's limit back after `liftMemoryLimit`. */
  restoreMemoryLimit(): void {
    this.runtime.setMemoryLimit(quickJSLimit(this.limitBytes));
    this.memory?.setLimit(this.limitBytes);
  }

  /**
   * JSON text of a guest value, made by the captured JSON.stringify (`json` undefined if not
   * representable), read only if it fits in `maxBytes` (see `readBoundedString`).
   */
  stringify(value: QuickJSHandle, maxBytes: number): BoundedString {
    const ctx = this.context;
    using r = ctx.callFunction(this.natives[NATIVE_STRINGIFY], this.jsonObject, value);
    if (r.error) return { text: undefined };
    return this.readBoundedString(r.value, maxBytes);
  }

  /**
   * As `stringify`, for a run's result: a throw of JSON.stringify (a cycle, a BigInt, a
   * throwing getter or `toJSON`) comes back as the thrown value, which the caller owns.
   */
  stringifyResult(value: QuickJSHandle, maxBytes: number): BoundedString | { thrown: QuickJSHandle } {
    const r = this.context.callFunction(this.natives[NATIVE_STRINGIFY], this.jsonObject, value);
    if (r.error) return { thrown: r.error };
    using json = r.value;
    return this.readBoundedString(json, maxBytes);
  }

  /**
   * Copies a guest string out if it is one and fits in `maxBytes` of UTF-8. Its length is read
   * first, so a string that is too long is never copied out of the guest's memory.
   */
  readBoundedString(handle: QuickJSHandle, maxBytes: number): BoundedString {
    const ctx = this.context;
    if (ctx.typeof(handle) !== "string") return { text: undefined };
    using length = ctx.getProp(handle, "length");
    const chars = ctx.getNumber(length);
    // Every UTF-16 unit is at least one UTF-8 byte, and at most three.
    if (chars > maxBytes) return { overLimitBytes: chars };
    let text = ctx.getString(handle);
    // getString (like dump) stops at a NUL character; the guest's JSON escapes it.
    if (text.length !== chars) {
      const json = this.stringify(handle, chars * 6 + 2).text;
      text = json === undefined ? text : (JSON.parse(json) as string);
    }
    if (chars * 3 > maxBytes) {
      const bytes = Buffer.byteLength(text);
      if (bytes > maxBytes) return { overLimitBytes: bytes };
    }
    return { text };
  }

  /**
   * The own string keys of an ordinary object (not a Proxy: a Proxy's keys would run its trap),
   * read by the engine without running guest code.
   */
  ownStringKeys(handle: QuickJSHandle): string[] {
    return ownKeys(this.context, handle)?.names ?? [];
  }

  /** The length of a guest string (its own `length`: no guest code runs). */
  stringLength(handle: QuickJSHandle): number {
    using length = this.context.getProp(handle, "length");
    return this.context.getNumber(length);
  }

  /**
   * True when `key` is an own data property of the ordinary object `handle` holding a function.
   * Read with the captured `Object.getOwnPropertyDescriptor`, so no getter of the guest runs: the
   * descriptor's `value` is read only when it is an own key of the descriptor.
   */
  holdsOwnFunction(handle: QuickJSHandle, key: string): boolean {
    const ctx = this.context;
    using name = ctx.newString(key);
    using r = ctx.callFunction(this.natives[NATIVE_GET_OWN_PROPERTY_DESCRIPTOR], ctx.undefined, handle, name);
    if (r.error || ctx.typeof(r.value) !== "object") return false;
    if (!this.ownStringKeys(r.value).includes("value")) return false;
    using value = ctx.getProp(r.value, "value");
    return ctx.typeof(value) === "function";
  }

  /**
   * The text of a guest string, exactly: `getString` stops at a NUL character (and turns a
   * lone surrogate into three replacement characters), so when its length is not the guest's,
   * the text is read again through the guest's JSON, which escapes both.
   */
  exactString(handle: QuickJSHandle): string {
    const ctx = this.context;
    const text = ctx.getString(handle);
    using length = ctx.getProp(handle, "length");
    const chars = ctx.getNumber(length);
    if (text.length === chars) return text;
    const json = this.stringify(handle, chars * 6 + 2).text;
    return json === undefined ? text : (JSON.parse(json) as string);
  }

  /** A guest string with exactly `text` (newString stops at a NUL character; JSON escapes it). The caller owns it. */
  newExactString(text: string): QuickJSHandle {
    const ctx = this.context;
    if (!text.includes("\0")) return ctx.newString(text);
    const parsed = this.parse(JSON.stringify(text));
    if (parsed.error) {
      parsed.error.dispose();
      return ctx.newString(text);
    }
    return parsed.value;
  }

  /** Parses JSON text inside the guest with the captured JSON.parse; the caller owns the result. */
  parse(json: string): CallResult {
    const ctx = this.context;
    using text = ctx.newString(json);
    return ctx.callFunction(this.natives[NATIVE_PARSE], this.jsonObject, text);
  }

  /** Releases the owned handles, then the context and runtime. Throws if QuickJS reports leaked handles. */
  dispose(): void {
    this.owned.dispose();
    this.context.dispose();
    this.runtime.dispose();
  }
}

/**
 * QuickJS takes its limit as a 32-bit `size_t`: 4 GiB would wrap to 0 (every allocation then
 * fails). The front accepts up to 4 GiB, all that the 32-bit engine can address anyway.
 */
function quickJSLimit(bytes: number): number {
  return Math.min(bytes, 0xffff_ffff);
}
