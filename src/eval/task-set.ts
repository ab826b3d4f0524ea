/**
 * Evaluation tasks and the JSONL formats they are read from: our own format and the public
 * HumanEval (Python) and HumanEval-X (JavaScript) sets, converted so that every task carries
 * tests in its own language that throw when the code is wrong.
 */
import { readFile } from "node:fs/promises";
import { LANGUAGES, type Language } from "../sandbox/types.js";
import { InvalidTaskFileError } from "./errors.js";
import { looksLikeMbpp, parseMbppFile } from "./mbpp.js";
import { InvalidOptionError } from "../errors.js";
import { checkOptions, oneOfRule, textRule, type OptionRules } from "../options/index.js";

export type { EvalTask } from "./eval-task.js";
import type { EvalTask } from "./eval-task.js";

/** Formats a task file can be in. `auto` decides per file from the first task's fields. */
export type TaskFileFormat = "tasks" | "humaneval" | "humaneval-x-js" | "mbpp";

/** Every format name `--format` accepts. */
export const TASK_FILE_FORMATS = ["auto", "tasks", "humaneval", "humaneval-x-js", "mbpp"] as const satisfies readonly (TaskFileFormat | "auto")[];

type Row = Record<string, unknown>;

/**
 * Which format a parsed JSONL row is in, or undefined when it matches none.
 *
 * @example
 * ```ts
 * detectTaskFormat({ task_id: "HumanEval/0", prompt: "...", test: "...", entry_point: "f" }); // "humaneval"
 * ```
 */
export function detectTaskFormat(row: Row): TaskFileFormat | undefined {
  if (typeof row.task_id === "string" && typeof row.prompt === "string" && typeof row.test === "string") {
    if (row.task_id.startsWith("JavaScript/")) return "humaneval-x-js";
    if (typeof row.entry_point === "string") return "humaneval";
  }
  if (typeof row.id === "string" && typeof row.task === "string" && typeof row.tests === "string") return "tasks";
  return undefined;
}

/**
 * Shadows `console` inside the HumanEval-X tests with one whose `assert` throws: the set's
 * tests use `console.assert`, which only logs in every JavaScript engine.
 */
const THROWING_ASSERT_PRELUDE = `const console = Object.create(globalThis.console);
console.assert = (condition, ...details) => {
  if (!condition) throw new Error("Assertion failed" + (details.length > 0 ? ": " + details.join(" ") : ""));
};`;

function fromHumanEvalPython(row: Row): EvalTask {
  const prompt = String(row.prompt);
  const entryPoint = String(row.entry_point);
  return {
    id: String(row.task_id),
    language: "python",
    task:
      `Complete the Python function \`${entryPoint}\` below. Write the whole program: the imports it ` +
      `needs and the complete function definition (signature, docstring optional, body). Do not call it.\n\n` +
      "```python\n" + prompt + "```",
    tests: `${String(row.test)}\n\ncheck(${entryPoint})\n`,
    entryPoint,
  };
}

