/**
 * `codeModeMiddleware`: turns a LangChain v1 agent into a code-mode agent. It adds the code
 * tool, a system-prompt section with the signatures of the tools callable from code and how
 * state and files work, and the state channels (`codeCells`, and `files` unless the files live
 * in a deepagents `backend`) that keep a thread's definitions and files in its checkpoint.
 * Inside `createDeepAgent` the `files` channel is deepagents' own (the same data): code and
 * the file tools share the thread's files.
 */
import { createMiddleware } from "langchain";
import { SystemMessage } from "@langchain/core/messages";
import { StateSchema } from "@langchain/langgraph";
import { codeModePromptSection, codeModeToolSignatures, middlewareToolDescription } from "../code-mode/describe.js";
import { CODE_INTERPRETER_OPTION_RULES, createCodeInterpreterTool, type CodeInterpreterToolOptions } from "./code-interpreter-tool.js";
import { checkOptions, type OptionRules } from "../options/index.js";
import { resolveLanguages } from "./schemas.js";
import { codeModeStateFields } from "../code-mode/state.js";

/** Options of `codeModeMiddleware`: those of `createCodeInterpreterTool`, with `"thread"` persistence by default. */
export type CodeModeMiddlewareOptions = Omit<CodeInterpreterToolOptions, "description">;

/**
 * A LangChain v1 agent middleware for code mode: the agent gets an `execute_code` tool whose
 * programs can call `tools`, keep their definitions and files across calls of the same thread
 * (saved in the checkpoint, so the thread continues in another process), and a system-prompt
 * section that shows the tool signatures.
 *
 * @example
 * ```ts
 * import { createAgent } from "langchain";
 * import { MemorySaver } from "@langchain/langgraph";
 * const agent = createAgent({ model, middleware: [codeModeMiddleware({ tools: [getWeather] })], checkpointer: new MemorySaver() });
 * await agent.invoke({ messages: [{ role: "user", content: "Weather in 10 cities?" }] }, { configurable: { thread_id: "t1" } });
 * ```
 */
export function codeModeMiddleware(given: CodeModeMiddlewareOptions = {}) {
  const { description: _description, ...rules } = CODE_INTERPRETER_OPTION_RULES;
  const options = checkOptions<CodeModeMiddlewareOptions>(given, rules satisfies OptionRules<CodeModeMiddlewareOptions>, "codeModeMiddleware");
  const persistence = options.persistence ?? "thread";
  const languages = resolveLanguages(options.languages);
  const toolName = options.name ?? "execute_code";
  const hostFunctionNames = Object.keys(options.hostFunctions ?? {});
  const callable = options.tools ?? [];
  const codeTool = createCodeInterpreterTool(
    {
      ...options,
      persistence,
      description: middlewareToolDescription(languages, hostFunctionNames, persistence, callable.length > 0),
    },
    "codeModeMiddleware",
  );
  let section: Promise<string> | undefined;
  const promptSection = () =>
    (section ??= (callable.length > 0 ? codeModeToolSignatures(callable, languages) : Promise.resolve(undefined)).then((signatures) =>
      codeModePromptSection(languages, signatures, persistence, toolName),
    ));

  // With a backend the files are the backend's: no channel of ours holds them.
  const fields = (options.backend !== undefined ? { codeCells: codeModeStateFields.codeCells } : codeModeStateFields) as typeof codeModeStateFields;
  return createMiddleware({
    name: "CodeModeMiddleware",
    stateSchema: new StateSchema(fields),
    tools: [codeTool],
    wrapModelCall: async (request, handler) => {
      const text = await promptSection();
      const base = request.systemMessage;
      // A text-only system prompt stays one plain string (some providers accept nothing else).
      const textOnly = typeof base.content === "string" || base.content.every((block) => block.type === "text");
      const systemMessage = textOnly
        ? new SystemMessage(base.text.length > 0 ? `${base.text}\n\n${text}` : text)
        : base.concat(`\n\n${text}`);
      return handler({ ...request, systemMessage });
    },
  });
}
