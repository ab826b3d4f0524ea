/**
 * The code-generation graph: generate → validate → (approve →) execute, looping through
 * refine on failures, ending in finalize.
 */
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import type { Language } from "../sandbox/types.js";
import { MAX_RETRIES_LIMIT, resolveCodeGenContext } from "./configuration.js";
import type { CodeGenGraphOptions } from "./configuration.js";
import { createApproveNode } from "./nodes/approve.js";
import { createExecuteNode } from "./nodes/execute.js";
import { createFinalizeNode } from "./nodes/finalize.js";
import { createGenerateNode, graphStepsNeeded } from "./nodes/generate.js";
import { createRefineNode } from "./nodes/refine.js";
import { createValidateNode } from "./nodes/validate.js";
import { routeAfterApprove, routeAfterExecute, routeAfterModel, routeAfterValidate } from "./routers.js";
import { CodeGenState } from "./state.js";

/**
 * The graph's run-time context schema (LangGraph 1.x `contextSchema`): the per-run settings
 * of {@link CodeGenRunContext}, shown and editable as the graph's context in LangGraph Studio.
 * Pass them as `graph.invoke(input, { context: { maxRetries: 4, timeoutMs: 2000 } })`.
 */
export const CodeGenContextAnnotation = Annotation.Root({
  model: Annotation<string | undefined>,
  maxRetries: Annotation<number | undefined>,
  defaultLanguage: Annotation<Language | undefined>,
  timeoutMs: Annotation<number | undefined>,
  memoryLimitBytes: Annotation<number | undefined>,
  maxOutputBytes: Annotation<number | undefined>,
});

/**
 * The same schema under its old name.
 *
 * @deprecated Use {@link CodeGenContextAnnotation} and pass settings as `context`; settings in
 * `configurable` keep working for one release.
 */
export const CodeGenConfigurableAnnotation = CodeGenContextAnnotation;

/**
 * The `recursionLimit` the graph binds to itself: enough for the largest `maxRetries` a run
 * may choose (its loop is bounded by `maxRetries` itself; LangGraph's default of 25 would stop
 * it after 6 repairs). A `recursionLimit` the caller passes still wins.
 *
 * @example
 * ```ts
 * codeGenRecursionLimit(false); // 66
 * ```
 */
export function codeGenRecursionLimit(approveBeforeExecute: boolean): number {
  return graphStepsNeeded(MAX_RETRIES_LIMIT, approveBeforeExecute);
}

/**
 * The uncompiled graph, so callers can compile it with their own checkpointer, store or
 * interrupts. Options are checked here (throws `InvalidOptionError`); the model is resolved
 * when a run needs it. Its `compile()` binds the graph's own `recursionLimit`
 * ({@link codeGenRecursionLimit}), so every `maxRetries` up to 20 works.
 *
 * @example
 * ```ts
 * const graph = createCodeGenGraphBuilder({ model }).compile({ checkpointer: new MemorySaver() });
 * ```
 */
export function createCodeGenGraphBuilder(options: CodeGenGraphOptions = {}) {
  const context = resolveCodeGenContext(options);
  const builder = new StateGraph(CodeGenState, CodeGenContextAnnotation)
    .addNode("generate", createGenerateNode(context))
    .addNode("validate", createValidateNode(context))
    .addNode("approve", createApproveNode())
    .addNode("execute", createExecuteNode(context))
    .addNode("refine", createRefineNode(context))
    .addNode("finalize", createFinalizeNode(context))
    .addEdge(START, "generate")
    .addConditionalEdges("generate", routeAfterModel, { validate: "validate", finalize: "finalize" })
    .addConditionalEdges("validate", routeAfterValidate, { approve: "approve", execute: "execute", refine: "refine", finalize: "finalize" })
    .addConditionalEdges("approve", routeAfterApprove, { validate: "validate", execute: "execute", finalize: "finalize" })
    .addConditionalEdges("execute", routeAfterExecute, { refine: "refine", finalize: "finalize" })
    .addConditionalEdges("refine", routeAfterModel, { validate: "validate", finalize: "finalize" })
    .addEdge("finalize", END);
  // LangGraph has no compile-time recursion limit: bind it to every graph this builder compiles.
  const compile = builder.compile.bind(builder);
  const recursionLimit = codeGenRecursionLimit(context.approveBeforeExecute);
  builder.compile = ((...args: Parameters<typeof compile>) => compile(...args).withConfig({ recursionLimit })) as typeof compile;
  return builder;
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
