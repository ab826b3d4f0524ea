/**
 * Checks an options object against its rules: every key must be known (an unknown one is
 * refused with the nearest known name), every value given must pass its key's rule.
 */
import { InvalidOptionError } from "../errors.js";
import { nearestName } from "./nearest-name.js";
import type { OptionRule } from "./rules.js";

/**
 * One rule per option of `T`, no more, no less: declare a table of rules with
 * `satisfies OptionRules<MyOptions>` and a new field of the interface cannot be forgotten
 * (TypeScript reports the missing rule), nor a rule kept for a field that is gone.
 */
export type OptionRules<T> = { readonly [K in keyof T]-?: OptionRule<unknown> };

/**
 * Refuses keys of `options` that are not in `known`.
 *
 * @param owner What takes the options, for the message: `"runCode"`, `"createSandbox"`, `"modelRetry"`.
 * @param prefix Put before each key in the option's name (`"defaults."`).
 * @throws InvalidOptionError naming the key and suggesting the nearest known one.
 * @example
 * checkKnownKeys({ timeout: 200 }, ["timeoutMs"], "runCode");
 * // throws: Invalid option "timeout": runCode has no option of this name; did you mean "timeoutMs"? ...
 */
export function checkKnownKeys(options: object, known: readonly string[] | ReadonlySet<string>, owner: string, prefix = ""): void {
  const set: ReadonlySet<string> = known instanceof Set ? known : new Set(known as readonly string[]);
  for (const key of Object.keys(options)) {
    if (set.has(key)) continue;
    throw unknownOption(key, [...set], owner, prefix, (options as Record<string, unknown>)[key]);
  }
}

/**
 * The error for an unknown option `key` (also used by the CLI for its flags).
 *
 * @example
 * throw unknownOption("--timeout", ["--timeout-ms"], "exec");
 */
export function unknownOption(key: string, known: readonly string[], owner: string, prefix = "", received?: unknown): InvalidOptionError {
  const suggestion = nearestName(key, known);
  const list = known.length === 0 ? "no options" : `one of ${known.map((k) => `${prefix}${k}`).join(", ")}`;
  return new InvalidOptionError(`${prefix}${key}`, received, list, {
    problem: `${owner} has no option of this name`,
    ...(suggestion === undefined ? {} : { suggestion: `${prefix}${suggestion}` }),
  });
}

/** Each table's keys, listed once (options are checked on every run). */
const knownKeys = new WeakMap<object, { list: string[]; set: Set<string> }>();

/**
 * Checks `options` (an object or `undefined`) against `rules`: unknown keys are refused, each
 * key given a value other than `undefined` is checked by its rule. Returns the options with
 * each checked value in its normal form (as the rule returned it).
 *
 * @param owner What takes the options, for the message (`"runCode"`).
 * @param prefix Put before each key in the option's name, for nested options (`"modelRetry."`).
 * @throws InvalidOptionError naming the first bad option.
 * @example
 * const RULES = { timeoutMs: millisecondsRule() } satisfies OptionRules<{ timeoutMs?: number }>;
 * checkOptions({ timeoutMs: 100 }, RULES, "myFunction"); // { timeoutMs: 100 }
 */
export function checkOptions<T extends object>(options: unknown, rules: OptionRules<T>, owner: string, prefix = ""): T {
  if (options === undefined) return {} as T;
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    const name = prefix === "" ? "options" : prefix.slice(0, -1);
    throw new InvalidOptionError(name, options, `an object of ${owner}'s options (or nothing)`);
  }
  let known = knownKeys.get(rules);
  if (known === undefined) knownKeys.set(rules, (known = { list: Object.keys(rules), set: new Set(Object.keys(rules)) }));
  checkKnownKeys(options, known.set, owner, prefix);
  const checked: Record<string, unknown> = { ...(options as Record<string, unknown>) };
  for (const key of known.list) {
    const value = checked[key];
    if (value !== undefined) checked[key] = (rules as Record<string, OptionRule>)[key]!.check(value, `${prefix}${key}`);
  }
  return checked as T;
}