function fromHumanEvalJavaScript(row: Row): EvalTask {
  const prompt = String(row.prompt);
  const name = /const\s+([A-Za-z_$][\w$]*)\s*=/.exec(String(row.declaration ?? prompt))?.[1];
  return {
    id: String(row.task_id),
    language: "javascript",
    task:
      `Complete the JavaScript function${name ? ` \`${name}\`` : ""} below. Write the complete definition ` +
      `(the same declaration with its body), as plain JavaScript without imports or exports. Do not call it.\n\n` +
      "```javascript\n" + prompt + "```",
    // The block keeps the shadowed console (and the test's own names) away from the model's code.
    tests: `{\n${THROWING_ASSERT_PRELUDE}\n${String(row.test)}\n}\n`,
    ...(name ? { entryPoint: name } : {}),
  };
}

function fromOwnFormat(row: Row, problem: (text: string) => never): EvalTask {
  const language = row.language;
  if (typeof language !== "string" || !(LANGUAGES as readonly string[]).includes(language)) {
    problem(`"language" must be one of ${LANGUAGES.join(", ")}, got ${JSON.stringify(language)}`);
  }
  if (row.context !== undefined) problem(`"context" is now "details" (extra information for the model): rename the field`);
  for (const field of ["details", "difficulty", "entryPoint", "hiddenTests"] as const) {
    if (row[field] !== undefined && typeof row[field] !== "string") problem(`"${field}" must be a string when given`);
  }
  const task: EvalTask = {
    id: String(row.id),
    language: language as Language,
    task: String(row.task),
    tests: String(row.tests),
  };
  if (typeof row.details === "string") task.details = row.details;
  if (typeof row.difficulty === "string") task.difficulty = row.difficulty;
  if (typeof row.entryPoint === "string") task.entryPoint = row.entryPoint;
  if (typeof row.hiddenTests === "string" && row.hiddenTests.trim() !== "") task.hiddenTests = row.hiddenTests;
  return task;
}

/** Options of {@link parseTaskFile}. */
export interface ParseTaskFileOptions {
  /** The rows' format. Default `"auto"` (detected from the first row). */
  format?: TaskFileFormat | "auto";
  /** The file's name, for messages. Default `"<input>"`. */
  file?: string;
}

const FORMAT_RULE = oneOfRule(TASK_FILE_FORMATS);
const PARSE_RULES = { format: FORMAT_RULE, file: textRule({ what: "a file name" }) } satisfies OptionRules<ParseTaskFileOptions>;
const LOAD_RULES = { format: FORMAT_RULE } satisfies OptionRules<Pick<ParseTaskFileOptions, "format">>;

/**
 * Parses the text of a JSONL task file. Blank lines are skipped; ids must be unique.
 * Throws {@link InvalidTaskFileError} naming the line for a bad row or a format mismatch.
 *
 * @example
 * ```ts
 * const tasks = parseTaskFile(text, { file: "evals/tasks.jsonl" });
 * ```
 */
export function parseTaskFile(text: string, given: ParseTaskFileOptions = {}): EvalTask[] {
  if (typeof text !== "string") throw new InvalidOptionError("text", text, "the text of a JSONL task file (a string; loadTaskFile(path) reads a file)");
  const options = checkOptions<ParseTaskFileOptions>(given, PARSE_RULES, "parseTaskFile");
  const file = options.file ?? "<input>";
  // MBPP is one JSON array, not JSONL (its test split; see mbpp.ts).
  if (options.format === "mbpp" || ((options.format ?? "auto") === "auto" && looksLikeMbpp(text))) return parseMbppFile(text, { file }).tasks;
  let format: TaskFileFormat | undefined = options.format === "auto" ? undefined : options.format;
  const tasks: EvalTask[] = [];
  const seen = new Set<string>();
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (line === "") continue;
    const problem = (what: string): never => {
      throw new InvalidTaskFileError(file, index + 1, what);
    };
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (error) {
      problem(`not JSON (${(error as Error).message})`);
    }
    if (typeof row !== "object" || row === null || Array.isArray(row)) problem("expected a JSON object");
    const detected = detectTaskFormat(row as Row);
    format ??= detected;
    if (detected === undefined || detected !== format) {
      problem(
        format === undefined || detected === undefined
          ? `not a task: expected {id, language, task, tests} (our format), or a HumanEval / HumanEval-X JavaScript row`
          : `this row looks like "${detected}" but the file is read as "${format}"`,
      );
    }
    const task =
      format === "humaneval"
        ? fromHumanEvalPython(row as Row)
        : format === "humaneval-x-js"
          ? fromHumanEvalJavaScript(row as Row)
          : fromOwnFormat(row as Row, problem);
    if (seen.has(task.id)) problem(`duplicate task id "${task.id}"`);
    seen.add(task.id);
    tasks.push(task);
  }
  return tasks;
}

/**
 * Reads and parses a JSONL task file (see {@link parseTaskFile}).
 *
 * @example
 * ```ts
 * const tasks = await loadTaskFile("evals/tasks.jsonl");
 * ```
 */
export async function loadTaskFile(path: string, given: Pick<ParseTaskFileOptions, "format"> = {}): Promise<EvalTask[]> {
  textRule({ what: "the path of a JSONL task file" }).check(path, "path");
  const options = checkOptions<Pick<ParseTaskFileOptions, "format">>(given, LOAD_RULES, "loadTaskFile");
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "there is no such file" : code === "EISDIR" ? "it is a directory" : (error as Error).message;
    throw new InvalidOptionError("path", path, `the path of a JSONL task file (${why})`);
  }
  return parseTaskFile(text, { ...options, file: path });
}
