/**
 * Input and output schemas of the MCP tools. The descriptions are read by the calling model.
 * Every field carries its own error, written as our `InvalidOptionError` messages (the argument,
 * what was sent, what to send), because the SDK checks arguments against these schemas before a
 * tool runs and returns the schema's messages as the `isError` result.
 */
import { unknownOption } from "../options/index.js";
import { z } from "zod";
import { InvalidOptionError } from "../errors.js";
import { truncate } from "../feedback/truncate.js";
import { resolveLanguage } from "../sandbox/options.js";
import { EXECUTION_STATUSES, LANGUAGES, type ExecutionStatus, type Language } from "../sandbox/types.js";

/** The repairs `solve` accepts at most (the graph's `MAX_RETRIES_LIMIT`; a test keeps them equal). */
export const SOLVE_MAX_RETRIES = 20;

/** Unknown arguments named in a refusal; the rest are counted. */
const LISTED_UNKNOWN_KEYS = 3;

interface Issue {
  input?: unknown;
  path?: PropertyKey[];
  code?: string;
  keys?: string[];
}

function optionName(fallback: string, issue: Issue): string {
  return issue.path !== undefined && issue.path.length > 0 ? issue.path.map(String).join(".") : fallback;
}

/** A zod error option whose message is `InvalidOptionError`'s: the argument, what came, what to send. */
function invalid(option: string, expected: string) {
  return { error: (issue: Issue) => new InvalidOptionError(optionName(option, issue), issue.input, expected).message };
}

/** Unknown arguments: named, with the list of the tool's own. */
function unknownArguments(tool: string, shape: Record<string, unknown>) {
  const names = Object.keys(shape).join(", ");
  return {
    error: (issue: Issue) => {
      if (issue.code === "unrecognized_keys" && issue.keys !== undefined) {
        const keys = issue.keys;
        // One unknown key: the package's one message, with the nearest argument's name.
        if (keys.length === 1) return unknownOption(keys[0]!, Object.keys(shape), tool, "", (issue.input as Record<string, unknown> | undefined)?.[keys[0]!]).message;
        // Named by the first few (each cut short) and a count: thousands of keys made a 570 KB text.
        const shown = keys.slice(0, LISTED_UNKNOWN_KEYS).map((key) => truncate(key, 40));
        const listed = keys.length > LISTED_UNKNOWN_KEYS ? `${shown.join(", ")} and ${keys.length - LISTED_UNKNOWN_KEYS} more` : shown.join(", ");
        return new InvalidOptionError(listed, undefined, `only the arguments of ${tool} (${names}); remove them`, { problem: `${tool} has no arguments of these names` }).message;
      }
      return new InvalidOptionError("arguments", issue.input, `an object with the arguments of ${tool} (${names})`).message;
    },
  };
}

function languageMessage(issue: Issue): string {
  try {
    resolveLanguage(issue.input, optionName("language", issue));
    return new InvalidOptionError(optionName("language", issue), issue.input, "a language name").message;
  } catch (error) {
    return (error as InvalidOptionError).message;
  }
}

const LANGUAGE_HELP =
  "javascript or typescript (QuickJS: no Node.js APIs, no npm packages) or python (Pyodide: the standard library plus configured packages).";

const language = z.enum(LANGUAGES as [Language, ...Language[]], { error: languageMessage }).describe(`Language of the code: ${LANGUAGE_HELP}`);

const FILE_CONTENT_EXPECTED = 'a string of UTF-8 text, or { "base64": "..." } (standard base64) for other bytes';
const fileContent = z.union([z.string(), z.strictObject({ base64: z.string() })], invalid("files", FILE_CONTENT_EXPECTED));

/**
 * The first bad file of `input` as one issue, the others counted: checked by the record itself,
 * thousands of bad files made thousands of messages (a 450 KB text for the model).
 */
function firstBadFile(input: object): { path: PropertyKey[]; input: unknown; message: string } | undefined {
  let first: { path: PropertyKey[]; input: unknown; message: string } | undefined;
  let more = 0;
  for (const [path, content] of Object.entries(input)) {
    const checked = fileContent.safeParse(content);
    if (checked.success) continue;
    if (first !== undefined) {
      more++;
      continue;
    }
    const issue = checked.error.issues[0]!;
    // Neither branch fitted: our message, naming the file. Else the `{ base64 }` branch's own issue.
    first =
      issue.code === "invalid_union"
        ? { path: [path], input: content, message: new InvalidOptionError(`files.${path}`, content, FILE_CONTENT_EXPECTED).message }
        : { path: [path, ...issue.path], input: content, message: issue.message };
  }
  if (first !== undefined && more > 0) first.message += ` (and ${more} more files like it)`;
  return first;
}

