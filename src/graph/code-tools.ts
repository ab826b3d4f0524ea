/**
 * What the graph needs of code mode, and the one place it gets it: tools the generated program
 * may call (`createCodeGenGraph({ tools })`). The graph owns this interface; code mode's
 * `codeToolsHook` implements it (checked where it is bound below), and no other module of the
 * graph imports code mode.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { ExecutionResult, Language, RunOptions, Sandbox } from "../sandbox/types.js";
import { codeToolsHook } from "../code-mode/index.js";

/** A LangChain tool the generated program may call: anything made with `tool()` or a `StructuredTool`. */
export type GraphTool = Pick<StructuredToolInterface, "name" | "description" | "schema" | "invoke">;

/** What the graph's nodes need to let generated programs call tools. */
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

/** The hook for the `tools` option, or `undefined` when there are none. Throws `InvalidOptionError` for bad tools. */
export function graphCodeTools(tools: readonly GraphTool[] | undefined): CodeToolsHook | undefined {
  return codeToolsHook(tools, "tools");
}
