/**
 * Argument parsing shared by the subcommands: every usage error becomes one `UsageError`
 * line prefixed with the command's name.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { InvalidOptionError } from "../errors.js";
import { resolveLanguage } from "../sandbox/options.js";
import type { Language } from "../sandbox/types.js";
import { UsageError } from "./usage-error.js";

/**
 * `node:util` `parseArgs`, with its errors turned into a `UsageError` for `command`.
 *
 * @example
 * const { values } = parseCommandArgs("demo", { args: argv, options: { json: { type: "boolean" } } });
 */
export function parseCommandArgs<T extends ParseArgsConfig>(command: string, config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
}

/** Parses `--name N` as an integer of at least `min`. */
export function integerFlag(command: string, name: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === "" || !Number.isInteger(value) || value < min) {
    throw new UsageError(`${command}: --${name} must be an integer of at least ${min}, got "${text}"`);
  }
  return value;
}

/**
 * Parses `--name` as a share: `0.8`, `80%` or `80` (a number above 1 is a percentage), 0 to 1.
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
  if (trimmed === "" || !Number.isFinite(value) || share < 0 || share > 1) {
    throw new UsageError(`${command}: --${name} must be a share of the tasks, 0 to 1 or 0% to 100% (e.g. 0.8 or 80%), got "${text}"`);
  }
  return share;
}

/** Parses `--language`. */
export function languageFlag(command: string, text: string | undefined): Language | undefined {
  if (text === undefined) return undefined;
  try {
    return resolveLanguage(text, "--language");
  } catch (error) {
    if (error instanceof InvalidOptionError) throw new UsageError(`${command}: ${error.message}`);
    throw error;
  }
}
