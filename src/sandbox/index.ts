/** Public surface of the sandbox: run, check, pools, sessions, and the contract types. */
export * from "./types.js";
export { runCode, checkCode, getSharedSandbox, disposeDefaultSandbox } from "./run-code.js";
export { createSandbox, type SandboxWithStats } from "./sandbox.js";
export {
  resolveRunOptions,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_MEMORY_LIMIT_BYTES,
  DEFAULT_MAX_OUTPUT_BYTES,
} from "./options.js";
export { JavaScriptSession } from "./js/host/session.js";
