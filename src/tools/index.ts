/**
 * `codegen-sandbox/tools`: LangChain tools for agents. `execute_code` runs the model's code;
 * `solve_with_code` runs the whole generate → check → repair graph for a task; `createCodeAgent`
 * is `createAgent` from `langchain` with both tools and a prompt for them; `codeModeMiddleware`
 * makes a `createAgent` agent work in code mode (tools called from code, state and files per thread).
 */
export {
  createCodeInterpreterTool,
  codeInterpreterToolReady,
  disposeCodeInterpreterTool,
  type CodeInterpreterToolOptions,
  type ExecuteCodeArtifact,
  type ArtifactFileRef,
} from "../code-mode/call/code-interpreter.js";
export { readStoredFile, fileContentsNamespace, type StoredFileRef } from "../code-mode/thread/content-store.js";
export { codeModeMiddleware, type CodeModeMiddlewareOptions } from "./code-mode-middleware.js";
export { codeModeToolSignatures } from "../code-mode/call/describe.js";
export { codeModeStateFields, codeModeStateSchema, resetCodeState, type CodeModeState } from "../code-mode/thread/state.js";
export { snapshotStoreFromBaseStore, DEFAULT_SNAPSHOT_EVERY, type SnapshotOptions, type SnapshotStore } from "../code-mode/replay/snapshots.js";
export type { CodeCell, RecordedHostCall } from "../code-mode/replay/cell-log.js";
export type { ThreadFile, ThreadFiles, ThreadFilesUpdate } from "../code-mode/thread/files.js";
export type { FilesBackend, FilesBackendOption } from "../code-mode/thread/file-sources.js";
export type { CodeModeTool, RecordedToolCall } from "../code-mode/tools/tool-bridge.js";
export type { CodeModeToolSpec } from "../code-mode/tools/tool-resolution.js";
export type { Persistence } from "../code-mode/replay/runner.js";
export {
  createCodeGenTool,
  type CodeGenToolOptions,
  type SolveWithCodeArtifact,
  type CodeGenGraphInput,
  type CodeGenGraphOutput,
  type CodeGenRunnable,
} from "./code-gen-tool.js";
export { solveWithCodeSchema, type SolveWithCodeInput } from "./schemas.js";
export { executeCodeSchema, type ExecuteCodeInput } from "../code-mode/call/input-schema.js";
export { createCodeAgent, CODE_AGENT_SYSTEM_PROMPT, type CodeAgent, type CodeAgentOptions } from "./code-agent.js";
