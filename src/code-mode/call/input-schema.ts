/**
 * The argument schema of `execute_code`. The descriptions are read by the calling model: they say
 * what each field is for.
 */
import { z } from "zod";
import { LANGUAGES, type Language } from "../../sandbox/types.js";

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

/** Input of `execute_code`. */
export type ExecuteCodeInput = z.infer<typeof executeCodeSchema>;

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
  return executeCodeSchema.extend({ language: z.enum(languages as [Language, ...Language[]]).describe(LANGUAGE_HELP) });
}
