/**
 * The messages between `TypeCheckThread` (host thread) and the type checker's worker thread.
 * The host checks every reply before it uses it (`type-check-thread.ts`).
 */
import type { TypeDiagnostic } from "../../typecheck/types.js";

/** Host → checker: type-check each source with the same declarations. */
export interface CheckerRequest {
  id: number;
  sources: string[];
  declarations: string;
  maxDiagnostics: number;
}

/** Checker → host: the errors of each source, in order, or why the check failed. */
export type CheckerReply = { id: number; results: TypeDiagnostic[][] } | { id: number; error: string };
