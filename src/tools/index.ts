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
export { codeModeMiddleware, type CodeModeMiddlewareOptions } from "./code-mode-middleware.js";
export {
  readStoredFile,
  fileContentsNamespace,
  codeModeToolSignatures,
  codeModeStateFields,
  codeModeStateSchema,
  resetCodeState,
  snapshotStoreFromBaseStore,
  DEFAULT_SNAPSHOT_EVERY,
  executeCodeSchema,
  type StoredFileRef,
  type CodeModeState,
  type SnapshotOptions,
  type SnapshotStore,
  type CodeCell,
  type RecordedHostCall,
  type ThreadFile,
  type ThreadFiles,
  type ThreadFilesUpdate,
  type FilesBackend,
  type FilesBackendOption,
  type CodeModeTool,
  type RecordedToolCall,
  type CodeModeToolSpec,
  type Persistence,
  type ExecuteCodeInput,
} from "../code-mode/index.js";
export {
  createCodeGenTool,
  type CodeGenToolOptions,
  type SolveWithCodeArtifact,
  type CodeGenGraphInput,
  type CodeGenGraphOutput,
  type CodeGenRunnable,
} from "./code-gen-tool.js";
export { solveWithCodeSchema, type SolveWithCodeInput } from "./schemas.js";
export { createCodeAgent, CODE_AGENT_SYSTEM_PROMPT, type CodeAgent, type CodeAgentOptions } from "./code-agent.js";
