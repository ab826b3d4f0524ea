/** What a type check of generated TypeScript reports (no TypeScript import: cheap to load). */

/** One type error, located in the checked code. */
export interface TypeDiagnostic {
  /** 1-based line in the checked code. */
  line: number;
  /** 1-based column in that line. */
  column: number;
  /** The compiler's error number, e.g. 2322 for `TS2322`. */
  code: number;
  /** The compiler's message, flattened to one line. */
  message: string;
}

/** Outcome of `checkTypes`: no errors, or the errors found (at most `maxDiagnostics`). */
export type TypeCheckResult =
  | { ok: true; durationMs: number }
  | { ok: false; diagnostics: TypeDiagnostic[]; durationMs: number };
