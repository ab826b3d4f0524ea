/** `approve`: pauses before running code until a person approves, edits or rejects it. */
import { interrupt } from "@langchain/langgraph";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { InvalidOptionError } from "../../errors.js";
import { emitEvent } from "../events.js";
import type { CodeGenStateType, CodeGenUpdate } from "../state.js";

/** What the graph shows while paused (the interrupt's value). */
export interface ApprovalRequest {
  type: "approve_code";
  task: string;
  language: string;
  attempt: number;
  code: string;
}

/**
 * How to resume a paused run: `new Command({ resume: decision })`.
 * - `{ action: "approve" }` runs the code as shown;
 * - `{ action: "edit", code }` runs `code` instead, after it passes the same check as
 *   generated code (a failing edit goes to refine, and refined code comes back for approval);
 * - `{ action: "reject", reason? }` ends the run with status `"rejected"`.
 */
export type ApprovalDecision = { action: "approve" } | { action: "edit"; code: string } | { action: "reject"; reason?: string };

/** Builds the `approve` node. */
export function createApproveNode() {
  return function approve(state: CodeGenStateType, config: LangGraphRunnableConfig): CodeGenUpdate {
    const number = state.refinements + 1;
    const request: ApprovalRequest = { type: "approve_code", task: state.task, language: state.language ?? "", attempt: number, code: state.code ?? "" };
    const decision = interrupt<ApprovalRequest, ApprovalDecision>(request);
    const action = (decision as { action?: unknown } | undefined)?.action;
    const edited = action === "edit" ? (decision as { code?: unknown }).code : undefined;
    if (action === "approve" || (typeof edited === "string" && edited === state.code)) {
      emitEvent(config, { node: "approve", attempt: number, status: "approved" });
      return { approvedCode: state.code };
    }
    if (typeof edited === "string") {
      emitEvent(config, { node: "approve", attempt: number, status: "edited" });
      // No check yet: the router sends the edit through validate.
      return { code: edited, approvedCode: edited, check: undefined };
    }
    if (action === "reject") {
      const reason = (decision as { reason?: unknown }).reason;
      const text = typeof reason === "string" && reason.trim() !== "" ? reason.trim() : "no reason given";
      emitEvent(config, { node: "approve", attempt: number, status: "rejected", message: text });
      return {
        rejection: text,
        attempts: [{ number, code: state.code ?? "", phase: "execute", status: "rejected", error: `Rejected before running: ${text}`, stdout: "", durationMs: 0, ...(state.pendingTokens ?? { inputTokens: 0, outputTokens: 0 }) }],
        pendingTokens: undefined,
      };
    }
    throw new InvalidOptionError("resume", decision, '{ action: "approve" } | { action: "edit", code: string } | { action: "reject", reason?: string }');
  };
}
