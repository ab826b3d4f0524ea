/**
 * The argument schema of `solve_with_code` (`execute_code`'s is code mode's). The descriptions
 * are read by the calling model: they say what each field is for and when to use it.
 */
import { z } from "zod";
import { LANGUAGES, type Language } from "../sandbox/types.js";

/** Arguments of `solve_with_code` with every language allowed. */
export const solveWithCodeSchema = z.object({
  task: z
    .string()
    .min(1)
    .describe(
      "The problem to solve by writing and running a program, stated completely (inputs, expected form of the answer).",
    ),
  language: z
    .enum(LANGUAGES as [Language, ...Language[]])
    .optional()
    .describe("Language to write the program in. Leave out to use the one the task names (\"a Python program\"), else the tool's default."),
  details: z
    .string()
    .optional()
    .describe("Extra facts the program needs: data, constraints, definitions. Leave out when the task says it all."),
  tests: z
    .string()
    .optional()
    .describe(
      "Test code in the same language, appended to the program and run with it (assertions that throw on failure). Use it when the answer can be checked.",
    ),
});

/** Input of `solve_with_code`. */
export type SolveWithCodeInput = z.infer<typeof solveWithCodeSchema>;

/**
 * The `solve_with_code` schema restricted to `languages`; the module-level schema itself when
 * every language is allowed.
 *
 * @example
 * ```ts
 * solveWithCodeSchemaFor(["javascript"]).shape.language; // optional enum of "javascript"
 * ```
 */
export function solveWithCodeSchemaFor(languages: Language[]) {
  if (languages.length === LANGUAGES.length) return solveWithCodeSchema;
  return solveWithCodeSchema.extend({
    language: z.enum(languages as [Language, ...Language[]])
      .optional()
      .describe("Language to write the program in. Leave out to use the one the task names (\"a Python program\"), else the tool's default."),
  });
}
