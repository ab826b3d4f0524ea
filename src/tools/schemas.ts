/**
 * Argument schemas of the tools. The descriptions are read by the calling model: they say what
 * each field is for and when to use it.
 */
import { z } from "zod";
import { InvalidOptionError } from "../errors.js";
import { resolveLanguage } from "../sandbox/options.js";
import { LANGUAGES, type Language } from "../sandbox/types.js";

const LANGUAGE_HELP =
  "Language of the code. javascript and typescript run in QuickJS (no Node.js APIs); python runs in Pyodide (the standard library plus configured packages).";

/** Arguments of `execute_code` with every language allowed. */
export const executeCodeSchema = z.object({
  code: z
    .string()
    .min(1)
    .describe(
      "Complete, self-contained program to run. Print what you want to see (console.log / print); the value of the last expression is also returned.",
    ),
  language: z.enum(LANGUAGES as [Language, ...Language[]]).describe(LANGUAGE_HELP),
});

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
  context: z
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

/** Input of `execute_code`. */
export type ExecuteCodeInput = z.infer<typeof executeCodeSchema>;
/** Input of `solve_with_code`. */
export type SolveWithCodeInput = z.infer<typeof solveWithCodeSchema>;

/**
 * Checks an allowed-languages option and returns it without duplicates, in the stable order of
 * `LANGUAGES`. Throws `InvalidOptionError` for an empty list or an unknown language.
 *
 * @example
 * ```ts
 * resolveLanguages(["python", "javascript"]); // ["javascript", "python"]
 * ```
 */
export function resolveLanguages(languages: readonly Language[] | undefined, option = "languages"): Language[] {
  if (languages === undefined) return [...LANGUAGES];
  const expected = `a non-empty array of ${LANGUAGES.map((l) => `"${l}"`).join(", ")}`;
  if (!Array.isArray(languages) || languages.length === 0) throw new InvalidOptionError(option, languages, expected);
  const chosen = languages.map((language, i) => resolveLanguage(language, `${option}[${i}]`));
  return LANGUAGES.filter((language) => chosen.includes(language));
}

function languageEnum(languages: Language[]) {
  return z.enum(languages as [Language, ...Language[]]);
}

/**
 * The `execute_code` schema restricted to `languages`; the module-level schema itself when every
 * language is allowed.
 *
 * @example
 * ```ts
 * executeCodeSchemaFor(["python"]).parse({ code: "print(1)", language: "javascript" }); // throws
 * ```
 */
export function executeCodeSchemaFor(languages: Language[]) {
  if (languages.length === LANGUAGES.length) return executeCodeSchema;
  return executeCodeSchema.extend({ language: languageEnum(languages).describe(LANGUAGE_HELP) });
}

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
    language: languageEnum(languages)
      .optional()
      .describe("Language to write the program in. Leave out to use the one the task names (\"a Python program\"), else the tool's default."),
  });
}
