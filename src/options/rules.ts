/**
 * Rules for option values: each says in words what to pass and checks a value against it,
 * throwing one `InvalidOptionError` that names the option. Every entry of the package (the
 * sandbox, the graph, the tools, the SDK, eval, the CLI) builds its checks from these.
 */
import { InvalidOptionError } from "../errors.js";

/** A check of one option's value. */
export interface OptionRule<T = unknown> {
  /** What to pass, in words: the end of the error message ("a whole number from 0 to 20"). */
  readonly expected: string;
  /**
   * Returns the value to use (the value itself, or its normal form) when it is valid.
   *
   * @throws InvalidOptionError naming `name` when it is not.
   */
  check(value: unknown, name: string): T;
}

/** Node's and Deno's timers wait at most 2^31 − 1 ms; a longer delay fires after 1 ms (`TimeoutOverflowWarning`). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A rule from a predicate: `accepts(value)` true means valid.
 *
 * @example
 * const even = rule<number>("an even number", (v) => typeof v === "number" && v % 2 === 0);
 */
export function rule<T>(expected: string, accepts: (value: unknown) => boolean): OptionRule<T> {
  return {
    expected,
    check(value, name) {
      if (!accepts(value)) throw new InvalidOptionError(name, value, expected);
      return value as T;
    },
  };
}

/** How a number is described in messages (`2000000000`, not `2e9`). */
function show(n: number): string {
  return Number.isSafeInteger(n) ? String(n) : n.toLocaleString("en-US", { useGrouping: false, maximumFractionDigits: 20 });
}

/** Options of {@link integerRule} and {@link numberRule}. */
export interface RangeOptions {
  min: number;
  max: number;
  /** The unit named in the message: "milliseconds", "bytes", "worker threads". */
  unit?: string;
  /** Why `max` is the largest value, appended to the message: "timers cannot wait longer". */
  maxReason?: string;
  /** True when `min` itself is not allowed (a number greater than `min`). */
  exclusiveMin?: boolean;
  /** Accept `Infinity` as "no limit" and return this value for it. */
  infinity?: number;
}

function rangeText(kind: string, o: RangeOptions): string {
  const unit = o.unit === undefined ? "" : ` of ${o.unit}`;
  const low = o.exclusiveMin ? `greater than ${show(o.min)}` : `from ${show(o.min)}`;
  const high = o.exclusiveMin ? `and at most ${show(o.max)}` : `to ${show(o.max)}`;
  const why = o.maxReason === undefined ? "" : ` (${o.maxReason})`;
  const none = o.infinity === undefined ? "" : ", or Infinity for no limit";
  return `${kind}${unit} ${low} ${high}${why}${none}`;
}

function inRange(value: number, o: RangeOptions): boolean {
  return (o.exclusiveMin ? value > o.min : value >= o.min) && value <= o.max;
}

/**
 * A whole number in `[min, max]` (NaN, ±Infinity, fractions and numeric strings refused).
 *
 * @example
 * integerRule({ min: 0, max: 20 }).check(3, "maxRetries"); // 3
 */
export function integerRule(o: RangeOptions): OptionRule<number> {
  const expected = rangeText("a whole number", o);
  return {
    expected,
    check(value, name) {
      if (o.infinity !== undefined && value === Number.POSITIVE_INFINITY) return o.infinity;
      if (typeof value !== "number" || !Number.isInteger(value) || !inRange(value, o)) throw new InvalidOptionError(name, value, expected);
      return value;
    },
  };
}

/**
 * A finite number in range (by default greater than `min`).
 *
 * @example
 * numberRule({ min: 0, max: 1000, exclusiveMin: true, unit: "milliseconds" }).check(0.5, "delayMs");
 */
export function numberRule(o: RangeOptions): OptionRule<number> {
  const expected = rangeText("a number", o);
  return {
    expected,
    check(value, name) {
      if (o.infinity !== undefined && value === Number.POSITIVE_INFINITY) return o.infinity;
      if (typeof value !== "number" || !Number.isFinite(value) || !inRange(value, o)) throw new InvalidOptionError(name, value, expected);
      return value;
    },
  };
}

/**
 * A delay or time limit a timer will wait for: more than 0 ms and at most `max` (never more
 * than {@link MAX_TIMER_MS}).
 *
 * @example
 * millisecondsRule().check(60_000, "requestTimeoutMs");
 */
export function millisecondsRule(max = MAX_TIMER_MS, options: { min?: number; exclusiveMin?: boolean } = {}): OptionRule<number> {
  return numberRule({
    min: options.min ?? 0,
    exclusiveMin: options.exclusiveMin ?? true,
    max: Math.min(max, MAX_TIMER_MS),
    unit: "milliseconds",
    maxReason: "timers cannot wait longer",
  });
}

