/** `refine`: the model gets its code, the error with its line, the output and test results, and writes a fix. */
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { GraphSettings, RunLimits } from "../configuration.js";
import { emitEvent } from "../events.js";
import { explainCheck, explainResult } from "../../feedback/explain.js";
import { renderRepairPrompt } from "../../feedback/repair-prompt.js";
import { truncate } from "../../feedback/truncate.js";
import { extractCode } from "../extract-code.js";
import type { CodeGenStateType, CodeGenUpdate } from "../state.js";
import { restoreRunResult } from "../stored-result.js";
import { callCodeModel } from "./call-model.js";
import { taskDetails } from "./generate.js";


/** What went wrong in the last attempt, for the model. */
export function failureForModel(state: CodeGenStateType, settings: GraphSettings, limits: RunLimits = settings.runLimits): string {
  const last = state.attempts.at(-1);
  const code = last?.code ?? state.code ?? "";
  if (last?.phase === "validate" && state.check !== undefined && !state.check.ok && last.code.trim() !== "") {
    return explainCheck(state.check, code);
  }
  // Verdicts of the tests and of the expected output are already worded for the model.
  if (last?.status === "test_failed" || last?.status === "tests_not_run" || last?.status === "wrong_output" || last?.status === "no_output") return last.error ?? last.status;
  if (last?.phase === "execute" && state.result !== undefined) {
    const stderr = state.result.stderr.trim();
    // The tests run apart from the program, so a program error's line is a line of `code`.
    const base = explainResult(restoreRunResult(state.result), code, limits, state.tests);
    return stderr === "" ? base : `${base}\nstderr:\n${truncate(stderr, 400)}`;
  }
  return last?.error ?? "The code did not work.";
}

/** Builds the `refine` node. */
export function createRefineNode(settings: GraphSettings) {
  return async function refine(state: CodeGenStateType, config: LangGraphRunnableConfig): Promise<CodeGenUpdate> {
    const language = state.language ?? settings.defaultLanguage(config);
    const last = state.attempts.at(-1);
    const number = state.refinements + 2;
    const prompt = renderRepairPrompt(settings.prompts.refine, {
      language,
      task: state.task,
      details: taskDetails(state),
      code: last?.code ?? state.code ?? "",
      attempt: last?.number ?? number - 1,
      status: last?.status ?? "unknown",
      error: failureForModel(state, settings, settings.runLimitsFor(config)),
      output: last?.stdout ?? "",
    });
    const user = settings.codeTools ? `${prompt}\n\n${await settings.codeTools.promptSection(language)}` : prompt;
    const outcome = await callCodeModel(settings, config, settings.prompts.system[language], user);
    if (!outcome.ok) {
      emitEvent(config, { node: "refine", attempt: number, status: "model_error", message: outcome.message });
      return {
        refinements: state.refinements + 1,
        modelError: outcome.message,
        attempts: [{ number, code: "", phase: "generate", status: "model_error", error: outcome.message, stdout: "", durationMs: 0, inputTokens: 0, outputTokens: 0 }],
      };
    }
    emitEvent(config, { node: "refine", attempt: number, status: "generated", inputTokens: outcome.inputTokens, outputTokens: outcome.outputTokens });
    return {
      refinements: state.refinements + 1,
      reply: outcome.text,
      code: extractCode(outcome.text, language, { tests: state.tests }),
      check: undefined,
      result: undefined,
      pendingTokens: { inputTokens: outcome.inputTokens, outputTokens: outcome.outputTokens },
    };
  };
}
