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

/** Longest host error message that crosses into the guest (the rest of a host error never does). */
const MAX_HOST_ERROR_MESSAGE_CHARS = 2000;

/**
 * Name and message of whatever a host function threw, for the guest; nothing else of the host
 * (no stack, no other fields) crosses. Reading them must not throw itself (a value like
 * `Object.create(null)` has no string form, a getter may throw): a throw here would be an
 * unhandled rejection in the host and leave the guest waiting.
 */
export function describeHostFailure(error: unknown): { name: string; message: string } {
  const read = (key: "name" | "message"): unknown => {
    try {
      return (error as Record<string, unknown> | null)?.[key];
    } catch {
      return undefined;
    }
  };
  const name = read("name");
  const message = read("message");
  let text: string;
  if (typeof message === "string") text = message;
  else {
    try {
      text = String(error);
    } catch {
      text = "the host function failed with a value that cannot be described";
    }
  }
  return { name: typeof name === "string" ? name.slice(0, 100) : "Error", message: text.slice(0, MAX_HOST_ERROR_MESSAGE_CHARS) };
}
