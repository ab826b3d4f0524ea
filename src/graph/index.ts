/**
 * `codegen-sandbox/graph`: the generate → validate → execute → refine graph, its state, its
 * options and the errors a model configuration can raise.
 */
export {
  createCodeGenGraph,
  createCodeGenGraphBuilder,
  codeGenRecursionLimit,
  CodeGenContextSchema,
  type CodeGenGraph,
} from "./graph.js";
export {
  CodeGenState,
  type Attempt,
  type AttemptStatus,
  type CodeGenInput,
  type CodeGenStatus,
  type CodeGenStateType,
  type CodeGenUpdate,
} from "./state.js";
export {
  DEFAULT_MAX_RETRIES,
  codeGenRunContext,
  type CodeGenGraphOptions,
  type CodeGenRunContext,
} from "./configuration.js";
export { MAX_RETRIES_LIMIT } from "./retries.js";
export { runResultValue, runResultFiles, restoreRunResult, type StoredRunResult, type StoredResultFile } from "./stored-result.js";
export type { CodeGenEvent } from "./events.js";
export type { CodeGenPrompts, CodeGenPromptOverrides } from "./prompts.js";
export type { ApprovalDecision, ApprovalRequest } from "./nodes/approve.js";
export { summarizeAttempts, type AttemptSummary } from "./history.js";
export { ModelConfigurationError, ModelUnavailableError, ModelCallError } from "../models/errors.js";
export type { ModelSpec } from "../models/resolve-model.js";
/** The one extractor: the program a model's reply means (used by the graph, the SDK and the tools). */
export { extractProgram, MAX_REPLY_CHARS, type ExtractOptions, type ProgramExtraction } from "./extract-code.js";
/** The type check `validate` runs on TypeScript before running it (the compiler loads on first use). */
export { checkTypes, type TypeCheckOptions } from "../typecheck/check-types.js";
export type { SandboxDeclarationsOptions } from "../typecheck/declarations.js";
export type { TypeCheckResult, TypeDiagnostic } from "../typecheck/types.js";
