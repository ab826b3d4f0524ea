/**
 * `refine`: one repair round. The model is asked again, as the repair strategy says (the task
 * again, or its code with the error, the output and the earlier attempts), at the round's
 * temperature; it may draw several candidates, chosen by the task's tests. A program the same
 * as an earlier attempt is never run again: the round records a repeat, and the next round
 * says so.
 */
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { GraphSettings, RunLimits } from "../configuration.js";
import { emitEvent } from "../events.js";
import { explainCheck, explainResult } from "../../feedback/explain.js";
import { failureLine, renderAttemptHistory } from "../../feedback/attempt-history.js";
import { renderRepairPrompt } from "../../feedback/repair-prompt.js";
import { truncate } from "../../feedback/truncate.js";
import { extractCode } from "../extract-code.js";
import { temperatureOf, usesRepairPrompt } from "../repair-strategy.js";
import { findSameProgram } from "../same-program.js";
import type { ExecutionResult, Language } from "../../sandbox/types.js";
import type { Attempt, CodeGenStateType, CodeGenUpdate } from "../state.js";
import { restoreRunResult, storeRunResult } from "../stored-result.js";
import { callCodeModel } from "./call-model.js";
import { judgeRun, runProgram } from "./execute.js";
import { taskDetails, taskPrompt } from "./generate.js";

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

/**
 * What the model is told when its last program was the same as an earlier attempt.
 *
 * @example
 * ```ts
 * repeatNote(repeatAttempt, state.attempts); // "Your program is the same as attempt 1, which failed because ...; write a different one."
 * ```
 */
export function repeatNote(repeat: Attempt, attempts: readonly Attempt[]): string {
  const original = attempts.find((a) => a.number === repeat.repeatOf);
  const why = original === undefined ? "it failed" : failureLine(original);
  return `Your last program is the same as attempt ${repeat.repeatOf}, which failed (${why}). It was not run again. Write a different program.`;
}

/** How well a candidate did on the tests: success first, then tests passed. */
interface CandidateScore {
  success: boolean;
  testsPassed: number;
}

/** Tests a run passed: each case when the sandbox reports them, else 1 for passed and 0 for not. */
export function testsPassedIn(result: ExecutionResult, success: boolean): number {
  const cases = (result.tests as { cases?: unknown } | undefined)?.cases;
  if (Array.isArray(cases)) return cases.filter((c) => (c as { status?: unknown } | null)?.status === "passed").length;
  return success ? 1 : 0;
}

function better(a: CandidateScore, b: CandidateScore): boolean {
  if (a.success !== b.success) return a.success;
  return a.testsPassed > b.testsPassed;
}

/** The attempt a repair prompt shows as "your code": the last one, or the original of a repeat. */
function shownAttempt(attempts: readonly Attempt[]): Attempt | undefined {
  const last = attempts.at(-1);
  if (last?.status !== "repeat") return last;
  return attempts.find((a) => a.number === last.repeatOf) ?? last;
}

/** The repair prompt of a round (the failure, the earlier attempts, a repeat note). */
function repairPrompt(state: CodeGenStateType, settings: GraphSettings, config: LangGraphRunnableConfig, language: Language, explanation?: string): string {
  const last = state.attempts.at(-1);
  const shown = shownAttempt(state.attempts);
  const repeated = last?.status === "repeat";
  const error = repeated ? (shown?.error ?? shown?.status ?? "it failed") : failureForModel(state, settings, settings.runLimitsFor(config));
  const before = shown === undefined ? [] : state.attempts.filter((a) => a.number < shown.number);
  return renderRepairPrompt(settings.prompts.refine, {
    language,
    task: state.task,
    details: taskDetails(state),
    code: shown?.code ?? state.code ?? "",
    attempt: shown?.number ?? state.refinements + 1,
    status: shown?.status ?? "unknown",
    error,
    output: shown?.stdout ?? "",
    history: renderAttemptHistory([...before, ...(shown === undefined ? [] : [shown])]),
    ...(repeated && last !== undefined ? { repeat: repeatNote(last, state.attempts) } : {}),
    ...(explanation === undefined ? {} : { explanation }),
  });
}

const EXPLAIN_REQUEST =
  "Do not write code yet. In at most five sentences, explain why the program fails: compare what it does with what the task and its tests ask for.";

