/** LangChain tools: `execute_code` (run the model's code) and `solve_with_code` (run the whole graph). */
export * from "./code-interpreter-tool.js";
export * from "./code-gen-tool.js";
export * from "./schemas.js";
export { formatExecutionForModel, DEFAULT_MAX_CONTENT_CHARS } from "./format.js";
