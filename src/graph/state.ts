/**
 * State of the code-generation graph: its input, its output, and what the nodes pass on.
 */
import { Annotation } from "@langchain/langgraph";
import { checkOptions, oneOfRule, rule, textRule, type OptionRules } from "../options/index.js";
import { LANGUAGES } from "../sandbox/types.js";
import type { CheckResult, ExecutionResult, Language } from "../sandbox/types.js";
import { InvalidOptionError } from "../errors.js";
import type { FailedValidation } from "../feedback/explain.js";
import type { StoredRunResult } from "./stored-result.js";

/**
 * How one attempt ended. The sandbox's statuses, plus:
 * - `type_error`: TypeScript code that does not type-check (found before running);
 * - `no_program`: the model's reply held no program in the language;
 * - `test_failed`: the program ran, then the caller's `tests` raised (assertion, thrown value)
 *   or hit a limit; the error names the line of the tests;
 * - `tests_not_run`: the program ran without error but the tests never ran (it exited early,
 *   e.g. `sys.exit(0)`, or its top-level promise never settled or rejected); the error says why;
 * - `wrong_output`: the code ran but its output differs from `expectedOutput`;
 * - `no_output`: the code ran, printed nothing and returned nothing, while the task (without
 *   tests or `expectedOutput`) asks to print or return something; the error quotes the task;
 * - `model_error`: the model could not produce this attempt (e.g. the server was unreachable);
 * - `repeat`: every program the model wrote in this repair round was the same as an earlier
 *   attempt's (after normalising whitespace and comments): it was not run again;
 * - `rejected`: a person rejected the code before it ran (`approveBeforeExecute`).
 */
export type AttemptStatus =
  | ExecutionResult["status"]
  | "type_error"
  | "no_program"
  | "test_failed"
  | "tests_not_run"
  | "wrong_output"
  | "no_output"
  | "model_error"
  | "repeat"
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
  /** Tokens of the model calls that wrote this code (every candidate and explanation of its round). */
  inputTokens: number;
  outputTokens: number;
  /** Model calls of this attempt, when more than one (samples, an explanation, repeats). */
  modelCalls?: number;
  /** Programs drawn in this attempt's round that were the same as an earlier one (never run). */
  repeats?: number;
  /** For a `repeat`: the earlier attempt whose program this was. */
  repeatOf?: number;
  /** The temperature the attempt was sampled at, when the strategy set one. */
  temperature?: number;
}

/** What the model calls behind the pending `code` cost and how they sampled (moved into its attempt). */
export interface PendingDraw {
  inputTokens: number;
  outputTokens: number;
  modelCalls?: number;
  repeats?: number;
  temperature?: number;
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
  details?: string;
  /**
   * Code in the same language that raises when the program is wrong. It runs after the
   * program, in the same scope, as its own evaluation (never joined to the program's text).
   */
  tests?: string;
  /** Printed output the program itself must produce (the tests' output does not count; compared after trimming both). */
  expectedOutput?: string;
}

/** The fields of the graph's input and their rules (keys from `CodeGenInput` itself). */
const INPUT_RULES = {
  task: textRule({ what: "a description of what the code should do" }),
  language: oneOfRule(LANGUAGES),
  details: textRule({ what: "a string of extra information for the model", allowEmpty: true }),
  // Code is data (NUL bytes or lone surrogates in it get an answer from the engine): only its type.
  tests: rule("a string of test code in the task's language", (v) => typeof v === "string"),
  expectedOutput: rule("a string the program must print", (v) => typeof v === "string"),
} satisfies OptionRules<CodeGenInput>;

/**
 * Checks the graph's input: `task` is required, every field has its type, and (with
 * `unknownKeys`, for the input as the caller passed it) a key the input does not have is refused
 * with the nearest field's name.
 *
 * @throws InvalidOptionError naming the field.
 * @example
 * checkCodeGenInput({ task: "Print 42", tests: 5 }); // throws: Invalid option "tests": got 5; ...
 */
export function checkCodeGenInput(input: unknown, options: { unknownKeys?: boolean } = {}): void {
  const fields = input !== null && typeof input === "object" ? (input as Record<string, unknown>) : undefined;
  if (fields === undefined) throw new InvalidOptionError("input", input, "an object { task, language?, details?, tests?, expectedOutput? }");
  // `context` is LangGraph's run settings (invoke's second argument); extra information for the model is `details`.
  if (fields.context !== undefined && fields.context !== null) {
    throw new InvalidOptionError("context", fields.context, `${INPUT_RULES.details.expected} in the input's "details" (run settings go in invoke's second argument: { context: { maxRetries, ... } })`, { suggestion: "details" });
  }
  const given = options.unknownKeys ? fields : Object.fromEntries(Object.keys(INPUT_RULES).map((key) => [key, fields[key]]));
  // `null` is how JSON clients (Studio) leave a field out.
  checkOptions<CodeGenInput>(Object.fromEntries(Object.entries(given).filter(([, v]) => v !== null)), INPUT_RULES, "the graph's input");
  if (fields.task === undefined || fields.task === null) throw new InvalidOptionError("task", fields.task, INPUT_RULES.task.expected);
}

/** Either attempts to append, or a list that replaces them (a new run on the same thread). */
export type AttemptsUpdate = Attempt[] | { replace: Attempt[] };

/** The graph's state annotation. */
export const CodeGenState = Annotation.Root({
  task: Annotation<string>,
  language: Annotation<Language | undefined>,
  details: Annotation<string | undefined>,
  tests: Annotation<string | undefined>,
  expectedOutput: Annotation<string | undefined>,
  /** The code of the latest attempt. */
  code: Annotation<string | undefined>,
  /** The model's last reply, raw. */
  reply: Annotation<string | undefined>,
  /** Outcome of the latest check (validate): syntax and imports, then types for TypeScript. */
  check: Annotation<CheckResult | FailedValidation | undefined>,
  /**
   * Outcome of the latest run (execute), stored so that no checkpoint serializer can revive or
   * drop what the guest produced: read the program's value with `runResultValue(state.result)`.
   */
  result: Annotation<StoredRunResult | undefined>,
  /**
   * The code a reviewer approved or wrote at the approval pause (`approveBeforeExecute`);
   * code that differs from it goes back to the reviewer.
   */
  approvedCode: Annotation<string | undefined>,
  /** Tokens (and sampling facts) of the model calls that wrote `code` (moved into its attempt). */
  pendingTokens: Annotation<PendingDraw | undefined>,
  /**
   * The run of `code` made while choosing among a repair round's candidates (`repair.samples`
   * above 1), so `execute` does not run the same program twice.
   */
  trialRun: Annotation<{ code: string; result: StoredRunResult } | undefined>,
  /** True when the latest repair round wrote only programs seen before (nothing to run). */
  lastRepeat: Annotation<boolean | undefined>,
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
