/**
 * The code-generation graph: generate → validate → (approve →) execute, looping through
 * refine on failures, ending in finalize.
 */
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import type { Language } from "../sandbox/types.js";
import { resolveCodeGenContext } from "./configuration.js";
import type { CodeGenGraphOptions } from "./configuration.js";
import { createApproveNode } from "./nodes/approve.js";
import { createExecuteNode } from "./nodes/execute.js";
import { createFinalizeNode } from "./nodes/finalize.js";
import { createGenerateNode } from "./nodes/generate.js";
import { createRefineNode } from "./nodes/refine.js";
import { createValidateNode } from "./nodes/validate.js";
import { routeAfterApprove, routeAfterExecute, routeAfterModel, routeAfterValidate } from "./routers.js";
import { CodeGenState } from "./state.js";

/**
 * What a run may set in `config.configurable` (shown as the assistant's configuration in
 * LangGraph Studio): `model` (`"provider:model"`), `maxRetries`, `defaultLanguage`.
 */
export const CodeGenConfigurableAnnotation = Annotation.Root({
  model: Annotation<string | undefined>,
  maxRetries: Annotation<number | undefined>,
  defaultLanguage: Annotation<Language | undefined>,
});

/**
 * The uncompiled graph, so callers can compile it with their own checkpointer, store or
 * interrupts. Options are checked here (throws `InvalidOptionError`); the model is resolved
 * when a run needs it.
 *
 * @example
 * ```ts
 * const graph = createCodeGenGraphBuilder({ model }).compile({ checkpointer: new MemorySaver() });
 * ```
 */
export function createCodeGenGraphBuilder(options: CodeGenGraphOptions = {}) {
  const context = resolveCodeGenContext(options);
  return new StateGraph(CodeGenState, CodeGenConfigurableAnnotation)
    .addNode("generate", createGenerateNode(context))
    .addNode("validate", createValidateNode(context))
    .addNode("approve", createApproveNode())
    .addNode("execute", createExecuteNode(context))
    .addNode("refine", createRefineNode(context))
    .addNode("finalize", createFinalizeNode(context))
    .addEdge(START, "generate")
    .addConditionalEdges("generate", routeAfterModel, { validate: "validate", finalize: "finalize" })
    .addConditionalEdges("validate", routeAfterValidate, { approve: "approve", execute: "execute", refine: "refine", finalize: "finalize" })
    .addConditionalEdges("approve", routeAfterApprove, { execute: "execute", finalize: "finalize" })
    .addConditionalEdges("execute", routeAfterExecute, { refine: "refine", finalize: "finalize" })
    .addConditionalEdges("refine", routeAfterModel, { validate: "validate", finalize: "finalize" })
    .addEdge("finalize", END);
}

/**
 * The compiled code-generation graph. Input `{ task, language?, context?, tests?, expectedOutput? }`;
 * output state with `code`, `result`, `status` (`"success" | "failed" | "rejected"`), `attempts`
 * and `explanation`. Pass `checkpointer` to keep threads (needed for `approveBeforeExecute`).
 *
 * @example
 * ```ts
 * const graph = createCodeGenGraph({ model: "openai:gpt-4o-mini", maxRetries: 2 });
 * const state = await graph.invoke({ task: "Print the factorial of 10", language: "python" });
 * console.log(state.status, state.result?.stdout);
 * ```
 */
export function createCodeGenGraph(options: CodeGenGraphOptions = {}) {
  const builder = createCodeGenGraphBuilder(options);
  return builder.compile({ ...(options.checkpointer === undefined ? {} : { checkpointer: options.checkpointer }), name: "codegen" });
}

/** The compiled graph's type. */
export type CodeGenGraph = ReturnType<typeof createCodeGenGraph>;