/** Options of {@link textRule}. */
export interface TextOptions {
  /** What the text is, for the message: "a model name", "source code". Default "a string". */
  what?: string;
  /** Allow `""` (and text of spaces only). Default false. */
  allowEmpty?: boolean;
  /** Allow NUL characters. Default false (names, paths and prompts have no use for them). */
  allowNul?: boolean;
  /** Allow lone surrogates (text that is not well-formed Unicode). Default false. */
  allowLoneSurrogates?: boolean;
}

/**
 * A string. By default non-blank, without NUL characters and well-formed (no lone surrogates),
 * each refusal saying which.
 *
 * @example
 * textRule({ what: 'a "provider:model" name' }).check("openai:gpt-4o-mini", "model");
 */
export function textRule(o: TextOptions = {}): OptionRule<string> {
  const what = o.what ?? "a string";
  const expected = o.allowEmpty ? what : `${what} (not empty)`;
  return {
    expected,
    check(value, name) {
      if (typeof value !== "string") throw new InvalidOptionError(name, value, expected);
      if (!o.allowEmpty && value.trim() === "") throw new InvalidOptionError(name, value, expected);
      if (!o.allowNul && value.includes("\0")) {
        throw new InvalidOptionError(name, value, `${what} without NUL characters (found one at index ${value.indexOf("\0")})`);
      }
      if (!o.allowLoneSurrogates && !isWellFormed(value)) {
        throw new InvalidOptionError(name, value, `${what} of well-formed Unicode (it has a lone surrogate at index ${loneSurrogateIndex(value)})`);
      }
      return value;
    },
  };
}

/** True when `text` has no lone surrogate (`String.prototype.isWellFormed`, Node 20+). */
export function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

function loneSurrogateIndex(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else return i;
    } else if (c >= 0xdc00 && c <= 0xdfff) return i;
  }
  return -1;
}

/**
 * One of a fixed set of strings (listed in the message).
 *
 * @example
 * oneOfRule(["none", "thread"] as const).check("thread", "persistence");
 */
export function oneOfRule<const T extends string>(values: readonly T[], meaning?: string): OptionRule<T> {
  const list = values.map((v) => `"${v}"`).join(", ");
  return rule<T>(`one of ${list}${meaning === undefined ? "" : ` (${meaning})`}`, (v) => typeof v === "string" && (values as readonly string[]).includes(v));
}

/** `true` or `false`. */
export const booleanRule: OptionRule<boolean> = rule("true or false", (v) => typeof v === "boolean");

/**
 * A function.
 *
 * @example
 * functionRule("a function (task, signal) => outcome").check(solve, "solve");
 */
export function functionRule<T = (...args: never[]) => unknown>(what = "a function"): OptionRule<T> {
  return rule<T>(what, (v) => typeof v === "function");
}

/** An `AbortSignal` (a plain object with the same fields is not one). */
export const signalRule: OptionRule<AbortSignal> = rule("an AbortSignal (e.g. new AbortController().signal)", (v) => v instanceof AbortSignal);

/**
 * An object (not null, not an array) that `accepts` (default: any such object).
 *
 * @example
 * objectRule("a checkpointer (BaseCheckpointSaver)", (v) => typeof v.getTuple === "function");
 */
export function objectRule<T = object>(what: string, accepts: (value: Record<string, unknown>) => boolean = () => true): OptionRule<T> {
  return rule<T>(what, (v) => typeof v === "object" && v !== null && !Array.isArray(v) && accepts(v as Record<string, unknown>));
}

/**
 * An array whose every item passes `item` (named `name[i]` in the message).
 *
 * @example
 * arrayRule(textRule(), { what: "an array of tool names" }).check(["a"], "tools");
 */
export function arrayRule<T>(item: OptionRule<T>, o: { what: string; nonEmpty?: boolean }): OptionRule<T[]> {
  const expected = o.nonEmpty ? `${o.what} (not empty)` : o.what;
  return {
    expected,
    check(value, name) {
      if (!Array.isArray(value) || (o.nonEmpty && value.length === 0)) throw new InvalidOptionError(name, value, expected);
      return value.map((v, i) => item.check(v, `${name}[${i}]`));
    },
  };
}

/** A value with no check of its own here (checked where it is used); documents that choice. */
export const anyValue: OptionRule<unknown> = { expected: "any value", check: (value) => value };

/** Tool names as chat APIs accept them (OpenAI: letters, digits, `_` and `-`, at most 64). */
export const TOOL_NAME_RULE = rule<string>("a tool name of letters, digits, _ and - (at most 64)", (v) => typeof v === "string" && /^[A-Za-z0-9_-]{1,64}$/.test(v));
