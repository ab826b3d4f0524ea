/**
 * The code agent for LangGraph Studio and `langgraph dev` (see langgraph.json): `createAgent` with
 * `execute_code` and `solve_with_code`. Nothing is called on import: the model is resolved when a
 * run starts, from `configurable.model`, else CODEGEN_MODEL / OPENAI_API_KEY / OPENAI_BASE_URL.
 * It imports the package by its name, as a user's graph would: `langgraph dev` loads this file
 * from TypeScript, and the package's workers are started from its build (`npm run build`).
 */
import { createCodeAgent } from "codegen-sandbox/tools";

/** The agent for Studio; the server adds its own checkpointer. */
export const graph = createCodeAgent();
