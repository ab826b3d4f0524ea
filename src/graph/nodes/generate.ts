/** `generate`: the model writes the first version of the code. */
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { GraphSettings } from "../configuration.js";
import type { Language } from "../../sandbox/types.js";
import { emitEvent } from "../events.js";
import { extractCode } from "../extract-code.js";
import { LANGUAGE_NAMES, renderTemplate } from "../../prompts/templates.js";
import { checkCodeGenInput, type CodeGenStateType, type CodeGenUpdate } from "../state.js";
import { callCodeModel } from "./call-model.js";
import { InvalidOptionError } from "../../errors.js";
import { temperatureOf } from "../repair-strategy.js";


/** The optional parts of a task (its details, tests, expected output) as prompt text. */
export function taskDetails(state: Pick<CodeGenStateType, "details" | "tests" | "expectedOutput">): string {
  const parts: string[] = [];
  if (state.details !== undefined && state.details.trim() !== "") parts.push(`Context:\n${state.details.trim()}`);
  if (state.tests !== undefined && state.tests.trim() !== "") {
    parts.push(
      `These tests will run after your program, in the same scope, and must pass (do not copy them into your answer, and do not exit before they run):\n${state.tests.trim()}`,
    );
  }
  if (state.expectedOutput !== undefined) parts.push(`The program must print exactly:\n${state.expectedOutput.trim()}`);
  return parts.length === 0 ? "" : `\n${parts.join("\n\n")}\n`;
}

/** The first prompt of a task (`generate`'s user message; a fresh repair round asks it again). */
export async function taskPrompt(settings: GraphSettings, state: Pick<CodeGenStateType, "task" | "details" | "tests" | "expectedOutput">, language: Language): Promise<string> {
  const task = renderTemplate(settings.prompts.task, { task: state.task.trim(), details: taskDetails(state), language: LANGUAGE_NAMES[language] });
  return settings.codeTools ? `${task}\n\n${await settings.codeTools.promptSection(language)}` : task;
}

/**
 * The `recursionLimit` a run needs: generate, each attempt's validate + execute (with
 * approval: validate, approve, validate of an edit, execute), each refine, finalize, plus
 * LangGraph's own input step.
 *
 * @example
 * ```ts
 * graphStepsNeeded(2, false); // 11
 * ```
 */
export function graphStepsNeeded(maxRetries: number, approveBeforeExecute: boolean): number {
  const perAttempt = approveBeforeExecute ? 4 : 2;
  return 1 + (maxRetries + 1) * perAttempt + maxRetries + 1 + 1;
}

/** Builds the `generate` node. It starts a run: earlier attempts on the same thread are cleared. */
export function createGenerateNode(settings: GraphSettings) {
  return async function generate(state: CodeGenStateType, config: LangGraphRunnableConfig): Promise<CodeGenUpdate> {
    checkCodeGenInput(state);
    settings.checkRunConfig(config);
    const language = state.language ?? settings.defaultLanguage(config);
    const maxRetries = settings.maxRetries(config);
    const stepsNeeded = graphStepsNeeded(maxRetries, settings.approveBeforeExecute);
    // Fail now with a clear message rather than with GraphRecursionError in the middle of the loop.
    if (config.recursionLimit !== undefined && config.recursionLimit < stepsNeeded) {
      throw new InvalidOptionError(
        "maxRetries",
        maxRetries,
        `a number the run's recursionLimit (${config.recursionLimit}) allows; pass { recursionLimit: ${stepsNeeded} } in the run's config`,
      );
    }
    const fresh: CodeGenUpdate = {
      language,
      attempts: { replace: [] },
      refinements: 0,
      maxRetries,
      approveBeforeExecute: settings.approveBeforeExecute,
      code: undefined,
      approvedCode: undefined,
      reply: undefined,
      check: undefined,
      result: undefined,
      pendingTokens: undefined,
      trialRun: undefined,
      lastRepeat: undefined,
      modelError: undefined,
      rejection: undefined,
      status: undefined,
      explanation: undefined,
    };
    const user = await taskPrompt(settings, state, language);
    const temperature = temperatureOf(settings.repair, 1);
    const outcome = await callCodeModel(settings, config, settings.prompts.system[language], user, { temperature });
    if (!outcome.ok) {
      emitEvent(config, { node: "generate", attempt: 1, status: "model_error", message: outcome.message });
      return {
        ...fresh,
        modelError: outcome.message,
        attempts: { replace: [{ number: 1, code: "", phase: "generate", status: "model_error", error: outcome.message, stdout: "", durationMs: 0, inputTokens: 0, outputTokens: 0 }] },
      };
    }
    const code = extractCode(outcome.text, language, { tests: state.tests });
    emitEvent(config, { node: "generate", attempt: 1, status: "generated", inputTokens: outcome.inputTokens, outputTokens: outcome.outputTokens });
    return { ...fresh, reply: outcome.text, code, pendingTokens: { inputTokens: outcome.inputTokens, outputTokens: outcome.outputTokens, temperature } };
  };
}
