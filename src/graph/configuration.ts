/**
 * Options of the code-generation graph and their defaults, filled in one place. The model and
 * the default sandbox are resolved at run time (never on import: Studio imports the graph).
 */
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { Language, RunOptions, Sandbox } from "../sandbox/types.js";
import { LIMIT_RULES } from "../sandbox/options.js";
import { InvalidOptionError } from "../errors.js";
import { booleanRule, checkOptions, objectRule, oneOfRule, rule, textRule, type OptionRules } from "../options/index.js";
import { LANGUAGES } from "../sandbox/types.js";
import { checkModelRetry } from "../models/retry.js";
import { DEFAULT_MAX_RETRIES, MAX_RETRIES_RULE } from "./retries.js";
import { REPAIR_STRATEGY_RULE, resolveRepairStrategy, type RepairStrategy, type ResolvedRepairStrategy } from "./repair-strategy.js";
export { DEFAULT_MAX_RETRIES, MAX_RETRIES_LIMIT } from "./retries.js";
import { readModelSettings } from "../models/configuration.js";
import { ENV_RULE, MODEL_SPEC_RULE } from "../models/option-rules.js";
import { resolveChatModel } from "../models/resolve-model.js";
import type { ModelSpec, ResolvedModel } from "../models/resolve-model.js";
import type { ModelRetryOptions } from "../models/retry.js";
import { resolvePrompts } from "./prompts.js";
import type { CodeGenPromptOverrides, CodeGenPrompts } from "./prompts.js";
import { graphCodeTools, type CodeToolsHook, type GraphTool } from "./code-tools.js";

/**
 * The part of a `Sandbox` the graph uses: check and run. A runner that gives every program
 * globals of its own (the SDK's `globalSettings`, ...) may also declare them, so the TypeScript
 * check before a run knows them.
 */
export type CodeRunner = Pick<Sandbox, "run" | "check"> & {
  /** TypeScript declarations of the globals this runner gives `code` (added to its type check). */
  typeDeclarations?(code: string): string;
};

/** Options of `createCodeGenGraph`. Every field is optional. */
export interface CodeGenGraphOptions {
  /**
   * A chat model instance or a `provider:model` string (resolved with `initChatModel`).
   * Default: the run's `context.model` (or `configurable.model`), else `CODEGEN_MODEL`, else
   * `openai:gpt-4o-mini`. A run's `context.model` wins over this option.
   */
  model?: ModelSpec;
  /**
   * Repair rounds after the first attempt, 0 to 20. Default 2 (so at most 3 attempts). Each
   * round is one attempt and makes `repair.samples` model calls at most (plus one with
   * `repair.explainFirst`): a run makes at most `1 + maxRetries × (samples + explainFirst)`.
   * A round whose programs were all seen before (a repeat) counts as a round: it is not run.
   */
  maxRetries?: number;
  /**
   * How failed attempts are repaired: temperatures, candidates per round chosen by the tests,
   * the prompt (the task again, or the failure with the earlier attempts), an explanation
   * first. See {@link RepairStrategy}; default `{ temperatures: [0, 0.8], samples: 3,
   * prompt: "auto", explainFirst: false }` (measured in docs/eval.md), with `samples: 1` when
   * `approveBeforeExecute` is true.
   */
  repair?: RepairStrategy;
  /** Language when the input names none. Default `"javascript"` (fast start; Python takes seconds to boot). */
  defaultLanguage?: Language;
  /** Where code is checked and run. Default: the package's shared sandbox (`runCode`/`checkCode`). */
  sandbox?: Sandbox;
  /** Prompt overrides (see `prompts/`). */
  prompts?: CodeGenPromptOverrides;
  /** Pause with `interrupt()` before each run, showing the code. Needs a checkpointer. Default false. */
  approveBeforeExecute?: boolean;
  /** Per-run limits passed to the sandbox (its defaults when absent). */
  timeoutMs?: number;
  memoryLimitBytes?: number;
  maxOutputBytes?: number;
  /** Back-off of model calls (429, 5xx, timeouts). Default: 3 retries from 500 ms, doubling. */
  modelRetry?: ModelRetryOptions;
  /** Environment read for model settings at run time. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Checkpointer for `createCodeGenGraph` (threads, resume, approval). */
  checkpointer?: BaseCheckpointSaver;
  /**
   * LangChain tools the generated program may call (`await tools.<name>(...)`, see
   * docs/code-mode.md); the generate prompt shows their signatures. Default: none.
   */
  tools?: GraphTool[];
}

