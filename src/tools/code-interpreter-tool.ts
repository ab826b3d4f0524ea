/**
 * `execute_code` as a LangChain tool: the code interpreter of code mode (`code-mode/`), wrapped
 * by `tool()`. With `persistence: "thread"` it returns the interpreter's `Command`; otherwise
 * content and artifact.
 */
import { tool, type ToolRuntime } from "@langchain/core/tools";
import {
  codeInterpreterFromOptions,
  createCodeInterpreter,
  registerCodeInterpreterTool,
  type CodeInterpreter,
  type CodeInterpreterToolOptions,
  type CodeToolWiring,
  type ExecuteCodeInput,
} from "../code-mode/index.js";

export {
  codeInterpreterToolReady,
  disposeCodeInterpreterTool,
  codeInterpreterRunner,
  prestartCodeThread,
  type CodeInterpreterToolOptions,
  type ExecuteCodeArtifact,
  type ArtifactFileRef,
} from "../code-mode/index.js";

/**
 * Creates the `execute_code` tool: the model sends `{ code, language }`, the tool runs it with
 * the configured limits and returns bounded text (status, output, result, error with its line and
 * what to try). A failed run is a normal tool result; arguments that do not match the schema are
 * rejected by the schema.
 *
 * - `persistence: "none"` (default): returns `[content, { code, language, result, ... }]`.
 * - `persistence: "thread"`: returns a LangGraph `Command` whose update holds the `ToolMessage`
 *   (same content and artifact), the new replay-log cell (`codeCells`) and the file changes
 *   (`files`). The graph needs those channels (`codeModeMiddleware` adds them); without them the
 *   first call fails with an error that says so.
 *
 * @example
 * ```ts
 * import { createAgent } from "langchain";
 * const agent = createAgent({ model, tools: [createCodeInterpreterTool({ languages: ["javascript"], tools: [getWeather] })] });
 * await agent.invoke({ messages: [{ role: "user", content: "Weather in Paris and Rome?" }] });
 * ```
 */
export function createCodeInterpreterTool(given: CodeInterpreterToolOptions = {}) {
  return toolOf(codeInterpreterFromOptions(given));
}

/** `createCodeInterpreterTool` with its options already checked and its tools given as specs (the middleware's way in). */
export function buildCodeInterpreterTool(options: Omit<CodeInterpreterToolOptions, "tools">, wiring: CodeToolWiring) {
  return toolOf(createCodeInterpreter(options, wiring));
}

function toolOf(interpreter: CodeInterpreter) {
  const fields = { name: interpreter.name, description: interpreter.description, schema: interpreter.schema };
  const made =
    interpreter.persistence === "thread"
      ? tool((input: ExecuteCodeInput, runtime?: ToolRuntime) => interpreter.callInThread(input, runtime), fields)
      : tool((input: ExecuteCodeInput, runtime?: ToolRuntime) => interpreter.callOnce(input, runtime), { ...fields, responseFormat: "content_and_artifact" as const });
  return registerCodeInterpreterTool(made, interpreter);
}
