/**
 * The graph's pieces other front doors reuse that load LangChain: the option rules of
 * `createCodeGenGraph` (the tools that run the graph take the same options), and the verdict on a
 * run (eval's judge).
 */
export { GRAPH_OPTION_RULES } from "./configuration.js";
export { judgeRun } from "./nodes/execute.js";
