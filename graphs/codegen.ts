/**
 * The code-generation graph for LangGraph Studio and `langgraph dev` (see langgraph.json).
 * Nothing runs on import: the model is resolved from `configurable.model` or the environment
 * (CODEGEN_MODEL, OPENAI_API_KEY, OPENAI_BASE_URL) when a run starts.
 */
import { createCodeGenGraph } from "../src/graph/index.js";

/** The compiled generate → validate → execute → refine graph; the server adds its own checkpointer. */
export const graph = createCodeGenGraph();
