/**
 * codegen-sandbox (package root): the sandbox core only. Run, check and pool model-written
 * JavaScript, TypeScript and Python; nothing here loads LangChain. The graph, the tools, the
 * SDK, the eval harness, the MCP server, the deepagents backend and the test helpers have their
 * own entry points: `codegen-sandbox/graph`, `/tools`, `/sdk`, `/eval`, `/mcp`, `/deepagents` and
 * `/testing`.
 */
export { runCode, checkCode, disposeDefaultSandbox } from "./sandbox/run-code.js";
export { createSandbox, type SandboxWithStats } from "./sandbox/sandbox.js";
export { currentHostCall } from "./sandbox/host-call-context.js";
export { DEFAULT_TIMEOUT_MS, DEFAULT_MEMORY_LIMIT_BYTES, DEFAULT_MAX_OUTPUT_BYTES } from "./sandbox/options.js";
export { LANGUAGES, EXECUTION_STATUSES, MAX_TEST_CASES } from "./sandbox/types.js";
export type {
  CheckResult,
  ExecutionError,
  ExecutionResult,
  ExecutionStatus,
  HostCallContext,
  HostFunction,
  JsonValue,
  Language,
  RunOptions,
  Sandbox,
  SandboxOptions,
  SandboxSession,
  SequencedRun,
  SessionOptions,
  TestsOutcome,
  TestCase,
} from "./sandbox/types.js";
export {
  CodeGenSandboxError,
  EngineUnavailableError,
  InvalidOptionError,
  PythonPackageError,
  SandboxDisposedError,
  SandboxSessionEndedError,
} from "./errors.js";
export type { PythonPackageProblem } from "./errors.js";
export { EngineSetupError } from "./sandbox/python/host/errors.js";
