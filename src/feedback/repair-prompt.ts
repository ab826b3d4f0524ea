/**
 * The repair prompt: the model's code with line numbers, what went wrong and what it printed,
 * filled into the `refine` template of `prompts/`. The graph's `refine` node and the SDK's
 * repair both build it here.
 */
import { LANGUAGE_NAMES, renderTemplate } from "../prompts/templates.js";
import type { Language } from "../sandbox/types.js";
import { numberLines } from "./quote.js";

/** What a repair prompt says. */
export interface RepairPromptInput {
  language: Language;
  task: string;
  /** Context, tests and expected output as prompt text (may be empty). */
  details?: string;
  /** The code of the failed attempt. */
  code: string;
  /** Number of the failed attempt (1 = the first generation). */
  attempt: number;
  status: string;
  /** The explanation from the feedback module. */
  error: string;
  /** What the program printed, if anything. */
  output?: string;
}

/**
 * Fills the refine `template` (`{{language}}`, `{{task}}`, `{{details}}`, `{{numberedCode}}`,
 * `{{attempt}}`, `{{status}}`, `{{error}}`, `{{output}}`).
 *
 * @example
 * ```ts
 * renderRepairPrompt(defaultPrompts().refine, { language: "python", task: "add", code: "print(x)", attempt: 1, status: "runtime_error", error: "..." });
 * ```
 */
export function renderRepairPrompt(template: string, input: RepairPromptInput): string {
  const output = input.output?.trim() ?? "";
  return renderTemplate(template, {
    language: LANGUAGE_NAMES[input.language],
    task: input.task,
    details: input.details ?? "",
    numberedCode: numberLines(input.code),
    attempt: String(input.attempt),
    status: input.status,
    error: input.error,
    output: output === "" ? "(nothing)" : output,
  });
}
