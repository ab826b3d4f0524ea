/** Adapts the code-generation graph to the evaluation harness's solver interface. */
import type { RunnableConfig } from "@langchain/core/runnables";
import { findSameProgram, type Attempt, type CodeGenInput, type CodeGenStatus } from "../graph/shared.js";
import type { EvalSolver, SolveOutcome } from "./run-evaluation.js";
import type { EvalTask } from "./eval-task.js";
import { InvalidOptionError } from "../errors.js";
import { taskTests } from "./shown-tests.js";

/** Runs `code` with `tests` and says whether both ran and the tests passed (the judged verdict). */
export type EvalJudge = (code: string, tests: string, task: EvalTask) => Promise<boolean>;

/** Options of {@link graphSolver} beyond the run config. */
export interface GraphSolverOptions {
  /** Show the model only the first K test cases of tasks that have them (MBPP); judge on all. */
  shownTests?: number;
  /**
   * Judges the final program on the judged tests when they differ from the shown ones
   * (hidden tests, `shownTests`). Required then.
   */
  judge?: EvalJudge;
}

/** The part of a compiled code-generation graph the harness uses (`createCodeGenGraph()` fits). */
export interface InvocableCodeGenGraph {
  invoke(
    input: CodeGenInput,
    config?: RunnableConfig,
  ): Promise<{ status?: CodeGenStatus; attempts?: Attempt[]; explanation?: string; code?: string }>;
}

/**
 * The graph input for a task: its prompt, language, details and tests.
 *
 * @example
 * ```ts
 * await graph.invoke(taskToGraphInput(tasks[0]));
 * ```
 */
export function taskToGraphInput(task: EvalTask, shownTests?: number): CodeGenInput {
  // Only the shown tests: hidden ones never reach the graph (nor the model).
  const input: CodeGenInput = { task: task.task, language: task.language, tests: taskTests(task, shownTests).shown };
  if (task.details !== undefined) input.details = task.details;
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
export function graphSolver(graph: InvocableCodeGenGraph, config: RunnableConfig = {}, options: GraphSolverOptions = {}): EvalSolver {
  if (graph === null || typeof graph !== "object" || typeof (graph as { invoke?: unknown }).invoke !== "function") {
    throw new InvalidOptionError("graph", graph, "a compiled code-generation graph (createCodeGenGraph())");
  }
  if (config === null || typeof config !== "object") throw new InvalidOptionError("config", config, "a LangGraph run config object");
  let run = 0;
  return async (task, signal) => {
    const threadId = `eval-${task.id}-${Date.now()}-${run++}`;
    const tests = taskTests(task, options.shownTests);
    if (tests.split && options.judge === undefined) {
      throw new InvalidOptionError("judge", undefined, `a judge (code, tests, task) => Promise<boolean>: task ${task.id} has tests the model is not shown`);
    }
    const state = await graph.invoke(taskToGraphInput(task, options.shownTests), {
      ...config,
      ...(signal ? { signal } : {}),
      configurable: { ...config.configurable, thread_id: threadId },
    });
    const attempts = state.attempts ?? [];
    // The loop stops at the first attempt that passes the shown tests, so only the last one
    // can pass; with tests the model was not shown, it is run again on all of them.
    const last = attempts.at(-1);
    const shownPassed = state.status === "success" && last?.status === "success";
    const judgedPassed = shownPassed && (!tests.split || (await options.judge!(last.code, tests.judged, task)));
    const executed: { number: number; code: string }[] = [];
    let repeatsExecuted = 0;
    for (const attempt of attempts) {
      if (attempt.phase !== "execute") continue;
      if (findSameProgram(attempt.code, executed, task.language) !== undefined) repeatsExecuted++;
      executed.push(attempt);
    }
    const outcome: SolveOutcome = {
      passed: judgedPassed,
      attempts: attempts.map((a, index) => ({
        passed: index === attempts.length - 1 ? judgedPassed : false,
        status: a.status,
        inputTokens: a.inputTokens,
        outputTokens: a.outputTokens,
        sandboxMs: a.durationMs,
        modelCalls: a.modelCalls ?? (a.status === "model_error" && a.inputTokens === 0 ? 0 : 1),
        repeats: a.repeats ?? 0,
      })),
      repeatsExecuted,
    };
    if (shownPassed && !judgedPassed) outcome.explanation = "The program passed the tests it was shown but failed the judged tests.";
    const explanation = outcome.explanation ?? state.explanation ?? attempts.at(-1)?.error;
    if (explanation !== undefined && !judgedPassed) outcome.explanation = explanation;
    if (state.code !== undefined) outcome.code = state.code;
    return outcome;
  };
}
