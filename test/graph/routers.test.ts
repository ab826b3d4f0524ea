import { describe, expect, it } from "vitest";
import { routeAfterApprove, routeAfterExecute, routeAfterModel, routeAfterValidate } from "../../src/graph/routers.js";
import type { Attempt, CodeGenStateType } from "../../src/graph/state.js";

type RouterState = Parameters<typeof routeAfterValidate>[0];

function state(overrides: Partial<CodeGenStateType> = {}): RouterState {
  return { modelError: undefined, check: undefined, refinements: 0, maxRetries: 2, approveBeforeExecute: false, rejection: undefined, attempts: [], code: "x", approvedCode: undefined, ...overrides };
}

function attempt(status: Attempt["status"]): Attempt {
  return { number: 1, code: "x", phase: "execute", status, stdout: "", durationMs: 1, inputTokens: 0, outputTokens: 0 };
}

const syntaxError = { ok: false as const, language: "javascript" as const, status: "syntax_error" as const, error: { name: "SyntaxError", message: "x" } };

describe("routers", () => {
  it("routeAfterModel ends the run on a model error", () => {
    expect(routeAfterModel(state())).toBe("validate");
    expect(routeAfterModel(state({ modelError: "unreachable" }))).toBe("finalize");
  });

  it("routeAfterValidate sends valid code to execute, or to approve when asked", () => {
    expect(routeAfterValidate(state({ check: { ok: true, language: "javascript" } }))).toBe("execute");
    expect(routeAfterValidate(state({ check: { ok: true, language: "javascript" }, approveBeforeExecute: true }))).toBe("approve");
  });

  it("routeAfterValidate runs valid code the reviewer wrote, and asks again for code refine changed", () => {
    const valid = { ok: true as const, language: "javascript" as const };
    expect(routeAfterValidate(state({ check: valid, approveBeforeExecute: true, code: "edited", approvedCode: "edited" }))).toBe("execute");
    expect(routeAfterValidate(state({ check: valid, approveBeforeExecute: true, code: "refined", approvedCode: "edited" }))).toBe("approve");
  });

  it("routeAfterValidate refines invalid code while refinements remain, never executes it", () => {
    expect(routeAfterValidate(state({ check: syntaxError, refinements: 1 }))).toBe("refine");
    expect(routeAfterValidate(state({ check: syntaxError, refinements: 2 }))).toBe("finalize");
    expect(routeAfterValidate(state({ check: syntaxError, maxRetries: 0 }))).toBe("finalize");
  });

  it("routeAfterApprove runs approved code, validates an edit and ends on a rejection", () => {
    expect(routeAfterApprove(state({ check: { ok: true, language: "javascript" } }))).toBe("execute");
    expect(routeAfterApprove(state({ check: undefined }))).toBe("validate");
    expect(routeAfterApprove(state({ rejection: "no" }))).toBe("finalize");
  });

  it("routeAfterExecute ends on success and refines failures until the budget is spent", () => {
    expect(routeAfterExecute(state({ attempts: [attempt("success")] }))).toBe("finalize");
    expect(routeAfterExecute(state({ attempts: [attempt("runtime_error")] }))).toBe("refine");
    expect(routeAfterExecute(state({ attempts: [attempt("test_failed")], refinements: 1 }))).toBe("refine");
    expect(routeAfterExecute(state({ attempts: [attempt("timeout")], refinements: 2 }))).toBe("finalize");
  });
});
