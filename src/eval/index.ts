/**
 * `codegen-sandbox/eval`: the evaluation harness. Task files (ours, HumanEval, HumanEval-X),
 * running a task set through a solver (the graph by default), and reports.
 */
export { InvalidTaskFileError, EvalModelUnavailableError } from "./errors.js";
export { loadTaskFile, parseTaskFile, TASK_FILE_FORMATS, type EvalTask, type ParseTaskFileOptions, type TaskFileFormat } from "./task-set.js";
export {
  runEvaluation,
  type EvalAttempt,
  type EvalReport,
  type EvalSandboxShare,
  type EvalSolver,
  type EvalSummary,
  type EvalTaskResult,
  type RunEvaluationOptions,
  type SolveOutcome,
} from "./run-evaluation.js";
export { graphSolver, type InvocableCodeGenGraph } from "./graph-solver.js";
export { renderEvalReport } from "./render-report.js";
export { timeSandbox, type SandboxTime, type TimedSandbox } from "./sandbox-timer.js";
