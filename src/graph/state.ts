/**
 * State of the code-generation graph: its input, its output, and what the nodes pass on.
 */
import { Annotation } from "@langchain/langgraph";
import type { CheckResult, ExecutionResult, Language } from "../sandbox/types.js";
import type { FailedValidation } from "../feedback/explain.js";

/**
 * How one attempt ended. The sandbox's statuses, plus:
 * - `type_error`: TypeScript code that does not type-check (found before running);
 * - `no_program`: the model's reply held no program in the language;
 * - `test_failed`: the code ran but the caller's `tests` threw;
 * - `wrong_output`: the code ran but its output differs from `expectedOutput`;
 * - `model_error`: the model could not produce this attempt (e.g. the server was unreachable);
 * - `rejected`: a person rejected the code before it ran (`approveBeforeExecute`).
 */
export type AttemptStatus =
  | ExecutionResult["status"]
  | "type_error"
  | "no_program"
  | "test_failed"
  | "wrong_output"
  | "model_error"
  | "rejected";

/** One version of the code and what happened to it. */
export interface Attempt {
  /** 1 for the first generation, n + 1 after n refinements. */
  number: number;
  code: string;
  /** Where the attempt ended: the check before running, or the run. */
  phase: "generate" | "validate" | "execute";
  status: AttemptStatus;
  /** A one-line error (with the failing line quoted when known); absent on success. */
  error?: string;
  /** Start of the program's printed output (bounded). */
  stdout: string;
  /** Time in the sandbox (check or run), in milliseconds. */
  durationMs: number;
  /** Tokens of the model call that wrote this code. */
  inputTokens: number;
  outputTokens: number;
}

/** Final outcome of a run of the graph. */
export type CodeGenStatus = "success" | "failed" | "rejected";

/** What the caller passes to the graph. */
export interface CodeGenInput {
  /** What the code should do, in words. */
  task: string;
  /** Default: the graph's `defaultLanguage`. */
  language?: Language;
  /** Extra information for the model: data, constraints, an API to use. */
  context?: string;
  /** Code in the same language, appended to the generated code, that throws when the result is wrong. */
  tests?: string;
  /** Printed output the program must produce (compared after trimming both). */
  expectedOutput?: string;
}

/** Either attempts to append, or a list that replaces them (a new run on the same thread). */
export type AttemptsUpdate = Attempt[] | { replace: Attempt[] };

/** The graph's state annotation. */
export const CodeGenState = Annotation.Root({
  task: Annotation<string>,
  language: Annotation<Language | undefined>,
  context: Annotation<string | undefined>,
  tests: Annotation<string | undefined>,
  expectedOutput: Annotation<string | undefined>,
  /** The code of the latest attempt. */
  code: Annotation<string | undefined>,
  /** The model's last reply, raw. */
  reply: Annotation<string | undefined>,
  /** Outcome of the latest check (validate): syntax and imports, then types for TypeScript. */
  check: Annotation<CheckResult | FailedValidation | undefined>,
  /** Outcome of the latest run (execute). */
  result: Annotation<ExecutionResult | undefined>,
  /** Tokens of the model call that wrote `code` (moved into its attempt). */
  pendingTokens: Annotation<{ inputTokens: number; outputTokens: number } | undefined>,
  attempts: Annotation<Attempt[], AttemptsUpdate>({
    reducer: (left, right) => (Array.isArray(right) ? [...left, ...right] : [...right.replace]),
    default: () => [],
  }),
  /** Refinements made so far in this run. */
  refinements: Annotation<number>,
  /** Refinements allowed in this run (set by `generate` from the options and `configurable`). */
  maxRetries: Annotation<number>,
  /** Whether this run pauses for approval before executing (set by `generate`). */
  approveBeforeExecute: Annotation<boolean>,
  /** Set when a model call failed for good; the run then ends. */
  modelError: Annotation<string | undefined>,
  /** Set when a reviewer rejected the code. */
  rejection: Annotation<string | undefined>,
  status: Annotation<CodeGenStatus | undefined>,
  /** For a failure: what went wrong, in words a person can act on. */
  explanation: Annotation<string | undefined>,
});

/** The full state as nodes see it. */
export type CodeGenStateType = typeof CodeGenState.State;
/** A partial update a node returns. */
export type CodeGenUpdate = typeof CodeGenState.Update;
