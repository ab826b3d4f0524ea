/**
 * The code-generation graph for LangGraph Studio and `langgraph dev` (see langgraph.json).
 * Nothing runs on import: the model is resolved from `configurable.model` or the environment
 * (CODEGEN_MODEL, OPENAI_API_KEY, OPENAI_BASE_URL) when a run starts.
 * It imports the package by its name, as a user's graph would: `langgraph dev` loads this file
 * from TypeScript, and the package's workers are started from its build (`npm run build`).
 */
import { createCodeGenGraph } from "codegen-sandbox/graph";

/** The compiled generate → validate → execute → refine graph; the server adds its own checkpointer. */
export const graph = createCodeGenGraph();
