/**
 * Custom stream events of the graph (`streamMode: "custom"`), one per node step.
 */
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { AttemptStatus } from "./state.js";

/** What a node reports while the graph runs. */
export interface CodeGenEvent {
  type: "codegen";
  node: "generate" | "validate" | "approve" | "execute" | "refine" | "finalize";
  /** Attempt number (1 = first generation). */
  attempt: number;
  /**
   * `generated` (a model wrote code), `valid` (the check passed), `approved`/`edited`,
   * an {@link AttemptStatus} for a failed check or a run, or the final status for `finalize`.
   */
  status: AttemptStatus | "generated" | "valid" | "approved" | "edited" | "failed";
  /** A one-line message: the error, or what happened. */
  message?: string;
  /** Printed output of a run (bounded). */
  stdout?: string;
  durationMs?: number;
  inputTokens?: number;
  outputTokens?: number;
}

/**
 * Sends `event` to `config.writer` when the caller streams custom events (a no-op otherwise).
 *
 * @example
 * ```ts
 * emitEvent(config, { node: "execute", attempt: 1, status: "success", durationMs: 3 });
 * ```
 */
export function emitEvent(config: LangGraphRunnableConfig, event: Omit<CodeGenEvent, "type">): void {
  config.writer?.({ type: "codegen", ...event } satisfies CodeGenEvent);
}
