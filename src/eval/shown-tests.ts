/**
 * Which tests the model is shown and which judge: the graph sees only the shown ones; a task
 * passes only when its final program passes all of them, hidden ones included.
 */
import type { EvalTask } from "./eval-task.js";

/** The two test sets of a task. */
export interface TaskTests {
  /** Tests the graph (and so the model) sees and repairs against. */
  shown: string;
  /** Tests that decide whether the task passed (the shown ones and the rest). */
  judged: string;
  /** True when the two differ (the final program must be run again on `judged`). */
  split: boolean;
}

/**
 * The shown and judged tests of `task`. With `shownTests: K` and a task with `testCases`
 * (MBPP), the first K cases are shown (after `testSetup`); without cases, the whole of `tests`
 * is shown. `hiddenTests` are never shown and always judge.
 *
 * @example
 * ```ts
 * taskTests({ ...task, testCases: ["assert f(1) == 1", "assert f(2) == 4"] }, 1).shown; // "assert f(1) == 1\n"
 * ```
 */
export function taskTests(task: EvalTask, shownTests?: number): TaskTests {
  const hidden = task.hiddenTests?.trim() ?? "";
  const judged = hidden === "" ? task.tests : `${task.tests.trimEnd()}\n${hidden}\n`;
  let shown = task.tests;
  if (shownTests !== undefined && task.testCases !== undefined && shownTests < task.testCases.length) {
    shown = [task.testSetup ?? "", ...task.testCases.slice(0, shownTests)].filter((t) => t.trim() !== "").join("\n") + "\n";
  }
  return { shown, judged, split: shown !== judged };
}
