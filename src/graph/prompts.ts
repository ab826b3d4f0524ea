/**
 * Prompt files of the graph (`prompts/` at the package root), loaded once, overridable.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Language } from "../sandbox/types.js";
import { InvalidOptionError } from "../errors.js";

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
  const dir = findPromptsDir();
  const read = (name: string) => readFileSync(join(dir, name), "utf8").trim();
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

/**
 * Fills `{{name}}` placeholders; unknown names are left as they are.
 *
 * @example
 * ```ts
 * renderTemplate("Task: {{task}}", { task: "add" }); // "Task: add"
 * ```
 */
export function renderTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (match, name: string) => values[name] ?? match);
}

/**
 * One file of the package's `prompts/` folder, trimmed (for prompts outside the graph's set,
 * such as the SDK's system prompt).
 *
 * @example
 * ```ts
 * readPromptFile("generator.system.md").startsWith("You write code"); // true
 * ```
 */
export function readPromptFile(name: string): string {
  return readFileSync(join(findPromptsDir(), name), "utf8").trim();
}

function findPromptsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "prompts");
    if (existsSync(join(candidate, "task.md")) && existsSync(join(dir, "package.json"))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error("codegen-sandbox: the prompts/ folder is missing from the package; reinstall it.");
    dir = parent;
  }
}
