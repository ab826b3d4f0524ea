/**
 * The sandbox SDK objects use when the caller gives none: created on first use, one per
 * process. Its workers start lazily and do not keep the process alive while idle; each live
 * instance holds its own session, released by `cleanup()`.
 */
import { createSandbox } from "../sandbox/index.js";
import type { Sandbox } from "../sandbox/types.js";

let shared: Sandbox | undefined;

/**
 * The SDK's shared sandbox (a new one if the previous was disposed).
 *
 * @example
 * ```ts
 * const session = await sdkSandbox().createSession({ language: "javascript" });
 * ```
 */
export function sdkSandbox(): Sandbox {
  if (shared === undefined || shared.disposed) shared = createSandbox({ poolSize: 1 });
  return shared;
}
