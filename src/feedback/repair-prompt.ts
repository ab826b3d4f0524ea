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
  /** The earlier attempts, condensed (`renderAttemptHistory`); empty for none. */
  history?: string;
  /** Said when the model's last program was the same as an earlier attempt. */
  repeat?: string;
  /** The model's own explanation of the failure (`repair.explainFirst`). */
  explanation?: string;
}

/**
 * Fills the refine `template` (`{{language}}`, `{{task}}`, `{{details}}`, `{{numberedCode}}`,
 * `{{attempt}}`, `{{status}}`, `{{error}}`, `{{output}}`, `{{history}}`, `{{repeat}}`, `{{explanation}}`;
 * the last three are sections of their own, empty when there is nothing to say).
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
    history: section(input.history),
    repeat: section(input.repeat),
    explanation: section(input.explanation === undefined || input.explanation.trim() === "" ? undefined : `Your explanation of the failure:\n${input.explanation.trim()}`),
  });
}

/** A section of the prompt: its text and a blank line after it, or nothing. */
function section(text: string | undefined): string {
  const trimmed = text?.trim() ?? "";
  return trimmed === "" ? "" : `\n${trimmed}\n`;
}
