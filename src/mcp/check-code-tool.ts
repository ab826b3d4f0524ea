/**
 * `check_code`: syntax, imports and (TypeScript) types, without running anything. The text is the
 * graph's own explanation of a failed check; the diagnostics carry their lines.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { explainCheck, type FailedValidation } from "../feedback/explain.js";
import { truncate } from "../feedback/truncate.js";
import type { CheckCodeArgs } from "./schemas.js";
import { errorResult, textResult, type ToolContext } from "./tool-context.js";

/** Runs one `check_code` call. */
export async function checkCodeTool(context: ToolContext, args: CheckCodeArgs, signal: AbortSignal): Promise<CallToolResult> {
  const outcome = await context.limiter.run(signal, async (): Promise<FailedValidation | undefined> => {
    const check = await context.sandbox.check(args.code, { language: args.language });
    if (!check.ok) return check;
    if (args.language !== "typescript") return undefined;
    // The compiler loads on the first TypeScript check only (it is large).
    const { checkTypes } = await import("../typecheck/check-types.js");
    const types = await checkTypes(args.code, { files: true });
    return types.ok ? undefined : { ok: false, language: "typescript", status: "type_error", diagnostics: types.diagnostics };
  });
  if (!outcome.ok) return errorResult(outcome.message);
  const failed = outcome.value;
  if (failed === undefined) {
    const what = args.language === "typescript" ? "parses, type-checks and imports" : "parses and imports";
    return textResult(`ok: the ${args.language} code ${what} nothing the sandbox lacks. Run it with run_code.`, { ok: true, language: args.language, diagnostics: [] });
  }
  const diagnostics =
    failed.status === "type_error"
      ? failed.diagnostics.map((d) => ({ message: d.message, line: d.line, column: d.column, code: d.code }))
      : [
          {
            message: failed.error.message,
            name: failed.error.name,
            ...(failed.error.line === undefined ? {} : { line: failed.error.line }),
            ...(failed.error.column === undefined ? {} : { column: failed.error.column }),
          },
        ];
  const text = truncate(`${failed.status}: ${explainCheck(failed, args.code)}`, context.options.maxContentChars);
  return textResult(text, { ok: false, language: args.language, status: failed.status, diagnostics });
}
