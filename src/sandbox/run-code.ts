/**
 * `runCode` and `checkCode`: one-call entry points on a shared default sandbox, created on
 * first use. Its workers are unref'd while idle, so a script that calls `runCode` once exits
 * by itself.
 */
import { createSandbox, type SandboxWithStats } from "./sandbox.js";
import type { CheckResult, ExecutionResult, RunOptions } from "./types.js";

let shared: SandboxWithStats | undefined;

function defaultSandbox(): SandboxWithStats {
  if (!shared || shared.disposed) shared = createSandbox();
  return shared;
}

/**
 * Runs code in a fresh sandboxed context and returns what happened. Failures of the code
 * (syntax, exceptions, limits, forbidden imports) are statuses in the result, never throws.
 *
 * @throws InvalidOptionError for misuse: unknown language, bad limits, non-JSON globals,
 *   host functions that are not functions.
 * @example
 * const r = await runCode("console.log('hi'); 6 * 7");
 * // { status: "success", stdout: "hi\n", result: 42, ... }
 * const t = await runCode("const n: number = 2; n * 21", { language: "typescript" });
 * const h = await runCode("await add(2, 3)", { hostFunctions: { add: (a, b) => Number(a) + Number(b) } });
 */
export function runCode(code: string, options?: RunOptions): Promise<ExecutionResult> {
  return defaultSandbox().run(code, options);
}

/**
 * Checks code for syntax errors and forbidden imports without running it.
 *
 * @example
 * await checkCode("import fs from 'fs'"); // { ok: false, status: "forbidden", ... }
 */
export function checkCode(code: string, options?: Pick<RunOptions, "language">): Promise<CheckResult> {
  return defaultSandbox().check(code, options);
}

/**
 * The shared default sandbox that `runCode` and `checkCode` use (created on first call).
 * Sessions made from it share its lifetime. It never keeps the process alive while idle.
 *
 * @example
 * const session = await getSharedSandbox().createSession({ language: "javascript" });
 */
export function getSharedSandbox(): SandboxWithStats {
  return defaultSandbox();
}

/**
 * Disposes the shared default sandbox (its workers and sessions). A later `runCode` creates a
 * new one. Useful in tests and CLIs that want every thread gone before they return.
 *
 * @example
 * await disposeDefaultSandbox();
 */
export async function disposeDefaultSandbox(): Promise<void> {
  const sandbox = shared;
  shared = undefined;
  await sandbox?.dispose();
}
