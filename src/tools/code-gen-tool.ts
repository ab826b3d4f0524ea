/**
 * `solve_with_code`: a LangChain tool that hands a task to the whole code-generation graph
 * (generate → validate → execute → refine) and returns the final program and what it printed.
 */
import { tool, type ToolRunnableConfig } from "@langchain/core/tools";
import { createCodeGenGraph, restoreRunResult, type CodeGenGraphOptions, type StoredRunResult } from "../graph/index.js";
import { inferLanguage } from "../graph/shared.js";
import { GRAPH_OPTION_RULES } from "../graph/shared-nodes.js";
import type { Language } from "../sandbox/types.js";
import { InvalidOptionError } from "../errors.js";
import { formatExecutionForModel } from "../feedback/tool-text.js";
import { DEFAULT_MAX_CONTENT_CHARS, MAX_CONTENT_CHARS_RULE, truncate as truncateText } from "../feedback/truncate.js";
import { arrayRule, booleanRule, checkOptions, objectRule, oneOfRule, textRule, TOOL_NAME_RULE, type OptionRules } from "../options/index.js";
import { LANGUAGES } from "../sandbox/types.js";
import { solveWithCodeSchemaFor, type SolveWithCodeInput } from "./schemas.js";
import { resolveLanguages } from "../sandbox/options.js";

/** What the tool sends to the graph. */
export interface CodeGenGraphInput {
  task: string;
  language?: Language;
  details?: string;
  tests?: string;
}

/** The part of the graph's final state the tool reads. Other fields are kept in the artifact. */
export interface CodeGenGraphOutput {
  code?: string;
  /** The last run, as the graph stores it (`runResultValue(result)` gives the program's value). */
  result?: StoredRunResult;
  status?: string;
  attempts?: unknown[];
  explanation?: string;
  [key: string]: unknown;
}

/** Anything that runs the code-generation loop: the compiled graph of `createCodeGenGraph`. */
export interface CodeGenRunnable {
  invoke(input: CodeGenGraphInput, config?: ToolRunnableConfig): Promise<CodeGenGraphOutput>;
}

/**
 * Options of `createCodeGenTool`. Give `graph`, or the graph options (model, maxRetries,
 * sandbox, limits, prompts, ...) to build one on first use.
 */
// No checkpointer or approval pause: the graph runs inside one tool call, start to end.
export interface CodeGenToolOptions extends Omit<CodeGenGraphOptions, "checkpointer" | "defaultLanguage" | "approveBeforeExecute"> {
  /** A compiled code-generation graph. When given, the graph options are not used. */
  graph?: CodeGenRunnable;
  /** Languages the model may ask for; the schema's enum lists only these. Default: all. */
  languages?: Language[];
  /** Language used when the model leaves `language` out. Default: the first of `languages` (javascript). */
  defaultLanguage?: Language;
  /** Bound of the text returned to the model, in characters. Default 4000. */
  maxContentChars?: number;
  /** Tool name. Default `"solve_with_code"`. */
  name?: string;
  /** Replaces the tool description. */
  description?: string;
  /**
   * Run the nested graph with the calling run's settings: its `recursionLimit`, and the
   * `model`, `maxRetries`, language and limits in its `context` / `configurable`. Default
   * false: the nested graph uses this tool's own options and its own recursion limit (an
   * agent's `configurable.model` picks the agent's model, not the coder's). Callbacks, the
   * abort signal and streaming are forwarded either way.
   */
  inheritRunSettings?: boolean;
}

const { checkpointer: _c, approveBeforeExecute: _a, ...GRAPH_RULES } = GRAPH_OPTION_RULES;

/** The options of `createCodeGenTool` and their rules (keys from the interface itself). */
export const CODE_GEN_TOOL_OPTION_RULES = {
  ...GRAPH_RULES,
  graph: objectRule("a compiled code-generation graph (an object with invoke)", (v) => typeof v.invoke === "function"),
  languages: arrayRule(oneOfRule(LANGUAGES), { what: "an array of languages", nonEmpty: true }),
  defaultLanguage: oneOfRule(LANGUAGES),
  maxContentChars: MAX_CONTENT_CHARS_RULE,
  name: TOOL_NAME_RULE,
  description: textRule({ what: "a tool description" }),
  inheritRunSettings: booleanRule,
} satisfies OptionRules<CodeGenToolOptions>;

/** The per-run settings of the graph, masked from the caller's run unless `inheritRunSettings`. */
const RUN_SETTING_KEYS = ["model", "maxRetries", "defaultLanguage", "timeoutMs", "memoryLimitBytes", "maxOutputBytes"] as const;

/**
 * The config of the nested graph run: the caller's config (callbacks, signal, streaming keys),
 * without its `recursionLimit` (the graph's own bound then applies), with an empty `context`
 * and with the run settings of `configurable` masked, unless `inheritRunSettings`.
 */