/**
 * Per-run settings (none of them secret), passed as LangGraph's run-time context:
 * `graph.invoke(input, { context: { maxRetries: 4 } })`. Studio shows them as the graph's
 * context. Each one wins over the graph's option of the same name.
 */
export interface CodeGenRunContext {
  /** `provider:model` string for this run. */
  model?: string;
  /** Repairs after the first attempt (0 to 20). */
  maxRetries?: number;
  defaultLanguage?: Language;
  timeoutMs?: number;
  memoryLimitBytes?: number;
  maxOutputBytes?: number;
}

/**
 * A run's context with every setting present (absent ones `undefined`), the shape LangGraph's
 * types ask `invoke(input, { context })` for. JavaScript callers can pass a plain object.
 *
 * @example
 * ```ts
 * await graph.invoke({ task: "Print 42" }, { context: codeGenRunContext({ maxRetries: 4 }) });
 * ```
 */
export function codeGenRunContext(settings: CodeGenRunContext = {}): { [K in keyof Required<CodeGenRunContext>]: CodeGenRunContext[K] | undefined } {
  return {
    model: settings.model,
    maxRetries: settings.maxRetries,
    defaultLanguage: settings.defaultLanguage,
    timeoutMs: settings.timeoutMs,
    memoryLimitBytes: settings.memoryLimitBytes,
    maxOutputBytes: settings.maxOutputBytes,
  };
}

/** The run limits the sandbox gets (its defaults when absent). */
export type RunLimits = Pick<RunOptions, "timeoutMs" | "memoryLimitBytes" | "maxOutputBytes">;

/** Options with defaults filled, shared by every node of one compiled graph. */
export interface GraphSettings {
  prompts: CodeGenPrompts;
  approveBeforeExecute: boolean;
  /** The graph's own limits (options); a run's context may override them: see `runLimitsFor`. */
  runLimits: RunLimits;
  modelRetry: ModelRetryOptions;
  /** The repair strategy, defaults filled. */
  repair: ResolvedRepairStrategy;
  /** Repairs allowed in this run. */
  maxRetries(config: LangGraphRunnableConfig): number;
  defaultLanguage(config: LangGraphRunnableConfig): Language;
  /** The limits of this run: its context (or configurable), else the graph's options. */
  runLimitsFor(config: LangGraphRunnableConfig): RunLimits;
  /** Checks a run's `context` (unknown keys too) and the run settings in its `configurable`. */
  checkRunConfig(config: LangGraphRunnableConfig): void;
  model(config: LangGraphRunnableConfig): Promise<ResolvedModel>;
  sandbox(): Promise<CodeRunner>;
  /** Tools callable from the generated program (from the `tools` option). */
  codeTools?: CodeToolsHook;
}

const LANGUAGE_RULE = oneOfRule(LANGUAGES);
const MODEL_NAME_RULE = textRule({ what: 'a "provider:model" name' });


/** The settings a run may give in its `context` (or `configurable`), and their rules. */
export const RUN_CONTEXT_RULES = {
  model: MODEL_NAME_RULE,
  maxRetries: MAX_RETRIES_RULE,
  defaultLanguage: LANGUAGE_RULE,
  timeoutMs: LIMIT_RULES.timeoutMs,
  memoryLimitBytes: LIMIT_RULES.memoryLimitBytes,
  maxOutputBytes: LIMIT_RULES.maxOutputBytes,
} satisfies OptionRules<CodeGenRunContext>;

