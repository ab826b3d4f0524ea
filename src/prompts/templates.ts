/**
 * Prompt files and templates, below every part that talks to a model (the graph, the feedback,
 * the SDK): the package's `prompts/` folder, `{{name}}` templates, and language names as prompts
 * write them.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Language } from "../sandbox/types.js";

/** Names of the languages in prompts. */
export const LANGUAGE_NAMES: Record<Language, string> = { javascript: "JavaScript", typescript: "TypeScript", python: "Python" };

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
