/**
 * The prelude's dispatcher `helper(op, a, b)` inside one context (see GUEST_PRELUDE_SOURCE),
 * loaded on the first call that needs it: a plain script with a JSON result and no output,
 * globals or host functions never parses the prelude.
 */
import { DisposableResult } from "quickjs-emscripten";
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import type { CallResult } from "./call-result.js";
import type { GuestRuntime } from "./guest-runtime.js";
import { tagged } from "./host-function-kinds.js";
import { GUEST_LIBRARY_SOURCE, GUEST_PRELUDE_SOURCE, PRELUDE_FILE_NAME } from "./guest-prelude.js";

/** Operations of the prelude's dispatcher. */
export const enum HelperOp {
  Settle = 0,
  Describe = 1,
  SetGlobals = 2,
  DefineHostFunctions = 3,
  Invoke = 5,
  LoadLibrary = 6,
  Inspect = 7,
  SeedRandom = 8,
}

/** What the prelude's `bridge(op, a, b)` reaches on the host. */
export type BridgeHandler = (op: number, a: QuickJSHandle, b: QuickJSHandle) => QuickJSHandle | undefined;

type HelperArg = QuickJSHandle | string | number | undefined;

/** The prelude of one context, as the host calls it. */
export class GuestHelpers {
  private helper: QuickJSHandle | undefined;
  /** The prelude's `bridge` closure, made once per context (see host-function-kinds.ts). */
  readonly bridge: (op: QuickJSHandle, a: QuickJSHandle, b: QuickJSHandle) => QuickJSHandle | undefined;

  constructor(
    private readonly guest: GuestRuntime,
    private readonly onBridge: BridgeHandler,
  ) {
    this.bridge = tagged("bridge", (op: QuickJSHandle, a: QuickJSHandle, b: QuickJSHandle) => this.onBridge(this.guest.context.getNumber(op), a, b));
  }

  /** The heap pointer of the prelude's dispatcher, 0 before it is loaded (part of a snapshot's state). */
  get loadedPointer(): number {
    return this.helper?.alive ? (this.helper.value as unknown as number) : 0;
  }

  /** Loads the dispatcher now (a pool worker's pristine image has it, so no run pays for it). */
  preload(): void {
    this.helper ??= this.guest.own(this.load());
  }

  /**
   * Calls the dispatcher; the caller owns the result. Strings and numbers are copied in (and
   * freed here); handles are borrowed from the caller.
   */
  call(op: HelperOp, a?: HelperArg, b?: HelperArg): CallResult {
    const ctx = this.guest.context;
    let helper = this.helper;
    if (!helper) {
      try {
        helper = this.helper = this.guest.own(this.load());
      } catch (error) {
        // Only an interrupted or out-of-memory guest cannot evaluate the prelude.
        const thrown = ctx.newError({ name: "InternalError", message: (error as Error).message });
        return DisposableResult.fail(thrown, () => undefined);
      }
    }
    using opHandle = ctx.newNumber(op);
    using aHandle = this.borrowOrCopy(a);
    using bHandle = this.borrowOrCopy(b);
    return ctx.callFunction(helper, ctx.undefined, opHandle, aHandle.handle, bHandle.handle);
  }

  /** Calls the dispatcher for its effect only. */
  run(op: HelperOp, a?: HelperArg, b?: HelperArg): void {
    // settle() only schedules promise reactions; it throws only when the run was interrupted.
    using _ = this.call(op, a, b);
  }

  /** Calls the dispatcher for a string result; `undefined` when it threw or returned no string. */
  text(op: HelperOp, a?: HelperArg, b?: HelperArg): string | undefined {
    const ctx = this.guest.context;
    using r = this.call(op, a, b);
    if (r.error) return undefined;
    return ctx.typeof(r.value) === "string" ? ctx.getString(r.value) : undefined;
  }

  /** A handle for an argument: borrowed (not disposed) when given, else a copy this returns to dispose. */
  private borrowOrCopy(v: HelperArg): { handle: QuickJSHandle } & Disposable {
    const ctx = this.guest.context;
    if (v === undefined || typeof v === "object") return { handle: v ?? ctx.undefined, [Symbol.dispose]: () => undefined };
    const handle = typeof v === "string" ? ctx.newString(v) : ctx.newNumber(v);
    return { handle, [Symbol.dispose]: () => handle.dispose() };
  }

  /** Evaluates the prelude and returns its dispatcher. Throws if the guest cannot run it. */
  private load(): QuickJSHandle {
    const ctx = this.guest.context;
    using bridge = ctx.newFunction("bridge", this.bridge);
    using librarySource = ctx.newString(GUEST_LIBRARY_SOURCE);
    using fn = ctx.unwrapResult(ctx.evalCode(GUEST_PRELUDE_SOURCE, PRELUDE_FILE_NAME));
    using natives = ctx.newArray();
    // defineProp, not setProp: an index setter the guest put on Array.prototype must not see them.
    this.guest.natives.forEach((h, i) => ctx.defineProp(natives, i, { value: h, configurable: false, enumerable: true }));
    return ctx.unwrapResult(ctx.callFunction(fn, ctx.undefined, bridge, librarySource, natives));
  }
}
