/** The evaluation harness: task files, running a task set through a solver, reports. */
export * from "./errors.js";
export * from "./task-set.js";
export * from "./run-evaluation.js";
export * from "./graph-solver.js";
export * from "./render-report.js";
