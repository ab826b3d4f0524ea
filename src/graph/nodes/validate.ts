/**
 * `validate`: checks the code without running it: a program was found in the reply, it parses,
 * imports nothing forbidden, and (TypeScript) type-checks.
 */
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { GraphSettings } from "../configuration.js";
import { emitEvent } from "../events.js";
import { extractProgram } from "../extract-code.js";
import { describeTypeErrors, explainNoProgram, type FailedValidation } from "../../feedback/explain.js";
import { describeError } from "../../feedback/quote.js";
import { checkTypes } from "../../typecheck/check-types.js";
import type { Attempt, AttemptStatus, CodeGenStateType, CodeGenUpdate } from "../state.js";

/** Builds the `validate` node. A failed check is recorded as an attempt in phase `validate`. */
export function createValidateNode(settings: GraphSettings) {
  return async function validate(state: CodeGenStateType, config: LangGraphRunnableConfig): Promise<CodeGenUpdate> {
    const language = state.language ?? settings.defaultLanguage(config);
    const code = state.code ?? "";
    const number = state.refinements + 1;
    const tokens = state.pendingTokens ?? { inputTokens: 0, outputTokens: 0 };
    const fail = (status: AttemptStatus, error: string, durationMs: number): Attempt => ({
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
      // Code edited at an approval pause has no reply behind it; the reply says why nothing was found.
      const found = extractProgram(state.reply ?? "", language, { tests: state.tests });
      const message = explainNoProgram(found.ok ? "the code is empty" : found.reason);
      emitEvent(config, { node: "validate", attempt: number, status: "no_program", message });
      return {
        check: { ok: false, language, status: "syntax_error", error: { name: "SyntaxError", message: "no program was found in the reply" } },
        attempts: [fail("no_program", message, 0)],
        pendingTokens: undefined,
      };
    }
    const sandbox = await settings.sandbox();
    const startedAt = performance.now();
    const check = await sandbox.check(code, { language });
    const elapsed = () => Math.round((performance.now() - startedAt) * 100) / 100;
    if (!check.ok) {
      const error = describeError(check.error, code);
      const durationMs = elapsed();
      emitEvent(config, { node: "validate", attempt: number, status: check.status, message: error, durationMs });
      return { check, attempts: [fail(check.status, error, durationMs)], pendingTokens: undefined };
    }
    if (language === "typescript") {
      const parts = [settings.codeTools === undefined ? undefined : await settings.codeTools.typeDeclarations(), sandbox.typeDeclarations?.(code)];
      const declarations = parts.filter((part) => part !== undefined && part !== "").join("\n");
      const types = await checkTypes(code, declarations === "" ? {} : { declarations });
      if (!types.ok) {
        const failed: FailedValidation = { ok: false, language, status: "type_error", diagnostics: types.diagnostics };
        const error = describeTypeErrors(types.diagnostics, code);
        const durationMs = elapsed();
        emitEvent(config, { node: "validate", attempt: number, status: "type_error", message: error, durationMs });
        return { check: failed, attempts: [fail("type_error", error, durationMs)], pendingTokens: undefined };
      }
    }
    const durationMs = elapsed();
    emitEvent(config, { node: "validate", attempt: number, status: "valid", durationMs });
    return { check };
  };
}
