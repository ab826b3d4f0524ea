/**
 * Everything a model reads about code mode, made in one place: the code tool's description, the
 * system-prompt section of the middleware, the signatures of the tools callable from code (for
 * the code tool, the middleware and the code-generation graph), and the text of a cell's outcome.
 */
import { sandboxLimits } from "../../feedback/sandbox-limits.js";
import type { ExecutionResult, Language } from "../../sandbox/types.js";
import { formatExecutionForModel } from "../../feedback/tool-text.js";
import { truncate } from "../../feedback/truncate.js";
import type { CellOutcome, Persistence } from "../replay/runner.js";
import { pythonSignatures, typeScriptSignatures, toolInputJsonSchema } from "../tools/signatures.js";
import { INTERRUPT_ERROR, NOT_AVAILABLE_ERROR, RESULT_LIMIT_ERROR } from "../tools/tool-errors.js";
import type { CodeModeTool } from "../tools/tool-types.js";

/**
 * The tool description for `languages`: how to get output back and what is not there.
 *
 * @example
 * ```ts
 * describeCodeInterpreter(["python"], []); // "Run a program in an isolated sandbox ... Languages: python. ..."
 * ```
 */
export function describeCodeInterpreter(
  languages: Language[],
  hostFunctionNames: string[],
  mode: { persistence?: Persistence; toolSignatures?: string; files?: boolean } = {},
): string {
  const lines = [
    `Run a program in an isolated sandbox and get back its status, printed output, result and any error (with the failing line). Languages: ${languages.join(", ")}.`,
    "How to get output back: print it (console.log in JavaScript/TypeScript, print in Python); the value of the last expression is returned as the result (in a JavaScript module, the awaited `export default`).",
  ];
  if (mode.persistence === "thread") {
    lines.push(
      "State: top-level functions, variables, classes (and Python imports) you define stay defined for your next calls in this conversation, per language; reuse them instead of repeating code. A program that fails with an error keeps what it did before the error; one stopped by a limit (time, memory, output) leaves the state as it was before it.",
    );
  } else {
    lines.push("Each call starts fresh: nothing is kept between calls, so include everything the program needs.");
  }
  if (mode.files !== false) {
    lines.push(
      "Files: a private virtual file system with absolute paths like /notes.txt" +
        (mode.persistence === "thread" ? ", kept across calls (except /tmp, which is scratch space)" : "") +
        ". JavaScript/TypeScript: files.read(path), files.readBytes(path), files.write(path, data), files.list(), files.exists(path), files.delete(path). Python: open('/notes.txt'), os.listdir('/'), pathlib (the working directory is /).",
    );
  }
  lines.push(sandboxLimits(languages));
  if (hostFunctionNames.length > 0) {
    lines.push(`Host functions you can call from JavaScript/TypeScript with await: ${hostFunctionNames.join(", ")}.`);
  }
  if (mode.toolSignatures) {
    lines.push(`Tools you can call from code (always with await; they run outside the sandbox):\n${mode.toolSignatures}`);
  }
  lines.push("If the run fails, read the error, fix the code and call the tool again.");
  return lines.join("\n");
}

/**
 * Signatures of `tools` for `languages`, as the model reads them: TypeScript declarations for
 * JavaScript/TypeScript, Python signatures for Python.
 *
 * @example
 * ```ts
 * const text = await codeModeToolSignatures([getWeather], ["javascript", "python"]);
 * // interface GetWeatherInput { city: string } ... class tools: async def get_weather(*, city: str) -> Any
 * ```
 */
export async function codeModeToolSignatures(tools: readonly CodeModeTool[], languages: readonly Language[]): Promise<string> {
  const parts: string[] = [];
  if (languages.some((l) => l !== "python")) parts.push(`// JavaScript/TypeScript\n${await typeScriptSignatures(tools)}`);
  if (languages.includes("python")) parts.push(`# Python\n${pythonSignatures(tools)}`);
  return parts.join("\n");
}

/** Signatures readable without waiting: a JSON Schema per tool (replaced by TypeScript declarations once generated). */
export function quickSignatures(tools: readonly CodeModeTool[], languages: Language[]): string {
  const parts: string[] = [];
  if (languages.some((l) => l !== "python")) {
    for (const t of tools) {
      parts.push(`// tools.${t.name}(input): Promise<unknown> — ${(t.description ?? "").replace(/\s+/g, " ").trim()}\n// input JSON Schema: ${JSON.stringify(toolInputJsonSchema(t))}`);
    }
  }
  if (languages.includes("python")) parts.push(`# Python\n${pythonSignatures(tools)}`);
  return parts.join("\n");
}


/**
 * The system-prompt section of code mode for `languages`, with the tool signatures.
 *
 * @example
 * ```ts
 * codeModePromptSection(["javascript"], "declare const tools: { ... }", "thread");
 * ```
 */
