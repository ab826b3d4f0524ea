/**
 * Host functions as the guest sees them: `await name(...args)` makes a promise in the guest,
 * posts the call to the host, and settles the promise when the host replies. Arguments and
 * values cross as JSON text made and parsed inside the guest.
 */
import type { QuickJSHandle } from "quickjs-emscripten-core";
import type { GuestHost } from "./guest-host.js";
import { HelperOp, type GuestHelpers } from "./guest-helpers.js";
import type { GuestRuntime } from "./guest-runtime.js";
import { hostCallLimitError } from "../../limit-errors.js";
import { newDeferredPromise } from "./engine-reads.js";
import type { RunState } from "./run-state.js";

/** The host's answer to one call. */
export type HostReply = { ok: true; valueJson: string | undefined } | { ok: false; name: string; message: string };


/** Host functions of one context: defined once per name, called by the current run. */
export class HostBridge {
  private readonly defined = new Set<string>();

  constructor(
    private readonly guest: GuestRuntime,
    private readonly helpers: GuestHelpers,
    private readonly host: GuestHost,
  ) {}

  /** Defines the names not yet defined in this context; returns a thrown handle if the guest failed. */
  define(names: readonly string[]): QuickJSHandle | undefined {
    const fresh = names.filter((n) => !this.defined.has(n));
    if (fresh.length === 0) return undefined;
    for (const n of fresh) this.defined.add(n);
    const r = this.helpers.call(HelperOp.DefineHostFunctions, JSON.stringify(fresh));
    if (r.error) return r.error;
    r.value.dispose();
    return undefined;
  }

  /** The names defined so far, in the order defined (part of a snapshot's state). */
  get definedNames(): string[] {
    return [...this.defined];
  }

  /** Takes the names of a restored snapshot (the guest side of them is in the restored heap). */
  set definedNames(names: string[]) {
    this.defined.clear();
    for (const n of names) this.defined.add(n);
  }

  /** True when `name` is a host function of this context (not a built-in or user function). */
  has(name: string): boolean {
    return this.defined.has(name);
  }

  /** Starts a call from the guest; returns the promise handle the guest awaits. */
  call(run: RunState, name: string, argsJson: string): QuickJSHandle {
    const ctx = this.guest.context;
    const deferred = newDeferredPromise(ctx);
    const refusal = run.over
      ? { name: "Error", message: `host function ${name} was called after the run ended` }
      : !this.defined.has(name)
      ? { name: "Error", message: `host function ${name} is not available in this run` }
      : hostCallLimitError(name, run.deferreds.size, run.hostCallsStarted, run.limits);
    if (refusal) {
      using error = ctx.newError(refusal);
      deferred.reject(error);
      // The function machinery disposes the returned handle; reject() freed the resolvers.
      return deferred.handle;
    }
    run.hostCallsStarted++;
    const callId = run.nextCallId++;
    run.deferreds.set(callId, deferred);
    this.host.call(run.runId, callId, name, argsJson);
    return deferred.handle;
  }

  /** Settles a call of `run` with the host's answer; ignores answers to unknown calls. */
  reply(run: RunState, callId: number, answer: HostReply): void {
    const deferred = run.deferreds.get(callId);
    if (!deferred) return;
    run.deferreds.delete(callId);
    const ctx = this.guest.context;
    using _deferred = deferred;
    using value = answer.ok
      ? answer.valueJson === undefined
        ? ctx.undefined
        : ctx.newString(answer.valueJson)
      : ctx.newError({ name: answer.name, message: answer.message });
    try {
      if (answer.ok) deferred.resolve(value);
      else deferred.reject(value);
    } catch {
      // Settling can fail only when the guest is out of memory; the run then ends on its own.
    }
    run.wake?.();
  }

  /** Drops the calls of a run that ended while they were in flight. */
  release(run: RunState): void {
    for (const d of run.deferreds.values()) d.dispose();
    run.deferreds.clear();
  }
}
