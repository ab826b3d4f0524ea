/** The code-generation graph and its parts. */
export * from "./graph.js";
export * from "./state.js";
export * from "./configuration.js";
export * from "./routers.js";
export * from "./events.js";
export * from "./extract-code.js";
export { explainResult, explainCheck, describeError, quoteLine, MAX_EXPLANATION_CHARS } from "./explain.js";
export * from "./history.js";
export { defaultPrompts, resolvePrompts, renderTemplate } from "./prompts.js";
export type { CodeGenPrompts, CodeGenPromptOverrides } from "./prompts.js";
export type { ApprovalDecision, ApprovalRequest } from "./nodes/approve.js";
