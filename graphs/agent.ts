/**
 * The code agent for LangGraph Studio and `langgraph dev` (see langgraph.json): `createAgent` with
 * `execute_code` and `solve_with_code`. Nothing is called on import: the model is resolved when a
 * run starts, from `configurable.model`, else CODEGEN_MODEL / OPENAI_API_KEY / OPENAI_BASE_URL.
 */
import { createCodeAgent } from "../src/tools/code-agent.js";

/** The agent for Studio; the server adds its own checkpointer. */
export const graph = createCodeAgent();