export function codeModePromptSection(
  languages: readonly string[],
  signatures: string | undefined,
  persistence: Persistence,
  toolName: string,
  extra: { subagents?: boolean } = {},
): string {
  const lines = [
    "## Code mode",
    `You work by writing programs and running them with the \`${toolName}\` tool (${languages.join(", ")}). Prefer one program that does a whole task — loops over items, calls several tools, combines their results — to many separate tool calls: intermediate results stay in the sandbox instead of the conversation. Print only what you need to see.`,
  ];
  if (signatures) {
    lines.push(
      "Tools callable from code (always `await` them; JavaScript/TypeScript take one input object, Python takes keyword arguments; a bad input or a failing tool raises an exception you can catch):",
      "```",
      signatures,
      "```",
    );
    if (extra.subagents) {
      lines.push(
        "`tools.task` (`description`, `subagent_type`) runs a subagent and resolves to its final answer (text): give it the whole task in `description`; run independent tasks at once with `Promise.all` (Python: `asyncio.gather`). A program's time limit includes the time its tools take.",
      );
    }
  }
  if (persistence === "thread") {
    lines.push(
      "State: functions, variables, classes and Python imports defined at the top level of a program stay defined in your later programs in this conversation (per language). Files you write stay too. A program that fails with an error keeps what it did before the error; a program stopped by a limit (time, memory, output) leaves everything as it was before it.",
    );
  }
  lines.push(
    "Files have absolute paths like `/notes.txt` (the same files the file tools see, if you have them): JavaScript/TypeScript use the `files` global (`files.read(path)`, `files.write(path, data)`, `files.list()`, `files.exists(path)`, `files.delete(path)`, `files.readBytes(path)`); Python uses `open('/notes.txt')`, `os.listdir('/')` and `pathlib` (the working directory is `/`). `/tmp` is scratch space and is not kept.",
  );
  return lines.join("\n");
}

/**
 * The prompt text of the code-generation graph for programs that may call `tools` in `language`
 * (`declarations` are the TypeScript signatures, generated once by the caller).
 */
export function toolsPromptSection(language: Language, tools: readonly CodeModeTool[], declarations: () => Promise<string>): Promise<string> | string {
  const how = language === "python" ? "`await tools.<name>(**kwargs)`" : "`await tools.<name>(input)`";
  const text = (signatures: string) =>
    `The program may call these tools with ${how} (they run outside the sandbox; a bad input or a failing tool raises an exception):\n${signatures}`;
  return language === "python" ? text(pythonSignatures(tools)) : declarations().then(text);
}

/** The code tool's description inside the middleware: the signatures are in the system prompt once, so the tool points there. */
export function middlewareToolDescription(languages: Language[], hostFunctionNames: string[], persistence: Persistence, hasTools: boolean): string {
  return (
    describeCodeInterpreter(languages, hostFunctionNames, { persistence }) +
    (hasTools ? "\nThe tools callable from code and their signatures are listed in the system prompt (Code mode)." : "")
  );
}

/** What to try after one of code mode's own refusals (the line is not where the cause is). */
function refusalHint(errorName: string | undefined): string | undefined {
  switch (errorName) {
    case INTERRUPT_ERROR:
      return "Call that tool as a normal tool call, outside code; code cannot wait for a human's answer.";
    case RESULT_LIMIT_ERROR:
      return "Ask the tool for less (a page, a filter, a summary), or split the work over several programs.";
    case NOT_AVAILABLE_ERROR:
      return "Use only the tools listed as callable from code.";
    default:
      return undefined;
  }
}

/** Names of at most 10 paths (each cut at 120 characters), then how many more. */
function pathList(paths: readonly string[]): string {
  const shown = paths.slice(0, 10).map((p) => truncate(p, 120));
  return paths.length > 10 ? `${shown.join(", ")} and ${paths.length - 10} more` : shown.join(", ");
}

/** The code tool's answer for a cell: the run as the model reads it, then notes on restore, state and files. */
export function outcomeText(outcome: CellOutcome, code: string, maxChars: number, persistence: Persistence = "thread"): string {
  const notes: string[] = [];
  if (outcome.restore && outcome.restore.failures.length > 0) {
    notes.push(
      `restore: this thread's session was rebuilt by replaying ${outcome.restore.replayed} earlier cell(s)${outcome.restore.fromSnapshot ? ` after a snapshot of the ${outcome.restore.fromSnapshot} before them` : ""}; ${outcome.restore.failures.length} did not replay as they first ran, so what they did may be missing or different:\n` +
        outcome.restore.failures.slice(0, 5).map((f) => `  - ${truncate(f, 300)}`).join("\n") +
        (outcome.restore.failures.length > 5 ? `\n  - ... and ${outcome.restore.failures.length - 5} more` : "") +
        "\n  Define again what you still need.",
    );
  }
  if (outcome.rolledBack !== undefined) {
    notes.push(`state: this program was not kept (${truncate(outcome.rolledBack, 300)}): definitions and files are as they were before it`);
  }
  for (const note of outcome.notes) notes.push(`note: ${note}`);
  const interrupted = [...new Set(outcome.toolCalls.filter((c) => c.error?.name === INTERRUPT_ERROR).map((c) => c.name))];
  for (const name of interrupted) {
    notes.push(`note: tools.${name} asked to pause for a human's answer (a LangGraph interrupt); code cannot wait for one, so it got an ${INTERRUPT_ERROR}: call ${name} as a normal tool call instead`);
  }
  const f = outcome.files;
  const written = [...f.written.keys()].sort();
  const notKept = persistence === "none" ? " (not kept: every call starts fresh)" : "";
  if (written.length > 0) notes.push(`files written${notKept}: ${pathList(written)}`);
  if (f.deleted.length > 0) notes.push(`files deleted${notKept}: ${pathList(f.deleted)}`);
  for (const refused of f.refused.slice(0, 3)) notes.push(`file not saved: ${truncate(refused, 400)}`);
  if (f.refused.length > 3) notes.push(`file not saved: ... and ${f.refused.length - 3} more for the same reasons`);
  const notesText = notes.join("\n");
  const hint = refusalHint(outcome.result.error?.name);
  const body = formatExecutionForModel(outcome.result, code, { maxChars: Math.max(500, maxChars - notesText.length - 1), ...(hint ? { hint } : {}) });
  return notesText ? `${body}\n${notesText}` : body;
}
