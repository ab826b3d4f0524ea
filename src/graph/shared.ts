/**
 * What the package's other front doors (the CLI, eval, the SDK, MCP, the tools) use of the graph
 * besides its public entry (`index.ts`): its option rules, the reading of a model's reply, the
 * language a task names, a run's stored result. Loads no LangChain: the CLI imports it before it
 * checks the peers (`peers.ts`); what needs LangChain is in `index.ts` and `shared-nodes.ts`.
 */
export { DEFAULT_MAX_RETRIES, MAX_RETRIES_RULE } from "./retries.js";
export { resolveRepairStrategy, type RepairStrategy } from "./repair-strategy.js";
export { inferLanguage } from "./infer-language.js";
export { findSameProgram } from "./same-program.js";
export { runResultValue, restoreRunResult, type StoredRunResult } from "./stored-result.js";
export { extractProgram } from "./extract-code.js";
export { defaultPrompts } from "./prompts.js";
export { ExecutionHistory, formatSummary } from "./history.js";
export { scanJavaScript, callableNames } from "./reply/js-source.js";
export { scanPython } from "./reply/python-source.js";
export type { Attempt, CodeGenInput, CodeGenStatus, CodeGenStateType } from "./state.js";
export type { CodeGenEvent } from "./events.js";
export type { CodeGenGraph } from "./graph.js";
export type { CodeRunner, codeGenRunContext } from "./configuration.js";
