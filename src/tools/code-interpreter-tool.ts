/**
 * `execute_code`: a LangChain tool that runs code the calling model wrote in the sandbox.
 */
import { tool } from "@langchain/core/tools";
import { runCode } from "../sandbox/index.js";
import type { ExecutionResult, HostFunction, JsonValue, Language, RunOptions, Sandbox } from "../sandbox/types.js";
import { formatExecutionForModel } from "../feedback/tool-text.js";
import { DEFAULT_MAX_CONTENT_CHARS } from "../feedback/truncate.js";
import { resolveLimit } from "../sandbox/options.js";
import { executeCodeSchemaFor, resolveLanguages, type ExecuteCodeInput } from "./schemas.js";

/** Options of `createCodeInterpreterTool`. Every field is optional. */
export interface CodeInterpreterToolOptions {
  /** Languages the model may use; the schema's enum lists only these. Default: all. */
  languages?: Language[];
  /** Sandbox that runs the code (anything with `run`). Default: the shared sandbox of `runCode`. */
  sandbox?: Pick<Sandbox, "run">;
  /** Wall-clock limit of one run. Default: the sandbox's (5000). */
  timeoutMs?: number;
  /** Memory limit of one run. Default: the sandbox's (64 MiB). */
  memoryLimitBytes?: number;
  /** Output kept per run. Default: the sandbox's (1 MiB). */
  maxOutputBytes?: number;
  /** JSON values the code sees as globals. */
  globals?: Record<string, JsonValue>;
  /** Host functions the code may call with `await name(...)` (JavaScript/TypeScript only). */
  hostFunctions?: Record<string, HostFunction>;
  /** Bound of the text returned to the model, in characters. Default 4000. */
  maxContentChars?: number;
  /** Tool name. Default `"execute_code"`. */
  name?: string;
  /** Replaces the generated tool description. */
  description?: string;
}

/** Artifact of an `execute_code` call: the code that ran and its full result. */
export interface ExecuteCodeArtifact {
  code: string;
  language: Language;
  result: ExecutionResult;
}

/**
 * The tool description for `languages`: how to get output back and what is not there.
 *
 * @example
 * ```ts
 * describeCodeInterpreter(["python"], []); // "Run a program in an isolated sandbox ... Languages: python. ..."
 * ```
 */
export function describeCodeInterpreter(languages: Language[], hostFunctionNames: string[]): string {
  const lines = [
    `Run a program in an isolated sandbox and get back its status, printed output, result and any error (with the failing line). Languages: ${languages.join(", ")}.`,
    "How to get output back: print it (console.log in JavaScript/TypeScript, print in Python); the value of the last expression is returned as the result (in a JavaScript module, the awaited `export default`).",
    "Each call starts fresh: nothing is kept between calls, so include everything the program needs.",
    "Not available: npm or pip packages beyond the standard library, files, network, environment variables, subprocesses, timers (setTimeout), and Node.js APIs such as require or process.",
  ];
  if (hostFunctionNames.length > 0) {
    lines.push(`Host functions you can call from JavaScript/TypeScript with await: ${hostFunctionNames.join(", ")}.`);
  }
  lines.push("If the run fails, read the error, fix the code and call the tool again.");
  return lines.join("\n");
}

function checkPositive(option: string, value: number | undefined): void {
  if (value !== undefined) resolveLimit(option, value);
}

/**
 * Creates the `execute_code` tool: the model sends `{ code, language }`, the tool runs it with
 * the configured limits and returns bounded text (status, output, result, error with its line and
 * what to try) as content and `{ code, language, result }` as the artifact. A failed run is a
 * normal tool result; arguments that do not match the schema are rejected by the schema.
 *
 * @example
 * ```ts
 * import { createAgent } from "langchain";
 * const agent = createAgent({ model, tools: [createCodeInterpreterTool({ languages: ["javascript"], timeoutMs: 2000 })] });
 * await agent.invoke({ messages: [{ role: "user", content: "What is 2**40?" }] });
 * ```
 */
export function createCodeInterpreterTool(options: CodeInterpreterToolOptions = {}) {
  const languages = resolveLanguages(options.languages);
  checkPositive("timeoutMs", options.timeoutMs);
  checkPositive("memoryLimitBytes", options.memoryLimitBytes);
  checkPositive("maxOutputBytes", options.maxOutputBytes);
  checkPositive("maxContentChars", options.maxContentChars);
  const maxContentChars = options.maxContentChars ?? DEFAULT_MAX_CONTENT_CHARS;
  const run = options.sandbox
    ? (code: string, runOptions: RunOptions) => options.sandbox!.run(code, runOptions)
    : runCode;
  const hostFunctions = options.hostFunctions ?? {};
  const schema = executeCodeSchemaFor(languages);

  return tool(
    async (input: ExecuteCodeInput): Promise<[string, ExecuteCodeArtifact]> => {
      const runOptions: RunOptions = { language: input.language };
      if (options.timeoutMs !== undefined) runOptions.timeoutMs = options.timeoutMs;
      if (options.memoryLimitBytes !== undefined) runOptions.memoryLimitBytes = options.memoryLimitBytes;
      if (options.maxOutputBytes !== undefined) runOptions.maxOutputBytes = options.maxOutputBytes;
      if (options.globals !== undefined) runOptions.globals = options.globals;
      // The engine supports host functions for JavaScript/TypeScript only; do not hand them to Python.
      if (input.language !== "python" && Object.keys(hostFunctions).length > 0) runOptions.hostFunctions = hostFunctions;
      const result = await run(input.code, runOptions);
      const content = formatExecutionForModel(result, input.code, { maxChars: maxContentChars });
      return [content, { code: input.code, language: input.language, result }];
    },
    {
      name: options.name ?? "execute_code",
      description: options.description ?? describeCodeInterpreter(languages, Object.keys(hostFunctions)),
      schema,
      responseFormat: "content_and_artifact",
    },
  );
}
