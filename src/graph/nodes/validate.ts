/** `validate`: syntax and forbidden-import check of the code, without running it. */
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { CodeGenContext } from "../configuration.js";
import { emitEvent } from "../events.js";
import { describeError } from "../explain.js";
import type { Attempt, CodeGenStateType, CodeGenUpdate } from "../state.js";

/** Builds the `validate` node. A failed check is recorded as an attempt in phase `validate`. */
export function createValidateNode(context: CodeGenContext) {
  return async function validate(state: CodeGenStateType, config: LangGraphRunnableConfig): Promise<CodeGenUpdate> {
    const language = state.language ?? context.defaultLanguage(config);
    const code = state.code ?? "";
    const number = state.refinements + 1;
    const tokens = state.pendingTokens ?? { inputTokens: 0, outputTokens: 0 };
    const fail = (status: "syntax_error" | "forbidden", error: string, durationMs: number): Attempt => ({
      number,
      code,
      phase: "validate",
      status,
      error,
      stdout: "",
      durationMs,
      ...tokens,
    });
    if (code.trim() === "") {
      const message = "The reply contained no code; answer with one fenced code block holding the whole program.";
      emitEvent(config, { node: "validate", attempt: number, status: "syntax_error", message });
      return {
        check: { ok: false, language, status: "syntax_error", error: { name: "SyntaxError", message: "the reply contained no code" } },
        attempts: [fail("syntax_error", message, 0)],
        pendingTokens: undefined,
      };
    }
    const sandbox = await context.sandbox();
    const startedAt = performance.now();
    const check = await sandbox.check(code, { language });
    const durationMs = Math.round((performance.now() - startedAt) * 100) / 100;
    if (check.ok) {
      emitEvent(config, { node: "validate", attempt: number, status: "valid", durationMs });
      return { check };
    }
    const error = describeError(check.error, code);
    emitEvent(config, { node: "validate", attempt: number, status: check.status, message: error, durationMs });
    return { check, attempts: [fail(check.status, error, durationMs)], pendingTokens: undefined };
  };
}