// zod's record drops a "__proto__" key without a word; refuse it instead, so no file goes missing.
// An issue raised here stops the check, so the record adds none of its own.
const files = z
  .preprocess(
    (input, ctx) => {
      if (input === null || typeof input !== "object" || Array.isArray(input)) return input;
      if (Object.hasOwn(input, "__proto__")) {
        ctx.addIssue({ code: "custom", input, message: new InvalidOptionError("files.__proto__", "__proto__", "another file name (a JSON object key named __proto__ is dropped by the argument check); rename the file").message });
        return input;
      }
      const bad = firstBadFile(input);
      if (bad !== undefined) ctx.addIssue({ code: "custom", ...bad });
      return input;
    },
    z.record(z.string(), fileContent, invalid("files", 'an object mapping relative paths to text or { "base64": "..." }')),
  )
  .describe(
    'Files the program can read and write, as { "relative/path": content }. Content is a string of UTF-8 text, or { "base64": "..." } for other bytes. JavaScript/TypeScript read and write them through the `files` global (files.read(path), files.readBytes(path), files.write(path, data), files.list(), files.exists(path), files.delete(path)); Python through open(), os and pathlib in the working directory. The result lists the files the run created or changed. Nothing touches a real disk.',
  );

const code = z
  .string(invalid("code", "the program's source code as a string"))
  .min(1, invalid("code", "a non-empty program"));

const sessionHandle = z.string(invalid("session", 'a handle returned by open_session (it looks like "s-…-…")'));

/**
 * The argument schemas, built for one server (the largest `timeoutMs` a call may ask for is the
 * server's own limit).
 *
 * @example
 * ```ts
 * const schemas = toolInputSchemas({ timeoutMs: 5000 });
 * schemas.runCode.safeParse({ language: "ruby", code: "1" }).success; // false
 * ```
 */
export function toolInputSchemas(limits: { timeoutMs: number }) {
  const timeoutExpected = `a number of milliseconds greater than 0 and at most ${limits.timeoutMs} (this server's limit)`;
  const runCodeShape = {
    language,
    code: code.describe(
      "Complete program to run. Print what you want to see (console.log in JavaScript/TypeScript, print in Python); the value of the last expression is returned as the result (in a JavaScript module, the awaited `export default`).",
    ),
    timeoutMs: z
      .number(invalid("timeoutMs", timeoutExpected))
      .positive(invalid("timeoutMs", timeoutExpected))
      .max(limits.timeoutMs, invalid("timeoutMs", timeoutExpected))
      .optional()
      .describe(`Time limit of this run in milliseconds; at most ${limits.timeoutMs}, which is also the default.`),
    files: files.optional(),
    session: sessionHandle
      .optional()
      .describe("A handle from open_session: the code runs in that session, where earlier definitions are still defined. Leave out to run in a fresh context."),
  };
  const checkCodeShape = {
    language,
    code: code.describe("The program to check for syntax errors, imports the sandbox does not provide and (TypeScript) type errors, without running it."),
  };
  const solveShape = {
    task: z
      .string(invalid("task", "the task in words, as a string"))
      .min(1, invalid("task", "a non-empty task"))
      .describe("The problem to solve by writing and running a program, stated completely (inputs, the expected form of the answer)."),
    language: language.optional().describe(`Language of the program (default: the one the task names, as in "a Python program", else javascript): ${LANGUAGE_HELP}`),
    details: z
      .string(invalid("details", "a string of extra facts"))
      .optional()
      .describe("Extra facts the program needs: data, constraints, definitions. Leave out when the task says it all."),
    tests: z
      .string(invalid("tests", "test code in the task's language, as a string"))
      .optional()
      .describe("Test code in the same language, run after the program in its scope; it must raise (throw, assert) when the program is wrong."),
    maxRetries: z
      .number(invalid("maxRetries", `a whole number of repairs from 0 to ${SOLVE_MAX_RETRIES}`))
      .int(invalid("maxRetries", `a whole number of repairs from 0 to ${SOLVE_MAX_RETRIES}`))
      .min(0, invalid("maxRetries", `a whole number of repairs from 0 to ${SOLVE_MAX_RETRIES}`))
      .max(SOLVE_MAX_RETRIES, invalid("maxRetries", `a whole number of repairs from 0 to ${SOLVE_MAX_RETRIES}`))
      .optional()
      .describe("Repairs allowed after the first attempt (default 2)."),
  };
  const openSessionShape = { language: language.describe(`Language of the session: ${LANGUAGE_HELP} A session runs one language.`) };
  const closeSessionShape = { session: sessionHandle.describe("The handle open_session returned.") };
  return {
    runCode: z.strictObject(runCodeShape, unknownArguments("run_code", runCodeShape)),
    checkCode: z.strictObject(checkCodeShape, unknownArguments("check_code", checkCodeShape)),
    solve: z.strictObject(solveShape, unknownArguments("solve", solveShape)),
    openSession: z.strictObject(openSessionShape, unknownArguments("open_session", openSessionShape)),
    closeSession: z.strictObject(closeSessionShape, unknownArguments("close_session", closeSessionShape)),
  };
}

