/**
 * The code-generation graph: generate → validate → (approve →) execute, looping through
 * refine on failures, ending in finalize.
 */
import { END, isCommand, START, StateGraph } from "@langchain/langgraph";
import { z } from "zod";
import { LANGUAGES, type Language } from "../sandbox/types.js";
import { resolveGraphSettings } from "./configuration.js";
import { MAX_RETRIES_LIMIT } from "./retries.js";
import type { CodeGenGraphOptions } from "./configuration.js";
import { createApproveNode } from "./nodes/approve.js";
import { createExecuteNode } from "./nodes/execute.js";
import { createFinalizeNode } from "./nodes/finalize.js";
import { createGenerateNode, graphStepsNeeded } from "./nodes/generate.js";
import { createRefineNode } from "./nodes/refine.js";
import { createValidateNode } from "./nodes/validate.js";
import { routeAfterApprove, routeAfterExecute, routeAfterModel, routeAfterRefine, routeAfterValidate } from "./routers.js";
import { checkCodeGenInput, CodeGenState } from "./state.js";

/**
 * The graph's run-time context schema (LangGraph 1.x `contextSchema`): the per-run settings
 * of {@link CodeGenRunContext}, shown and editable as the graph's context in LangGraph Studio.
 * Pass them as `graph.invoke(input, { context: { maxRetries: 4, timeoutMs: 2000 } })`.
 * LangGraph parses every run's context with this schema (and, without a context, its
 * `configurable`); each field falls back to "not set" there (`.catch`), so a wrong value is
 * never raw ZodError JSON: the run checks every setting itself when it starts and throws one
 * `InvalidOptionError` naming it (`context.timeoutMs`, or `configurable.timeoutMs`).
 */
export const CodeGenContextSchema = z.object({
  model: z.string().optional().catch(undefined).describe('Chat model for this run, as "provider:model" (e.g. "openai:gpt-4o-mini").'),
  maxRetries: z.number().optional().catch(undefined).describe("Repairs after the first attempt, 0 to 20."),
  defaultLanguage: z.enum(LANGUAGES as [Language, ...Language[]]).optional().catch(undefined).describe("Language of a task that names none."),
  timeoutMs: z.number().optional().catch(undefined).describe("Time limit of each run in the sandbox, in milliseconds."),
  memoryLimitBytes: z.number().optional().catch(undefined).describe("Memory limit of each run, in bytes."),
  maxOutputBytes: z.number().optional().catch(undefined).describe("Printed output kept per run, in bytes."),
});

/**
 * The `recursionLimit` the graph binds to itself: enough for the largest `maxRetries` a run
 * may choose (its loop is bounded by `maxRetries` itself; LangGraph's default of 25 would stop
 * it after 6 repairs). A `recursionLimit` the caller passes still wins.
 *
 * @example
 * ```ts
 * codeGenRecursionLimit(false); // 65
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
  const settings = resolveGraphSettings(options);
  const builder = new StateGraph(CodeGenState, CodeGenContextSchema)
    .addNode("generate", createGenerateNode(settings))
    .addNode("validate", createValidateNode(settings))
    .addNode("approve", createApproveNode())
    .addNode("execute", createExecuteNode(settings))
    .addNode("refine", createRefineNode(settings))
    .addNode("finalize", createFinalizeNode(settings))
    .addEdge(START, "generate")
    .addConditionalEdges("generate", routeAfterModel, { validate: "validate", finalize: "finalize" })
    .addConditionalEdges("validate", routeAfterValidate, { approve: "approve", execute: "execute", refine: "refine", finalize: "finalize" })
    .addConditionalEdges("approve", routeAfterApprove, { validate: "validate", execute: "execute", finalize: "finalize" })
    .addConditionalEdges("execute", routeAfterExecute, { refine: "refine", finalize: "finalize" })
    .addConditionalEdges("refine", routeAfterRefine, { validate: "validate", refine: "refine", finalize: "finalize" })
    .addEdge("finalize", END);
  // LangGraph has no compile-time recursion limit: bind it to every graph this builder compiles.
  const compile = builder.compile.bind(builder);
  const recursionLimit = codeGenRecursionLimit(settings.approveBeforeExecute);
  builder.compile = ((...args: Parameters<typeof compile>) => checkedInput(compile(...args).withConfig({ recursionLimit }))) as typeof compile;
  return builder;
}

/**
 * The compiled graph, with its input checked as the caller passed it (unknown keys refused with
 * the nearest field's name; LangGraph itself drops keys that are not channels in silence).
 * `_validateInput` is the hook LangGraph's compiled graphs run on every input of `invoke` and
 * `stream`; a resume (`Command`) or `null` (continue a thread) passes as is.
 */
function checkedInput<G extends object>(graph: G): G {
  // A protected method of LangGraph's compiled graph (pinned version; a test covers the hook).
  const hooked = graph as unknown as { _validateInput(input: unknown): Promise<unknown> };
  const validate = hooked._validateInput.bind(graph);
  hooked._validateInput = async (input: unknown) => {
    if (input !== null && input !== undefined && typeof input === "object" && !isCommand(input)) checkCodeGenInput(input, { unknownKeys: true });
    return validate(input);
  };
  return graph;
}

/**
 * The compiled code-generation graph. Input `{ task, language?, details?, tests?, expectedOutput? }`;
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
