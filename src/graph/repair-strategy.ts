/**
 * How the graph repairs a failed attempt: at which temperature each attempt samples, how many
 * candidates a repair round draws (chosen by the task's tests), what the model is asked (the
 * repair prompt with the failure and the earlier attempts, or the task again), and whether it
 * explains the failure before writing code. The defaults are the ones measured best with a
 * small local model (docs/eval.md, "Repair strategies").
 */
import { InvalidOptionError } from "../errors.js";
import { arrayRule, booleanRule, checkOptions, integerRule, numberRule, oneOfRule, type OptionRules } from "../options/index.js";

/**
 * What a repair round asks the model:
 * - `"fresh"`: the task's first prompt again (a new sample of it, at the round's temperature),
 *   plus a note when the last program was a repeat;
 * - `"repair"`: the repair prompt: the failed code, what went wrong, and the earlier attempts;
 * - `"alternate"`: rounds take turns, `repair` first;
 * - `"auto"`: `repair` when the failure is in the program itself (it did not parse, type-check,
 *   import, or run to its end within the limits: the error names a line to fix), `fresh` when
 *   the program ran and its behaviour was wrong (a test failed, wrong or no output).
 */
export type RepairPromptKind = "auto" | "fresh" | "repair" | "alternate";

/** Statuses of a program that ran and behaved wrongly (the `auto` prompt asks afresh). */
const BEHAVIOUR_FAILURES: ReadonlySet<string> = new Set(["test_failed", "wrong_output"]);

/** The repair strategy of `createCodeGenGraph({ repair })`. Every field is optional. */
export interface RepairStrategy {
  /**
   * Temperature of each attempt's model calls: `[first, repair 1, repair 2, ...]`; attempts past
   * the end use the last value. Default `[0, 0.8]`: the first attempt is greedy, repairs sample.
   * Passed as the model's own setting (LangChain models with a `temperature` field, e.g.
   * `ChatOpenAI`) and as the call option `temperature`; a model that refuses one is called at
   * its own setting, with one warning.
   */
  temperatures?: number[];
  /**
   * Candidates a repair round may draw (1 to 8). With more than 1, each new candidate runs
   * with the shown tests and the round keeps the one that passes the most of them (ties: the
   * first); drawing stops at the first candidate that passes them all. Each candidate is one
   * model call, counted in the attempt's tokens. Default 3 (1 with `approveBeforeExecute`,
   * where a person approves each program: choosing among candidates would run them first).
   */
  samples?: number;
  /** What a repair round asks (see {@link RepairPromptKind}). Default `"auto"`. */
  prompt?: RepairPromptKind;
  /**
   * Before a repair prompt, ask the model to explain the failure in a few sentences (one more
   * model call per round, counted in the attempt's tokens); the explanation goes into the
   * repair prompt. Only for repair prompts (`prompt: "repair"` or `"alternate"`). Default false.
   */
  explainFirst?: boolean;
}

/** A strategy with every field filled. */
export type ResolvedRepairStrategy = Required<RepairStrategy>;

/** The largest `samples`. */
export const MAX_REPAIR_SAMPLES = 8;

/**
 * The default strategy: greedy first, repairs sampled at 0.8, up to three candidates per
 * repair round chosen by the shown tests (drawing stops at the first that passes them all);
 * a failed test is answered with a fresh sample of the task (with a 1.5B model, repair prompts
 * that showed the failing values fixed none of six held-out tasks while fresh samples fixed
 * three), an error in the program with the repair prompt that points at its line
 * (docs/eval.md). With `approveBeforeExecute` the default is one candidate per round.
 */
export const DEFAULT_REPAIR_STRATEGY: Readonly<ResolvedRepairStrategy> = Object.freeze({
  temperatures: Object.freeze([0, 0.8]) as unknown as number[],
  samples: 3,
  prompt: "auto",
  explainFirst: false,
});

const REPAIR_RULES = {
  temperatures: arrayRule(numberRule({ min: 0, max: 2 }), { what: "an array of temperatures from 0 to 2, e.g. [0, 0.8]", nonEmpty: true }),
  samples: integerRule({ min: 1, max: MAX_REPAIR_SAMPLES, unit: "candidates per repair round" }),
  prompt: oneOfRule(["auto", "fresh", "repair", "alternate"] as const),
  explainFirst: booleanRule,
} satisfies OptionRules<RepairStrategy>;

/** What the defaults depend on. */
export interface RepairDefaultsContext {
  /**
   * A person approves each program before it runs: one candidate per round by default, since
   * choosing among several runs them before anyone approved them (and asks nobody three times).
   */
  approveBeforeExecute?: boolean;
}

/**
 * Checks a strategy and fills its defaults.
 *
 * @throws InvalidOptionError naming `repair.FIELD`.
 * @example
 * ```ts
 * resolveRepairStrategy({ prompt: "repair" }); // { temperatures: [0, 0.8], samples: 3, prompt: "repair", explainFirst: false }
 * resolveRepairStrategy({}, { approveBeforeExecute: true }).samples; // 1
 * ```
 */
export function resolveRepairStrategy(given: RepairStrategy | undefined, context: RepairDefaultsContext = {}): ResolvedRepairStrategy {
  const options = checkOptions<RepairStrategy>(given, REPAIR_RULES, "the repair strategy", "repair.");
  return {
    temperatures: [...(options.temperatures ?? DEFAULT_REPAIR_STRATEGY.temperatures)],
    samples: options.samples ?? (context.approveBeforeExecute === true ? 1 : DEFAULT_REPAIR_STRATEGY.samples),
    prompt: options.prompt ?? DEFAULT_REPAIR_STRATEGY.prompt,
    explainFirst: options.explainFirst ?? DEFAULT_REPAIR_STRATEGY.explainFirst,
  };
}

/** The rule of the graph's `repair` option. */
export const REPAIR_STRATEGY_RULE = {
  expected: "a repair strategy { temperatures?, samples?, prompt?, explainFirst? }",
  check(value: unknown, name: string): RepairStrategy {
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new InvalidOptionError(name, value, REPAIR_STRATEGY_RULE.expected);
    resolveRepairStrategy(value as RepairStrategy);
    return value as RepairStrategy;
  },
};

/**
 * The temperature of attempt `number` (1 = the first generation).
 *
 * @example
 * ```ts
 * temperatureOf(DEFAULT_REPAIR_STRATEGY, 3); // 0.8
 * ```
 */
export function temperatureOf(strategy: Pick<ResolvedRepairStrategy, "temperatures">, number: number): number {
  const list = strategy.temperatures;
  return list[Math.min(Math.max(number - 1, 0), list.length - 1)]!;
}

/**
 * Whether repair round `round` (1 = the first repair) asks with the repair prompt, after an
 * attempt that ended with `status` (for a repeat: the status of the attempt it repeated).
 *
 * @example
 * ```ts
 * usesRepairPrompt("auto", 1, "syntax_error"); // true
 * usesRepairPrompt("auto", 1, "test_failed"); // false
 * ```
 */
export function usesRepairPrompt(kind: RepairPromptKind, round: number, status: string): boolean {
  if (kind === "auto") return !BEHAVIOUR_FAILURES.has(status);
  return kind === "repair" || (kind === "alternate" && round % 2 === 1);
}