/** Builds the `refine` node. */
export function createRefineNode(settings: GraphSettings) {
  return async function refine(state: CodeGenStateType, config: LangGraphRunnableConfig): Promise<CodeGenUpdate> {
    const language = state.language ?? settings.defaultLanguage(config);
    const strategy = settings.repair;
    const round = state.refinements + 1;
    const number = round + 1;
    const temperature = temperatureOf(strategy, number);
    const system = settings.prompts.system[language];
    const last = state.attempts.at(-1);
    const withRepairPrompt = usesRepairPrompt(strategy.prompt, round, shownAttempt(state.attempts)?.status ?? "unknown");
    const codeTools = settings.codeTools ? `\n\n${await settings.codeTools.promptSection(language)}` : "";
    let inputTokens = 0;
    let outputTokens = 0;
    let modelCalls = 0;
    const modelFailure = (message: string): CodeGenUpdate => {
      emitEvent(config, { node: "refine", attempt: number, status: "model_error", message });
      return {
        refinements: round,
        modelError: message,
        lastRepeat: false,
        attempts: [{ number, code: "", phase: "generate", status: "model_error", error: message, stdout: "", durationMs: 0, inputTokens, outputTokens, ...(modelCalls > 1 ? { modelCalls } : {}) }],
      };
    };

    let user: string;
    if (withRepairPrompt) {
      let explanation: string | undefined;
      if (strategy.explainFirst) {
        const asked = await callCodeModel(settings, config, system, `${repairPrompt(state, settings, config, language)}\n\n${EXPLAIN_REQUEST}`, { temperature });
        modelCalls++;
        if (!asked.ok) return modelFailure(asked.message);
        inputTokens += asked.inputTokens;
        outputTokens += asked.outputTokens;
        explanation = truncate(asked.text.trim(), 1200);
      }
      user = `${repairPrompt(state, settings, config, language, explanation)}${codeTools}`;
    } else {
      const note = last?.status === "repeat" ? `\n\n${repeatNote(last, state.attempts)}` : "";
      user = `${await taskPrompt(settings, state, language)}${note}`;
    }

    // Programs already seen in this run: earlier attempts, then this round's candidates.
    const seen: { number: number; code: string }[] = state.attempts.filter((a) => a.status !== "repeat");
    let repeats = 0;
    let repeatOf: number | undefined;
    let repeatCode = "";
    let chosen: { code: string; reply: string; score?: CandidateScore; result?: ExecutionResult } | undefined;
    for (let sample = 0; sample < strategy.samples; sample++) {
      // A seed per round and sample: a sampled run repeats on servers that take one.
      const outcome = await callCodeModel(settings, config, system, user, temperature > 0 ? { temperature, seed: round * 100 + sample } : { temperature });
      modelCalls++;
      if (!outcome.ok) {
        if (chosen === undefined) return modelFailure(outcome.message);
        break;
      }
      inputTokens += outcome.inputTokens;
      outputTokens += outcome.outputTokens;
      const code = extractCode(outcome.text, language, { tests: state.tests });
      const same = findSameProgram(code, seen, language);
      if (same !== undefined) {
        repeats++;
        repeatOf ??= same;
        if (repeatCode === "") repeatCode = code;
        emitEvent(config, { node: "refine", attempt: number, status: "repeat", message: `the same program as attempt ${same}`, inputTokens: outcome.inputTokens, outputTokens: outcome.outputTokens });
        continue;
      }
      seen.push({ number, code });
      emitEvent(config, { node: "refine", attempt: number, status: "generated", inputTokens: outcome.inputTokens, outputTokens: outcome.outputTokens });
      if (strategy.samples === 1 || code.trim() === "") {
        chosen ??= { code, reply: outcome.text };
        if (strategy.samples === 1) break;
        continue;
      }
      // Choose among candidates by running each with the task's tests (what the model is shown).
      const result = await runProgram(settings, state, config, code);
      const verdict = judgeRun(result, { code, tests: state.tests?.trim() ?? "", expectedOutput: state.expectedOutput, task: state.task });
      const score: CandidateScore = { success: verdict.status === "success", testsPassed: testsPassedIn(result, verdict.status === "success") };
      if (chosen === undefined || chosen.score === undefined || better(score, chosen.score)) chosen = { code, reply: outcome.text, score, result };
      if (score.success) break;
    }

    const draw = { inputTokens, outputTokens, temperature, ...(modelCalls > 1 ? { modelCalls } : {}), ...(repeats > 0 ? { repeats } : {}) };
    if (chosen === undefined) {
      // Every program of the round was seen before: nothing new to run.
      const repeat: Attempt = {
        number,
        code: repeatCode,
        phase: "generate",
        status: "repeat",
        error: `The same program as attempt ${repeatOf}; it was not run again.`,
        stdout: "",
        durationMs: 0,
        ...draw,
        repeatOf: repeatOf!,
      };
      return { refinements: round, code: repeatCode, check: undefined, result: undefined, pendingTokens: undefined, trialRun: undefined, lastRepeat: true, attempts: [repeat] };
    }
    return {
      refinements: round,
      reply: chosen.reply,
      code: chosen.code,
      check: undefined,
      result: undefined,
      lastRepeat: false,
      pendingTokens: draw,
      trialRun: chosen.result === undefined ? undefined : { code: chosen.code, result: storeRunResult(chosen.result) },
    };
  };
}
