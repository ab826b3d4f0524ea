/** One task of an evaluation, whatever file format it came from (task-set.ts reads them). */
import type { Language } from "../sandbox/types.js";

/** One evaluation task: a prompt for the model and tests that decide whether its code works. */
export interface EvalTask {
  id: string;
  language: Language;
  /** What the model is asked to do. */
  task: string;
  /** Code in the same language, run after the model's code; it throws when the code is wrong. */
  tests: string;
  /** Extra information given to the model (e.g. a function signature to complete). */
  details?: string;
  /** Free text, e.g. `easy`, `medium`, `hard`. */
  difficulty?: string;
  /** Name of the function or class the tests call, when known. */
  entryPoint?: string;
  /**
   * The tests one by one (MBPP's `test_list`), when the format has them: `shownTests: K` shows
   * the model the first K (after `testSetup`) and judges on all of `tests`.
   */
  testCases?: string[];
  /** Code the test cases need before them (MBPP's `test_imports`). */
  testSetup?: string;
  /** Tests that judge but are never shown to the model (run after `tests`). */
  hiddenTests?: string;
}
