/**
 * The context of the host call being served, for host functions that want to know when their
 * run ended. Engines call every host function inside `withHostCall`; the function (arrow or
 * not, before or after an `await`) reads it with `currentHostCall()`.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { HostCallContext } from "./types.js";

const storage = new AsyncLocalStorage<HostCallContext>();

/**
 * The call this host function is serving, or `undefined` outside a host call.
 *
 * @example
 * const sandbox = createSandbox();
 * await sandbox.run("await slow()", {
 *   hostFunctions: {
 *     slow: () => new Promise((resolve) => {
 *       const { signal } = currentHostCall()!;
 *       const timer = setTimeout(resolve, 10_000);
 *       signal.addEventListener("abort", () => clearTimeout(timer)); // the run ended
 *     }),
 *   },
 * });
 */
export function currentHostCall(): HostCallContext | undefined {
  return storage.getStore();
}

/** Runs `fn` as the host call described by `context` (for engines). */
export function withHostCall<T>(context: HostCallContext, fn: () => T): T {
  return storage.run(context, fn);
}
