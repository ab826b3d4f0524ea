/**
 * The graph's prompt set (files of `prompts/` at the package root), loaded once, overridable.
 */
import type { Language } from "../sandbox/types.js";
import { InvalidOptionError } from "../errors.js";
import { readPromptFile } from "../prompts/templates.js";

/** Every prompt the graph uses. Templates fill `{{name}}` placeholders. */
export interface CodeGenPrompts {
  /** System prompt per language: how results are read and what the sandbox lacks. */
  system: Record<Language, string>;
  /** User message of `generate`: `{{task}}`, `{{details}}`, `{{language}}`. */
  task: string;
  /** User message of `refine`: `{{task}}`, `{{details}}`, `{{language}}`, `{{numberedCode}}`, `{{attempt}}`, `{{status}}`, `{{error}}`, `{{output}}`. */
  refine: string;
}

/** Caller overrides: any prompt, or the system prompt of some languages. */
export interface CodeGenPromptOverrides {
  system?: Partial<Record<Language, string>>;
  task?: string;
  refine?: string;
}

let loaded: CodeGenPrompts | undefined;

/**
 * The prompt files, read once per process from the package's `prompts/` folder (found from
 * this module's location, so it works from `src/`, `dist/` and an installed package).
 *
 * @example
 * ```ts
 * const prompts = defaultPrompts();
 * prompts.system.python.includes("print"); // true
 * ```
 */
export function defaultPrompts(): CodeGenPrompts {
  if (loaded !== undefined) return loaded;
  const read = readPromptFile;
  loaded = {
    system: {
      javascript: read("generate.javascript.md"),
      typescript: read("generate.typescript.md"),
      python: read("generate.python.md"),
    },
    task: read("task.md"),
    refine: read("refine.md"),
  };
  return loaded;
}

/**
 * The default prompts with `overrides` applied. Throws `InvalidOptionError` for an empty override.
 *
 * @example
 * ```ts
 * const prompts = resolvePrompts({ system: { javascript: "Write tiny JavaScript." } });
 * ```
 */
export function resolvePrompts(overrides: CodeGenPromptOverrides = {}): CodeGenPrompts {
  const base = defaultPrompts();
  const check = (name: string, value: string | undefined) => {
    if (value !== undefined && (typeof value !== "string" || value.trim() === "")) {
      throw new InvalidOptionError(`prompts.${name}`, value, "a non-empty string");
    }
  };
  check("task", overrides.task);
  check("refine", overrides.refine);
  for (const [language, text] of Object.entries(overrides.system ?? {})) check(`system.${language}`, text);
  return {
    system: { ...base.system, ...overrides.system },
    task: overrides.task ?? base.task,
    refine: overrides.refine ?? base.refine,
  };
}
