/**
 * Installs a guest-side shim: JavaScript whose value is a function, evaluated in the context and
 * called once with its host operation (and any further arguments). `files` and `Intl` are
 * installed this way.
 */
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";

/**
 * Evaluates `source` (named `fileName` in stacks) and calls the function it yields with `args`.
 * Returns the thrown handle (the caller's to dispose) if the guest failed, else undefined. The
 * caller keeps ownership of `args`.
 */
export function installShim(ctx: QuickJSContext, source: string, fileName: string, args: readonly QuickJSHandle[]): QuickJSHandle | undefined {
  const shim = ctx.evalCode(source, fileName);
  if (shim.error) return shim.error;
  using fn = shim.value;
  using r = ctx.callFunction(fn, ctx.undefined, ...args);
  if (r.error) return r.error.dup();
  return undefined;
}