/**
 * Checks the values of the run settings in `settings` (a run's `context` or `configurable`),
 * ignoring other keys (`configurable` also carries `thread_id` and LangGraph's own).
 *
 * @throws InvalidOptionError naming `PREFIX.NAME`.
 */
export function checkRunSettingValues(settings: unknown, prefix: "context." | "configurable."): void {
  if (typeof settings !== "object" || settings === null) return;
  for (const [name, rule] of Object.entries(RUN_CONTEXT_RULES)) {
    const value = (settings as Record<string, unknown>)[name];
    if (value !== undefined && value !== null) rule.check(value, `${prefix}${name}`);
  }
}

/**
 * Checks a run's `context` whole: an unknown key is refused with the nearest setting's name.
 *
 * @throws InvalidOptionError naming `context.NAME`.
 */
export function checkRunContext(context: unknown): void {
  if (context === undefined || context === null) return;
  // `null` values are "not set" (Studio sends them for empty fields).
  const given = typeof context === "object" ? Object.fromEntries(Object.entries(context).filter(([, v]) => v !== null)) : context;
  checkOptions<CodeGenRunContext>(given, RUN_CONTEXT_RULES, "the graph's run context", "context.");
}

/** The options of `createCodeGenGraph` and their rules (keys from `CodeGenGraphOptions` itself). */
export const GRAPH_OPTION_RULES = {
  model: MODEL_SPEC_RULE,
  maxRetries: MAX_RETRIES_RULE,
  defaultLanguage: LANGUAGE_RULE,
  sandbox: objectRule("a Sandbox from createSandbox() (an object with run and check)", (v) => typeof v.run === "function" && typeof v.check === "function"),
  prompts: objectRule("an object of prompt overrides ({ system?, task?, refine? })"),
  approveBeforeExecute: booleanRule,
  timeoutMs: LIMIT_RULES.timeoutMs,
  memoryLimitBytes: LIMIT_RULES.memoryLimitBytes,
  maxOutputBytes: LIMIT_RULES.maxOutputBytes,
  modelRetry: { expected: "an object of back-off options", check: (v) => checkModelRetry(v) },
  repair: REPAIR_STRATEGY_RULE,
  env: ENV_RULE,
  checkpointer: objectRule("a LangGraph checkpointer (e.g. new MemorySaver())", (v) => typeof v.getTuple === "function" && typeof v.put === "function"),
  // Each tool is checked by code mode's own index (names, schemas).
  tools: rule("an array of LangChain tools", Array.isArray),
} satisfies OptionRules<CodeGenGraphOptions>;
/** Default language of a task that names none. */
export const DEFAULT_LANGUAGE: Language = "javascript";

let sharedRunner: Promise<CodeRunner> | undefined;

/** The package's shared sandbox, imported on first use. */
function defaultRunner(): Promise<CodeRunner> {
  sharedRunner ??= import("../sandbox/run-code.js").then((sandbox) => ({
    run: (code, options) => sandbox.runCode(code, options),
    check: (code, options) => sandbox.checkCode(code, options),
  }));
  return sharedRunner;
}

/**
 * Checks options and fills every default. Throws `InvalidOptionError` for a bad value.
 *
 * @example
 * ```ts
 * const settings = resolveGraphSettings({ maxRetries: 1 });
 * ```
 */
