/** Adapts the code-generation graph to the evaluation harness's solver interface. */
import type { RunnableConfig } from "@langchain/core/runnables";
import type { Attempt, CodeGenInput, CodeGenStatus } from "../graph/state.js";
import type { EvalSolver, SolveOutcome } from "./run-evaluation.js";
import type { EvalTask } from "./task-set.js";
import { InvalidOptionError } from "../errors.js";

/** The part of a compiled code-generation graph the harness uses (`createCodeGenGraph()` fits). */
export interface InvocableCodeGenGraph {
  invoke(
    input: CodeGenInput,
    config?: RunnableConfig,
  ): Promise<{ status?: CodeGenStatus; attempts?: Attempt[]; explanation?: string; code?: string }>;
}

/**
 * The graph input for a task: its prompt, language, context and tests.
 *
 * @example
 * ```ts
 * await graph.invoke(taskToGraphInput(tasks[0]));
 * ```
 */
export function taskToGraphInput(task: EvalTask): CodeGenInput {
  const input: CodeGenInput = { task: task.task, language: task.language, tests: task.tests };
  if (task.context !== undefined) input.context = task.context;
  return input;
}

/**
 * A solver that runs each task through `graph` (a fresh thread per task when the graph has a
 * checkpointer). An attempt counts as passed when the graph recorded it as `success`, which
 * for a task with tests means the program ran to its end and then the tests ran and passed (a
 * program that exits before its tests is `tests_not_run`, a failure).
 *
 * @example
 * ```ts
 * const graph = createCodeGenGraph({ model: "openai:gpt-4o-mini", maxRetries: 2 });
 * const report = await runEvaluation({ tasks, solve: graphSolver(graph) });
 * ```
 */
export function graphSolver(graph: InvocableCodeGenGraph, config: RunnableConfig = {}): EvalSolver {
  if (graph === null || typeof graph !== "object" || typeof (graph as { invoke?: unknown }).invoke !== "function") {
    throw new InvalidOptionError("graph", graph, "a compiled code-generation graph (createCodeGenGraph())");
  }
  if (config === null || typeof config !== "object") throw new InvalidOptionError("config", config, "a LangGraph run config object");
  let run = 0;
  return async (task, signal) => {
    const threadId = `eval-${task.id}-${Date.now()}-${run++}`;
    const state = await graph.invoke(taskToGraphInput(task), {
      ...config,
      ...(signal ? { signal } : {}),
      configurable: { ...config.configurable, thread_id: threadId },
    });
    const attempts = state.attempts ?? [];
    const outcome: SolveOutcome = {
      passed: state.status === "success",
      attempts: attempts.map((a) => ({
        passed: a.status === "success",
        status: a.status,
        inputTokens: a.inputTokens,
        outputTokens: a.outputTokens,
        sandboxMs: a.durationMs,
      })),
    };
    const explanation = state.explanation ?? attempts.at(-1)?.error;
    if (explanation !== undefined) outcome.explanation = explanation;
    if (state.code !== undefined) outcome.code = state.code;
    return outcome;
  };
}
