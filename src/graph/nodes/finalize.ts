/** `finalize`: sets the run's status and, for a failure, an explanation a person can act on. */
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { GraphSettings } from "../configuration.js";
import { emitEvent } from "../events.js";
import { explainCheck, explainResult } from "../../feedback/explain.js";
import { MAX_EXPLANATION_CHARS, truncate as bound } from "../../feedback/truncate.js";
import type { CodeGenStateType, CodeGenUpdate } from "../state.js";
import { restoreRunResult } from "../stored-result.js";
import type { RunLimits } from "../configuration.js";

/** The explanation of a run that did not succeed. */
export function explainRun(state: CodeGenStateType, settings: Pick<GraphSettings, "runLimits">, limits: RunLimits = settings.runLimits): string {
  const attempts = state.attempts.filter((a) => a.status !== "model_error").length;
  const tried = `after ${attempts} attempt${attempts === 1 ? "" : "s"}`;
  if (state.modelError !== undefined) {
    const when = attempts === 0 ? "" : ` after ${attempts} attempt${attempts === 1 ? "" : "s"} of code`;
    return bound(`The model could not be used${when}: ${state.modelError}`, MAX_EXPLANATION_CHARS);
  }
  if (state.rejection !== undefined) return bound(`The code was rejected before it ran: ${state.rejection}.`, MAX_EXPLANATION_CHARS);
  const last = state.attempts.at(-1);
  if (last === undefined) return "No code was produced.";
  let what: string;
  if (last.phase === "validate" && state.check !== undefined && !state.check.ok && last.code.trim() !== "") {
    what = explainCheck(state.check, last.code);
  } else if (last.status === "repeat") {
    // The repeat never ran: say why its original failed.
    const original = state.attempts.find((a) => a.number === last.repeatOf);
    what = `${last.error ?? ""} Attempt ${last.repeatOf} failed: ${original?.error ?? original?.status ?? "unknown"}`;
  } else if (last.phase === "execute" && state.result !== undefined && last.status === state.result.status) {
    // The program's own failure: its line is a line of the code (the tests run apart).
    what = explainResult(restoreRunResult(state.result), last.code, limits);
  } else {
    what = last.error ?? `The last attempt ended with status ${last.status}.`;
  }
  return bound(`No working code ${tried} (${last.status} on the last one). ${what}`, MAX_EXPLANATION_CHARS);
}

/** Builds the `finalize` node. */
export function createFinalizeNode(settings: GraphSettings) {
  return function finalize(state: CodeGenStateType, config: LangGraphRunnableConfig): CodeGenUpdate {
    const last = state.attempts.at(-1);
    const number = last?.number ?? state.refinements + 1;
    if (state.modelError === undefined && state.rejection === undefined && last?.status === "success") {
      emitEvent(config, { node: "finalize", attempt: number, status: "success" });
      return { status: "success", explanation: undefined };
    }
    const status = state.rejection !== undefined ? "rejected" : "failed";
    const explanation = explainRun(state, settings, settings.runLimitsFor(config));
    emitEvent(config, { node: "finalize", attempt: number, status, message: explanation });
    return { status, explanation };
  };
}
