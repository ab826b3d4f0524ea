/**
 * Tools callable from generated code, for one-shot runs outside code mode's own tool (the
 * code-generation graph's execute node, `solve_with_code`): the prompt text with the signatures,
 * and a run that gives the program its `tools` namespace.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import type { ExecutionResult, Language, RunOptions, Sandbox } from "../../sandbox/types.js";
import { toolsPromptSection } from "../call/describe.js";
import { typeScriptSignatures } from "./signatures.js";
import { indexTools, runWithTools, toolHostFunctions, type CodeModeTool } from "./tool-bridge.js";

/** What the graph needs to let generated programs call tools. */
export interface CodeToolsHook {
  /** Prompt text: the callable tools and their signatures in `language`. */
  promptSection(language: Language): Promise<string>;
  /**
   * TypeScript declarations of `tools` for the type check before a run (results typed `any`:
   * a tool's output has no declared type, and `unknown` would fail every use of it).
   */
  typeDeclarations(): Promise<string>;
  /** Runs `code` with `tools` defined; line numbers stay the program's. */
  run(runner: Pick<Sandbox, "run">, code: string, options: RunOptions & { language: Language }, config?: RunnableConfig): Promise<ExecutionResult>;
}

/**
 * A hook for `tools`, or `undefined` when there are none. Throws `InvalidOptionError` for bad tools.
 *
 * @example
 * ```ts
 * const hook = codeToolsHook([getWeather], "tools");
 * const result = await hook!.run(sandbox, "await tools.get_weather({ city: 'Oslo' })", { language: "javascript" });
 * ```
 */
export function codeToolsHook(tools: readonly CodeModeTool[] | undefined, option = "tools"): CodeToolsHook | undefined {
  const byName = indexTools(tools, option);
  if (byName.size === 0) return undefined;
  const list = [...byName.values()];
  const names = [...byName.keys()];
  let declarations: Promise<string> | undefined;
  return {
    async promptSection(language) {
      return toolsPromptSection(language, list, () => (declarations ??= typeScriptSignatures(list)));
    },
    async typeDeclarations() {
      return (await (declarations ??= typeScriptSignatures(list))).replace(/\): Promise<unknown>;/g, "): Promise<any>;");
    },
    async run(runner, code, options, config) {
      const hostFunctions = { ...options.hostFunctions, ...toolHostFunctions(byName, { config, record: [], commands: "refuse" }) };
      return runWithTools(runner, code, names, { ...options, hostFunctions });
    },
  };
}
