/**
 * `codegen-sandbox/tools`: LangChain tools for agents. `execute_code` runs the model's code;
 * `solve_with_code` runs the whole generate → check → repair graph for a task; `createCodeAgent`
 * is `createAgent` from `langchain` with both tools and a prompt for them.
 */
export {
  createCodeInterpreterTool,
  type CodeInterpreterToolOptions,
  type ExecuteCodeArtifact,
} from "./code-interpreter-tool.js";
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
