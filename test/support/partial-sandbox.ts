/**
 * A `Sandbox` for tests that script only some of its methods (`run`, `check`, ...): every
 * option named `sandbox` takes a whole `Sandbox`, and a method the test did not script throws.
 */
import type { Sandbox } from "../../src/sandbox/types.js";

export function partialSandbox(parts: Partial<Pick<Sandbox, "run" | "check" | "createSession" | "warm" | "prestartSession" | "dispose">>): Sandbox {
  const missing = (name: string) => () => Promise.reject(new Error(`this test's sandbox has no ${name}`));
  let disposed = false;
  return {
    run: parts.run ?? missing("run"),
    check: parts.check ?? missing("check"),
    createSession: parts.createSession ?? missing("createSession"),
    warm: parts.warm ?? (async () => {}),
    ...(parts.prestartSession ? { prestartSession: parts.prestartSession } : {}),
    dispose: async () => {
      disposed = true;
      await parts.dispose?.();
    },
    get disposed() {
      return disposed;
    },
  };
}
