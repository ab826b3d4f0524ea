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
} from "./code-interpreter-tool.js";
export { readStoredFile, fileContentsNamespace, type StoredFileRef } from "../code-mode/content-store.js";
export { codeModeMiddleware, type CodeModeMiddlewareOptions } from "./code-mode-middleware.js";
export { codeModeToolSignatures } from "../code-mode/describe.js";
export { codeModeStateFields, codeModeStateSchema, resetCodeState, type CodeModeState } from "../code-mode/state.js";
export { snapshotStoreFromBaseStore, DEFAULT_SNAPSHOT_EVERY, type SnapshotOptions, type SnapshotStore } from "../code-mode/snapshots.js";
export type { CodeCell, RecordedHostCall } from "../code-mode/cell-log.js";
export type { ThreadFile, ThreadFiles, ThreadFilesUpdate } from "../code-mode/files.js";
export type { FilesBackend, FilesBackendOption } from "../code-mode/file-sources.js";
export type { CodeModeTool, RecordedToolCall } from "../code-mode/tool-bridge.js";
export type { CodeModeToolSpec } from "../code-mode/tool-resolution.js";
export type { Persistence } from "../code-mode/runner.js";
export {
  createCodeGenTool,
  type CodeGenToolOptions,
  type SolveWithCodeArtifact,
  type CodeGenGraphInput,
  type CodeGenGraphOutput,
  type CodeGenRunnable,
} from "./code-gen-tool.js";
export { executeCodeSchema, solveWithCodeSchema, type ExecuteCodeInput, type SolveWithCodeInput } from "./schemas.js";
export { createCodeAgent, CODE_AGENT_SYSTEM_PROMPT, type CodeAgent, type CodeAgentOptions } from "./code-agent.js";
