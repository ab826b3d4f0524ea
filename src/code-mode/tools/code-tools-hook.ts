/**
 * Tools callable from generated code, for one-shot runs outside code mode's own tool (the
 * code-generation graph's execute node, `solve_with_code`): the prompt text with the signatures,
 * and a run that gives the program its `tools` namespace. The code-generation graph owns the
 * interface this implements (`graph/code-tools.ts`); code mode does not import the graph.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import type { ExecutionResult, Language, RunOptions, Sandbox } from "../../sandbox/types.js";
import { toolsPromptSection } from "../call/describe.js";
import { typeScriptSignatures } from "./signatures.js";
import { indexTools, runWithTools, toolHostFunctions, type CodeModeTool } from "./tool-bridge.js";

/**
 * A hook for `tools`, or `undefined` when there are none. Throws `InvalidOptionError` for bad tools.
 *
 * @example
 * ```ts
 * const hook = codeToolsHook([getWeather], "tools");
 * const result = await hook!.run(sandbox, "await tools.get_weather({ city: 'Oslo' })", { language: "javascript" });
 * ```
 */
export function codeToolsHook(tools: readonly CodeModeTool[] | undefined, option = "tools") {
  const byName = indexTools(tools, option);
  if (byName.size === 0) return undefined;
  const list = [...byName.values()];
  const names = [...byName.keys()];
  let declarations: Promise<string> | undefined;
  return {
    async promptSection(language: Language): Promise<string> {
      return toolsPromptSection(language, list, () => (declarations ??= typeScriptSignatures(list)));
    },
    async typeDeclarations(): Promise<string> {
      return (await (declarations ??= typeScriptSignatures(list))).replace(/\): Promise<unknown>;/g, "): Promise<any>;");
    },
    async run(runner: Pick<Sandbox, "run">, code: string, options: RunOptions & { language: Language }, config?: RunnableConfig): Promise<ExecutionResult> {
      const hostFunctions = { ...options.hostFunctions, ...toolHostFunctions(byName, { config, record: [], commands: "refuse" }) };
      return runWithTools(runner, code, names, { ...options, hostFunctions });
    },
  };
}