export function nestedRunConfig(config: ToolRunnableConfig, inheritRunSettings: boolean): ToolRunnableConfig {
  if (inheritRunSettings) {
    // The caller's context belongs to its own graph (an agent's); the nested graph takes only its settings from it.
    const context = (config as { context?: unknown }).context;
    if (context === null || typeof context !== "object") return config;
    const picked = Object.fromEntries(RUN_SETTING_KEYS.filter((key) => key in context).map((key) => [key, (context as Record<string, unknown>)[key]]));
    return { ...config, context: picked } as ToolRunnableConfig;
  }
  const { recursionLimit: _limit, ...rest } = config;
  const masked = Object.fromEntries(RUN_SETTING_KEYS.map((key) => [key, undefined]));
  return { ...rest, context: {}, configurable: { ...config.configurable, ...masked } } as ToolRunnableConfig;
}

/** Artifact of a `solve_with_code` call: the graph's whole final state. */
export type SolveWithCodeArtifact = CodeGenGraphOutput;

/**
 * Formats the graph's final state as bounded text for the calling model: status, attempts,
 * final code, output and result, and for a failure the explanation.
 *
 * @example
 * ```ts
 * formatSolutionForModel({ status: "success", code: "console.log(42)", result, attempts: [a] });
 * ```
 */
export function formatSolutionForModel(state: CodeGenGraphOutput, options: { maxChars?: number } = {}): string {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CONTENT_CHARS;
  const code = state.code ?? "";
  const head = [`status: ${state.status ?? "unknown"}`, `attempts: ${state.attempts?.length ?? 0}`];
  if (state.status !== "success" && state.explanation) head.push(`explanation: ${truncateText(state.explanation, 800)}`);
  // The run's record gets half the budget, the code the rest: the model needs both to answer.
  const runBudget = Math.floor((maxChars - head.join("\n").length) / 2);
  const run = state.result ? formatExecutionForModel(restoreRunResult(state.result), code, { maxChars: Math.max(300, runBudget) }) : "no run";
  const language = state.result?.language ?? "";
  const codeBudget = Math.max(200, maxChars - head.join("\n").length - run.length - 40);
  const codeBlock = code ? `final code:\n\`\`\`${language}\n${truncateText(code, codeBudget)}\n\`\`\`` : "no code was produced";
  return truncateText([...head, `run:\n${run}`, codeBlock].join("\n"), maxChars);
}

/**
 * Creates the `solve_with_code` tool: the model sends `{ task, language?, context?, tests? }`,
 * the tool runs the whole code-generation graph (forwarding the caller's callbacks and abort
 * signal, so streaming and tracing reach the nested graph, but with its own model, retries and
 * recursion limit unless `inheritRunSettings`) and returns bounded text as content and the
 * graph's final state as the artifact. A task the graph cannot solve is a normal tool result.
 *
 * @example
 * ```ts
 * const solve = createCodeGenTool({ model: "openai:gpt-4o-mini", languages: ["python"] });
 * const agent = createAgent({ model, tools: [solve] });
 * ```
 */
export function createCodeGenTool(given: CodeGenToolOptions = {}) {
  const options = checkOptions<CodeGenToolOptions>(given, CODE_GEN_TOOL_OPTION_RULES, "createCodeGenTool");
  const languages = resolveLanguages(options.languages);
  const defaultLanguage = options.defaultLanguage ?? languages[0]!;
  if (!languages.includes(defaultLanguage)) {
    throw new InvalidOptionError("defaultLanguage", defaultLanguage, `one of the allowed languages: ${languages.join(", ")}`);
  }
  // Built now so bad graph options throw here; the model itself is resolved when a run needs it.
  const graph: CodeGenRunnable = options.graph ?? buildDefaultGraph(options);
  const schema = solveWithCodeSchemaFor(languages);

  return tool(
    async (input: SolveWithCodeInput, config: ToolRunnableConfig): Promise<[string, SolveWithCodeArtifact]> => {
      // The task's own words choose (among the allowed languages) when the model leaves `language` out.
      const named = inferLanguage(input.task)?.language;
      const language = input.language ?? (named !== undefined && languages.includes(named) ? named : defaultLanguage);
      const graphInput: CodeGenGraphInput = { task: input.task, language };
      if (input.details !== undefined) graphInput.details = input.details;
      if (input.tests !== undefined) graphInput.tests = input.tests;
      const state = await graph.invoke(graphInput, nestedRunConfig(config, options.inheritRunSettings ?? false));
      return [formatSolutionForModel(state, { maxChars: options.maxContentChars }), state];
    },
    {
      name: options.name ?? "solve_with_code",
      description:
        options.description ??
        [
          `Solve a task by having a code-writing assistant write a program, run it in a sandbox and repair it until it works (languages: ${languages.join(", ")}; default: the one the task names, else ${defaultLanguage}).`,
          "Use it for calculations, data transformations and anything that is easier to compute than to reason out.",
          "Returns the status, the final program, what it printed and its result. State the task completely; put data in `details` and checks in `tests`.",
        ].join("\n"),
      schema,
      responseFormat: "content_and_artifact",
    },
  );
}

function buildDefaultGraph(options: CodeGenToolOptions): CodeGenRunnable {
  const { graph: _graph, languages: _languages, defaultLanguage: _default, maxContentChars: _max, name: _name, description: _description, inheritRunSettings: _inherit, ...graphOptions } = options;
  return createCodeGenGraph(graphOptions) as unknown as CodeGenRunnable;
}
