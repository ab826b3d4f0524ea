/**
 * Argument parsing shared by the subcommands. Every usage error becomes one `UsageError` line
 * prefixed with the command's name, in the package's one message format, naming the flag
 * (`--max-retries`, never the API option behind it): unknown flags get the nearest known one,
 * values are checked by the same rules as the API's options.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { InvalidOptionError } from "../errors.js";
import { oneOfRule, unknownOption, type OptionRule } from "../options/index.js";
import { LANGUAGES, type Language } from "../sandbox/types.js";
import { UsageError } from "./usage-error.js";

type FlagOptions = NonNullable<ParseArgsConfig["options"]>;

/** Runs `check`, turning an `InvalidOptionError` into the command's usage error. */
export function asUsage<T>(command: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof InvalidOptionError) throw new UsageError(`${command}: ${error.message}`);
    throw error;
  }
}

/**
 * Puts each value-taking flag and its value together (`--timeout-ms -5` → `--timeout-ms=-5`, so a
 * negative number is read as the value it is), and refuses unknown flags and misused switches.
 */
function normalise(command: string, args: readonly string[], options: FlagOptions): string[] {
  const long = Object.keys(options).map((name) => `--${name}`);
  const shorts = new Map<string, string>(Object.entries(options).flatMap(([name, o]) => (o.short ? [[`-${o.short}`, name] as [string, string]] : [])));
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      out.push(...args.slice(i));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      out.push(arg);
      continue;
    }
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const name = flag.startsWith("--") ? flag.slice(2) : shorts.get(flag);
    const spec = name === undefined ? undefined : options[name];
    if (spec === undefined || name === undefined) {
      // A bare negative number is a value (a positional); anything else dash-led is a flag we do not know.
      if (/^-\d/.test(arg)) {
        out.push(arg);
        continue;
      }
      throw new UsageError(`${command}: ${unknownOption(flag, long, command, "", inline).message}`);
    }
    if (spec.type === "boolean") {
      if (inline !== undefined) throw new UsageError(`${command}: ${new InvalidOptionError(`--${name}`, inline, `no value: --${name} is a switch`).message}`);
      out.push(`--${name}`);
      continue;
    }
    const value = inline ?? args[i + 1];
    if (inline === undefined) i++;
    if (value === undefined) throw new UsageError(`${command}: ${new InvalidOptionError(`--${name}`, undefined, `a value after it: --${name} VALUE`).message}`);
    out.push(`--${name}=${value}`);
  }
  return out;
}

/**
 * `node:util` `parseArgs` with the package's messages: unknown flags name the nearest known one,
 * a flag's value may start with a dash, and every error is a `UsageError` for `command`.
 *
 * @example
 * const { values } = parseCommandArgs("demo", { args: argv, options: { json: { type: "boolean" } } });
 */
export function parseCommandArgs<T extends ParseArgsConfig>(command: string, config: T): ReturnType<typeof parseArgs<T>> {
  const args = normalise(command, config.args ?? [], config.options ?? {});
  try {
    return parseArgs({ ...config, args } as T) as ReturnType<typeof parseArgs<T>>;
  } catch (error) {
    // What is left is a positional where none is taken: one line, as every usage error.
    throw new UsageError(`${command}: ${(error as Error).message.split("\n")[0]}`);
  }
}

/**
 * Reads `--name N` as a number and checks it with `rule` (the API option's own rule), naming
 * the flag: `solve: Invalid option "--max-retries": got 50; expected a whole number from 0 to 20.`
 *
 * @example
 * numberFlag("solve", "max-retries", values["max-retries"], MAX_RETRIES_RULE);
 */
export function numberFlag(command: string, name: string, text: string | undefined, rule: OptionRule<number>): number | undefined {
  if (text === undefined) return undefined;
  const value = text.trim() === "" ? Number.NaN : Number(text);
  return asUsage(command, () => {
    if (Number.isNaN(value)) throw new InvalidOptionError(`--${name}`, text, rule.expected);
    return rule.check(value, `--${name}`);
  });
}

/**
 * Checks a text flag's value with `rule`, naming the flag.
 *
 * @example
 * textFlag("eval", "format", values.format, oneOfRule(TASK_FILE_FORMATS));
 */
export function textFlag<T extends string>(command: string, name: string, text: string | undefined, rule: OptionRule<T>): T | undefined {
  if (text === undefined) return undefined;
  return asUsage(command, () => rule.check(text, `--${name}`));
}

/**
 * Reads `--name` as a share: `0.8`, `80%` or `80` (a number above 1 is a percentage), 0 to 1.
 *
 * @example
 * shareFlag("eval", "min-pass", "75%"); // 0.75
 */
export function shareFlag(command: string, name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  const percent = trimmed.endsWith("%");
  const value = Number(percent ? trimmed.slice(0, -1) : trimmed);
  const share = percent || value > 1 ? value / 100 : value;
  return asUsage(command, () => {
    if (trimmed === "" || !Number.isFinite(value) || share < 0 || share > 1) {
      throw new InvalidOptionError(`--${name}`, text, "a share of the tasks, from 0 to 1 or 0% to 100% (e.g. 0.8 or 80%)");
    }
    return share;
  });
}

const LANGUAGE_RULE = oneOfRule(LANGUAGES);

/** Parses `--language`. */
export function languageFlag(command: string, text: string | undefined): Language | undefined {
  return textFlag(command, "language", text, LANGUAGE_RULE);
}