/** Arguments of `run_code` after validation. */
export type RunCodeArgs = z.infer<ReturnType<typeof toolInputSchemas>["runCode"]>;
/** Arguments of `check_code` after validation. */
export type CheckCodeArgs = z.infer<ReturnType<typeof toolInputSchemas>["checkCode"]>;
/** Arguments of `solve` after validation. */
export type SolveArgs = z.infer<ReturnType<typeof toolInputSchemas>["solve"]>;

const executionError = z.object({
  name: z.string(),
  message: z.string(),
  line: z.number().optional(),
  column: z.number().optional(),
  stack: z.string().optional(),
});

const executionResultShape = {
  status: z.enum(EXECUTION_STATUSES as [ExecutionStatus, ...ExecutionStatus[]]),
  stdout: z.string(),
  stderr: z.string(),
  outputTruncated: z.boolean(),
  result: z.unknown().optional().describe("The JSON value of the program's last expression (or export default)."),
  error: executionError.optional(),
  durationMs: z.number(),
  language: z.enum(LANGUAGES as [Language, ...Language[]]),
  hostCalls: z.number().optional(),
};

/** `structuredContent` of `run_code`: the run's `ExecutionResult`, its files as JSON, and the session. */
export const runCodeOutput = z.object({
  ...executionResultShape,
  files: z
    .record(z.string(), z.union([z.string(), z.object({ base64: z.string() })]))
    .optional()
    .describe("Files the run created or changed: UTF-8 text as a string, other bytes as { base64 }. Present when the call sent files."),
  deletedFiles: z.array(z.string()).optional().describe("Paths of given files the run deleted."),
  session: z.string().optional(),
});

/** `structuredContent` of `check_code`. */
export const checkCodeOutput = z.object({
  ok: z.boolean(),
  language: z.enum(LANGUAGES as [Language, ...Language[]]),
  status: z.enum(["syntax_error", "forbidden", "type_error"]).optional(),
  diagnostics: z.array(
    z.object({
      message: z.string(),
      line: z.number().optional(),
      column: z.number().optional(),
      name: z.string().optional().describe("Error class, e.g. SyntaxError."),
      code: z.number().optional().describe("TypeScript error number, e.g. 2322."),
    }),
  ),
});

/** `structuredContent` of `solve`: the graph's final status, program, last run and attempts. */
export const solveOutput = z.object({
  status: z.enum(["success", "failed", "rejected"]),
  language: z.enum(LANGUAGES as [Language, ...Language[]]).optional(),
  code: z.string().optional(),
  run: z.object(executionResultShape).optional().describe("The last run of the program."),
  attempts: z.array(
    z.object({
      number: z.number(),
      phase: z.string(),
      status: z.string(),
      error: z.string().optional(),
      stdout: z.string(),
      durationMs: z.number(),
      inputTokens: z.number(),
      outputTokens: z.number(),
      code: z.string(),
    }),
  ),
  explanation: z.string().optional(),
});

/** `structuredContent` of `open_session`. */
export const openSessionOutput = z.object({
  session: z.string().describe("Pass it as `session` to run_code."),
  language: z.enum(LANGUAGES as [Language, ...Language[]]),
  idleTimeoutMs: z.number().describe("The session is closed after this long without use."),
});

/** `structuredContent` of `close_session`. */
export const closeSessionOutput = z.object({ session: z.string(), closed: z.boolean() });
