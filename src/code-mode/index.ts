/**
 * Code mode's one entry: what the LangChain adapters (`tools/`) and the code-generation graph
 * use of it. Inside, each folder holds one concern:
 *
 * - `call/`: one `execute_code` call — its options, where it runs (state, thread, step order),
 *   its text, artifact and state update (`Command`);
 * - `thread/`: a thread's state in the graph — the channels, its files and where their contents
 *   live (checkpoint, `codeFileContents`, the graph's store);
 * - `replay/`: running a cell and restoring a thread exactly — the runner, the log, host-call
 *   records, sessions, snapshots;
 * - `tools/`: LangChain tools called from code — the bridge, their caps, errors and signatures,
 *   and the hook the graph's execute node uses.
 */
export { codeInterpreterFromOptions, createCodeInterpreter, type CodeInterpreter, type CodeToolWiring } from "./call/code-interpreter.js";
export { registerCodeInterpreterTool, prestartCodeThread, codeInterpreterToolReady, disposeCodeInterpreterTool, codeInterpreterRunner } from "./call/registry.js";
export { CODE_INTERPRETER_OPTION_RULES, type CodeInterpreterToolOptions } from "./call/options.js";
export type { ExecuteCodeArtifact, ArtifactFileRef } from "./call/artifact.js";
export { executeCodeSchema, type ExecuteCodeInput } from "./call/input-schema.js";
export { codeModePromptSection, codeModeToolSignatures, middlewareToolDescription } from "./call/describe.js";
export { readStoredFile, fileContentsNamespace, isGraphStore, type StoredFileRef } from "./thread/content-store.js";
export { contentsGoToStore, holdsStoredFiles, moveFilesToStore } from "./thread/content-by-digest.js";
export { codeModeStateFields, codeModeStateSchema, resetCodeState, type CodeModeState } from "./thread/state.js";
export type { ThreadFile, ThreadFiles, ThreadFilesUpdate } from "./thread/files.js";
export type { FilesBackend, FilesBackendOption } from "./thread/file-sources.js";
export { snapshotStoreFromBaseStore, DEFAULT_SNAPSHOT_EVERY, type SnapshotOptions, type SnapshotStore } from "./replay/snapshots.js";
export type { CodeCell, RecordedHostCall } from "./replay/cell-log.js";
export type { Persistence } from "./replay/runner.js";
export type { CodeModeTool, RecordedToolCall } from "./tools/tool-types.js";
export { parseToolSpecs, resolveToolSpecs, unresolvedTools, type CodeModeToolSpec, type ResolvedTools, type ToolSpecs } from "./tools/tool-resolution.js";
export { graphScope } from "./tools/graph-task.js";
export { codeToolsHook } from "./tools/code-tools-hook.js";
