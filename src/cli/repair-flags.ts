/**
 * The repair strategy's flags, shared by `solve` and `eval`: `--repair-temperatures 0,0.8`,
 * `--repair-samples N`, `--repair-prompt fresh|repair|alternate`, `--explain-first`.
 */
import { InvalidOptionError } from "../errors.js";
import { resolveRepairStrategy, type RepairStrategy } from "../graph/shared.js";
import { asUsage } from "./args.js";

/** The flags' definitions for `parseCommandArgs`. */
export const REPAIR_FLAG_OPTIONS = {
  "repair-temperatures": { type: "string" },
  "repair-samples": { type: "string" },
  "repair-prompt": { type: "string" },
  "explain-first": { type: "boolean" },
} as const;

/** The flags' lines of a command's help. */
export const REPAIR_FLAGS_HELP = `  --repair-temperatures T  temperature per attempt, comma-separated: first, repair 1, ...
                           (the last one repeats; default 0,0.8)
  --repair-samples N       candidates per repair round, chosen by the tests (1 to 8, default 3)
  --repair-prompt P        auto (fresh after a failed test, repair after an error in the
                           program; the default) | fresh (the task again) | repair (the
                           failure and earlier attempts) | alternate
  --explain-first          ask the model to explain the failure before a repair prompt`;

/**
 * The strategy the flags give (undefined when none is given), checked by the graph's own rule.
 *
 * @example
 * ```ts
 * repairFlags("eval", { "repair-samples": "3" }); // { samples: 3 }
 * ```
 */
export function repairFlags(command: string, values: { "repair-temperatures"?: string; "repair-samples"?: string; "repair-prompt"?: string; "explain-first"?: boolean }): RepairStrategy | undefined {
  const strategy: RepairStrategy = {};
  const temperatures = values["repair-temperatures"];
  if (temperatures !== undefined) {
    strategy.temperatures = temperatures.split(",").map((t) => (t.trim() === "" ? Number.NaN : Number(t)));
  }
  if (values["repair-samples"] !== undefined) strategy.samples = values["repair-samples"].trim() === "" ? Number.NaN : Number(values["repair-samples"]);
  if (values["repair-prompt"] !== undefined) strategy.prompt = values["repair-prompt"] as RepairStrategy["prompt"];
  if (values["explain-first"] === true) strategy.explainFirst = true;
  if (Object.keys(strategy).length === 0) return undefined;
  asUsage(command, () => {
    try {
      resolveRepairStrategy(strategy);
    } catch (error) {
      // Name the flag, not the option.
      if (error instanceof InvalidOptionError) {
        const field = error.option.replace(/^repair\./, "").replace(/\[\d+\]$/, "");
        const flag = field === "temperatures" ? "repair-temperatures" : field === "samples" ? "repair-samples" : "repair-prompt";
        throw new InvalidOptionError(`--${flag}`, field === "temperatures" ? values["repair-temperatures"] : error.received, error.expected);
      }
      throw error;
    }
  });
  return strategy;
}
