/**
 * Routers of the graph: pure functions of the state, each returning a literal union that the
 * graph wires with an explicit path map.
 */
import type { CodeGenStateType } from "./state.js";

type RouterState = Pick<
  CodeGenStateType,
  "modelError" | "check" | "refinements" | "maxRetries" | "approveBeforeExecute" | "rejection" | "attempts" | "code" | "approvedCode"
> &
  Partial<Pick<CodeGenStateType, "lastRepeat">>;

function canRefine(state: RouterState): boolean {
  return state.refinements < state.maxRetries;
}

/**
 * After `generate` or `refine`: a model that failed for good ends the run.
 *
 * @example
 * ```ts
 * routeAfterModel({ ...state, modelError: "unreachable" }); // "finalize"
 * ```
 */
export function routeAfterModel(state: RouterState): "validate" | "finalize" {
  return state.modelError === undefined ? "validate" : "finalize";
}

/**
 * After `refine`: a model that failed for good ends the run; a round that wrote only programs
 * seen before (a repeat, never run) is followed by another round while refinements remain;
 * new code is validated.
 *
 * @example
 * ```ts
 * routeAfterRefine({ ...state, lastRepeat: true, refinements: 1, maxRetries: 2 }); // "refine"
 * ```
 */
export function routeAfterRefine(state: RouterState): "validate" | "refine" | "finalize" {
  if (state.modelError !== undefined) return "finalize";
  if (state.lastRepeat === true) return canRefine(state) ? "refine" : "finalize";
  return "validate";
}

/**
 * After `validate`: valid code runs, or waits for approval when the run asks for it and a
 * reviewer has not approved (or written) this very code; invalid code is refined while
 * refinements remain, never executed.
 *
 * @example
 * ```ts
 * routeAfterValidate({ ...state, check: { ok: true, language: "javascript" } }); // "execute"
 * ```
 */
export function routeAfterValidate(state: RouterState): "approve" | "execute" | "refine" | "finalize" {
  if (state.check?.ok === true) return state.approveBeforeExecute && state.code !== state.approvedCode ? "approve" : "execute";
  return canRefine(state) ? "refine" : "finalize";
}

/**
 * After `approve`: a rejection ends the run; approved code runs; edited code (its check is
 * cleared) is validated first, like any other code.
 *
 * @example
 * ```ts
 * routeAfterApprove({ ...state, rejection: "not now" }); // "finalize"
 * ```
 */
export function routeAfterApprove(state: RouterState): "validate" | "execute" | "finalize" {
  if (state.rejection !== undefined) return "finalize";
  return state.check === undefined ? "validate" : "execute";
}

/**
 * After `execute`: success ends the run; a failure is refined while refinements remain.
 *
 * @example
 * ```ts
 * routeAfterExecute(stateWhoseLastAttemptSucceeded); // "finalize"
 * ```
 */
export function routeAfterExecute(state: RouterState): "refine" | "finalize" {
  const last = state.attempts.at(-1);
  if (last?.status === "success") return "finalize";
  return canRefine(state) ? "refine" : "finalize";
}