export function resolveGraphSettings(given: CodeGenGraphOptions = {}, owner = "createCodeGenGraph"): GraphSettings {
  const options = checkOptions<CodeGenGraphOptions>(given, GRAPH_OPTION_RULES, owner);
  const runLimits: RunLimits = {};
  if (options.timeoutMs !== undefined) runLimits.timeoutMs = options.timeoutMs;
  if (options.memoryLimitBytes !== undefined) runLimits.memoryLimitBytes = options.memoryLimitBytes;
  if (options.maxOutputBytes !== undefined) runLimits.maxOutputBytes = options.maxOutputBytes;
  // A model instance given here is used as is by every run without a model of its own:
  // resolve it once instead of reading the environment on each model call.
  const instance = options.model !== undefined && typeof options.model !== "string" ? options.model : undefined;
  let fixedModel: Promise<ResolvedModel> | undefined;
  const repair = resolveRepairStrategy(options.repair, { approveBeforeExecute: options.approveBeforeExecute });
  if (repair.samples > 1 && options.approveBeforeExecute === true) {
    // Choosing among candidates runs each one: that would run code before a person approved it.
    throw new InvalidOptionError("repair.samples", repair.samples, "1 when approveBeforeExecute is true (candidates are chosen by running them, before any approval)");
  }
  const codeTools = graphCodeTools(options.tools);
  return {
    ...(codeTools ? { codeTools } : {}),
    prompts: resolvePrompts(options.prompts),
    approveBeforeExecute: options.approveBeforeExecute ?? false,
    runLimits,
    modelRetry: options.modelRetry ?? {},
    repair,
    maxRetries(config) {
      const setting = runSetting(config, "maxRetries");
      const value = setting.value === undefined ? undefined : MAX_RETRIES_RULE.check(setting.value, setting.name);
      return value ?? options.maxRetries ?? DEFAULT_MAX_RETRIES;
    },
    defaultLanguage(config) {
      const setting = runSetting(config, "defaultLanguage");
      const value = setting.value === undefined ? undefined : LANGUAGE_RULE.check(setting.value, setting.name);
      return value ?? options.defaultLanguage ?? DEFAULT_LANGUAGE;
    },
    runLimitsFor(config) {
      const limits: RunLimits = { ...runLimits };
      for (const name of LIMIT_NAMES) {
        const setting = runSetting(config, name);
        if (setting.value !== undefined) limits[name] = LIMIT_RULES[name].check(setting.value, setting.name);
      }
      return limits;
    },
    checkRunConfig(config) {
      checkRunContext((config as { context?: unknown }).context);
      checkRunSettingValues(config.configurable, "configurable.");
    },
    model(config) {
      const setting = runSetting(config, "model");
      const fromRun = setting.value === undefined ? undefined : MODEL_NAME_RULE.check(setting.value, setting.name);
      if (fromRun === undefined && instance !== undefined) return (fixedModel ??= resolveChatModel(instance, readModelSettings(options.env ?? process.env)));
      // Environment variables are read at run time, so Studio and the CLI can set them late.
      return resolveChatModel((fromRun as string | undefined) ?? options.model, readModelSettings(options.env ?? process.env));
    },
    sandbox() {
      return options.sandbox === undefined ? defaultRunner() : Promise.resolve(options.sandbox);
    },
  };
}

const LIMIT_NAMES = ["timeoutMs", "memoryLimitBytes", "maxOutputBytes"] as const;

/**
 * A run's setting and where it came from: `context` (LangGraph 1.x) first, then the deprecated
 * `configurable` (kept one release).
 */
function runSetting(config: LangGraphRunnableConfig, name: keyof CodeGenRunContext): { name: string; value: unknown } {
  const context = (config as { context?: unknown }).context;
  const fromContext = typeof context === "object" && context !== null ? (context as Record<string, unknown>)[name] : undefined;
  if (fromContext !== undefined && fromContext !== null) return { name: `context.${name}`, value: fromContext };
  const fromConfigurable = (config.configurable as Record<string, unknown> | undefined)?.[name];
  return { name: `configurable.${name}`, value: fromConfigurable ?? undefined };
}

/**
 * Checks a `maxRetries` value (repairs after the first attempt): an integer from 0 to
 * `MAX_RETRIES_LIMIT`. The graph, the tools and the SDK use this one check.
 *
 * @throws InvalidOptionError naming `name`.
 */
export function checkRetries(name: string, value: unknown): void {
  if (value !== undefined) MAX_RETRIES_RULE.check(value, name);
}
