/**
 * The one "what happened / what to try next" table: every way an attempt can fail, in the
 * words the graph, the tools and the SDK all use.
 */
import type { ExecutionStatus } from "../sandbox/types.js";

/**
 * Every outcome a model gets feedback for: the sandbox's statuses, and what the checks around
 * a run add (type errors, a reply without a program, tests, expected output).
 */
export type FeedbackStatus = ExecutionStatus | "type_error" | "no_program" | "test_failed" | "tests_not_run" | "wrong_output" | "no_output";

/** Limits that fill in the table's sentences when known. */
export interface FeedbackLimits {
  timeoutMs?: number;
  memoryLimitBytes?: number;
  maxOutputBytes?: number;
}

/**
 * What happened, in one sentence, for `status`.
 *
 * @example
 * ```ts
 * whatHappened("timeout", { timeoutMs: 5000 }); // "The code ran longer than the time limit of 5000 ms and was stopped."
 * ```
 */
export function whatHappened(status: FeedbackStatus, limits: FeedbackLimits = {}): string {
  switch (status) {
    case "success":
      return "The code ran without error.";
    case "syntax_error":
      return "The code does not parse.";
    case "type_error":
      return "The code does not type-check.";
    case "forbidden":
      return "The code imports a module the sandbox does not provide.";
    case "runtime_error":
      return "The code threw an error while running.";
    case "timeout":
      return `The code ran longer than the time limit${limits.timeoutMs === undefined ? "" : ` of ${limits.timeoutMs} ms`} and was stopped.`;
    case "memory_limit":
      return `The code used more memory than allowed${limits.memoryLimitBytes === undefined ? "" : ` (${Math.round(limits.memoryLimitBytes / 1048576)} MiB)`}.`;
    case "output_limit":
      return `The code printed more than the output limit${limits.maxOutputBytes === undefined ? "" : ` of ${limits.maxOutputBytes} bytes`}.`;
    case "cancelled":
      return "The run was cancelled by the caller before it finished.";
    case "no_program":
      return "No program was found in the reply.";
    case "test_failed":
      // The detail (the failing test's error and line) follows the colon.
      return "A test failed:";
    case "tests_not_run":
      return "The tests did not run.";
    case "wrong_output":
      return "The output differs from the expected output.";
    case "no_output":
      return "The program ran but printed nothing and its last expression has no value.";
  }
}

/** What to try next, per status (empty for success). */
export const NEXT_STEP: Readonly<Record<FeedbackStatus, string>> = {
  success: "",
  syntax_error: "Fix the syntax on that line (a missing bracket or quote, or markup around the code).",
  type_error: "Fix the types on those lines (a wrong argument or return type, a misspelt or missing name).",
  forbidden: "Use only the language's built-ins: no packages, files, network or processes.",
  runtime_error: "Fix the cause on that line (check names, types and edge cases).",
  timeout: "Look for a loop that never ends, or use a faster algorithm or smaller inputs.",
  memory_limit: "Avoid building huge arrays or strings; use smaller data structures or stream the work.",
  output_limit: "Print less: a summary instead of every item.",
  cancelled: "Run it again only if asked to.",
  no_program: "Answer with one fenced code block, tagged with the language, holding the whole program.",
  test_failed: "Fix the code so the test passes; do not change or copy the tests.",
  tests_not_run: "Let the program finish normally (no exit call, no unhandled error or rejection) so the tests can run.",
  wrong_output: "Print exactly the expected output, nothing more.",
  no_output: "Print the answer (print() in Python, console.log() in JavaScript and TypeScript): defining a function is not enough, call it.",
};
