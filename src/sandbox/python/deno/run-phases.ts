/**
 * What the runner adds to a run with `tests`: the tests' output kept apart from the program's,
 * and the tests' outcome when a limit (decided by the runner, not by Python) ended the run.
 */
import type { ExecutionError } from "../../types.js";
import type { PythonOutcome, PythonTestsOutcome } from "../shared/protocol.js";

/**
 * The tests' outcome of a run that the runner stopped (`timeout`, `output_limit`) or whose
 * interpreter died: `failed` with the limit's error when the tests had started, else `not_run`.
 *
 * @example
 * testsAfterStop({ status: "timeout", error }, "tests"); // { status: "failed", error }
 */
export function testsAfterStop(outcome: PythonOutcome, phase: "program" | "tests"): PythonTestsOutcome {
  const error: ExecutionError = outcome.error ?? { name: "Error", message: `the run ended with ${outcome.status}` };
  if (phase === "tests") return { status: "failed", error: { name: error.name, message: error.message } };
  return { status: "not_run", reason: `the program ended with ${outcome.status} before the tests ran (${error.name}: ${error.message.slice(0, 300)})` };
}
