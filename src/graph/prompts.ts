/**
 * The graph's prompt set (files of `prompts/` at the package root), loaded once, overridable.
 */
import type { Language } from "../sandbox/types.js";
import { checkOptions, textRule, type OptionRules } from "../options/index.js";
import { readPromptFile } from "../prompts/templates.js";

/** Every prompt the graph uses. Templates fill `{{name}}` placeholders. */
export interface CodeGenPrompts {
  /** System prompt per language: how results are read and what the sandbox lacks. */
  system: Record<Language, string>;
  /** User message of `generate`: `{{task}}`, `{{details}}`, `{{language}}`. */
  task: string;
  /** User message of `refine`: `{{task}}`, `{{details}}`, `{{language}}`, `{{numberedCode}}`, `{{attempt}}`, `{{status}}`, `{{error}}`, `{{output}}`, and (empty when there is none) `{{history}}` (earlier attempts), `{{repeat}}` (the model wrote an earlier program again), `{{explanation}}` (its own explanation of the failure). */
  refine: string;
}

/** Caller overrides: any prompt, or the system prompt of some languages. */
export interface CodeGenPromptOverrides {
  system?: Partial<Record<Language, string>>;
  task?: string;
  refine?: string;
}

const PROMPT_TEXT = textRule({ what: "a prompt template" });
const SYSTEM_RULES = { javascript: PROMPT_TEXT, typescript: PROMPT_TEXT, python: PROMPT_TEXT } satisfies OptionRules<Record<Language, string>>;
const PROMPT_RULES = {
  system: { expected: "an object of system prompts by language", check: (v) => checkOptions(v, SYSTEM_RULES, "prompts.system", "prompts.system.") },
  task: PROMPT_TEXT,
  refine: PROMPT_TEXT,
} satisfies OptionRules<CodeGenPromptOverrides>;

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
export function resolvePrompts(options: CodeGenPromptOverrides = {}): CodeGenPrompts {
  const base = defaultPrompts();
  const overrides = checkOptions<CodeGenPromptOverrides>(options, PROMPT_RULES, "prompts", "prompts.");
  return {
    system: { ...base.system, ...overrides.system },
    task: overrides.task ?? base.task,
    refine: overrides.refine ?? base.refine,
  };
}
