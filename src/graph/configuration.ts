/**
 * Options of the code-generation graph and their defaults, filled in one place. The model and
 * the default sandbox are resolved at run time (never on import: Studio imports the graph).
 */
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { Language, RunOptions, Sandbox } from "../sandbox/types.js";
import { resolveLanguage, resolveLimit } from "../sandbox/options.js";
import { InvalidOptionError } from "../errors.js";
import { readModelSettings } from "../models/configuration.js";
import { resolveChatModel } from "../models/resolve-model.js";
import type { ModelSpec, ResolvedModel } from "../models/resolve-model.js";
import type { ModelRetryOptions } from "../models/retry.js";
import { resolvePrompts } from "./prompts.js";
import type { CodeGenPromptOverrides, CodeGenPrompts } from "./prompts.js";

/** The part of a `Sandbox` the graph uses: check and run. */
export type CodeRunner = Pick<Sandbox, "run" | "check">;

/** Options of `createCodeGenGraph`. Every field is optional. */
export interface CodeGenGraphOptions {
  /**
   * A chat model instance or a `provider:model` string (resolved with `initChatModel`).
   * Default: `configurable.model` of the run, else `CODEGEN_MODEL`, else `openai:gpt-4o-mini`.
   * A run's `configurable.model` wins over this option.
   */
  model?: ModelSpec;
  /** Refinements after the first attempt. Default 2 (so at most 3 attempts). */
  maxRetries?: number;
  /** Language when the input names none. Default `"javascript"` (fast start; Python takes seconds to boot). */
  defaultLanguage?: Language;
  /** Where code is checked and run. Default: the package's shared sandbox (`runCode`/`checkCode`). */
  sandbox?: CodeRunner;
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
}

/** What a run may set in `config.configurable`. */
export interface CodeGenConfigurable {
  /** `provider:model` string for this run. */
  model?: string;
  maxRetries?: number;
  defaultLanguage?: Language;
}

/** Options with defaults filled, shared by every node of one compiled graph. */
export interface CodeGenContext {
  prompts: CodeGenPrompts;
  approveBeforeExecute: boolean;
  runLimits: Pick<RunOptions, "timeoutMs" | "memoryLimitBytes" | "maxOutputBytes">;
  modelRetry: ModelRetryOptions;
  /** Refinements allowed in this run. */
  maxRetries(config: LangGraphRunnableConfig): number;
  defaultLanguage(config: LangGraphRunnableConfig): Language;
  model(config: LangGraphRunnableConfig): Promise<ResolvedModel>;
  sandbox(): Promise<CodeRunner>;
}

/** Default number of refinements. */
export const DEFAULT_MAX_RETRIES = 2;
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
 * const context = resolveCodeGenContext({ maxRetries: 1 });
 * ```
 */
export function resolveCodeGenContext(options: CodeGenGraphOptions = {}): CodeGenContext {
  checkRetries("maxRetries", options.maxRetries);
  checkLanguage("defaultLanguage", options.defaultLanguage);
  for (const name of ["timeoutMs", "memoryLimitBytes", "maxOutputBytes"] as const) {
    if (options[name] !== undefined) resolveLimit(name, options[name]);
  }
  if (options.sandbox !== undefined && (typeof options.sandbox?.run !== "function" || typeof options.sandbox?.check !== "function")) {
    throw new InvalidOptionError("sandbox", options.sandbox, "a Sandbox from createSandbox() (an object with run and check)");
  }
  if (options.model !== undefined && typeof options.model !== "string" && typeof (options.model as { invoke?: unknown })?.invoke !== "function") {
    throw new InvalidOptionError("model", options.model, 'a chat model instance or a "provider:model" string');
  }
  const runLimits: CodeGenContext["runLimits"] = {};
  if (options.timeoutMs !== undefined) runLimits.timeoutMs = options.timeoutMs;
  if (options.memoryLimitBytes !== undefined) runLimits.memoryLimitBytes = options.memoryLimitBytes;
  if (options.maxOutputBytes !== undefined) runLimits.maxOutputBytes = options.maxOutputBytes;
  const configurable = (config: LangGraphRunnableConfig) => (config.configurable ?? {}) as CodeGenConfigurable;
  // A model instance given here is used as is by every run without `configurable.model`:
  // resolve it once instead of reading the environment on each model call.
  const instance = options.model !== undefined && typeof options.model !== "string" ? options.model : undefined;
  let fixedModel: Promise<ResolvedModel> | undefined;
  return {
    prompts: resolvePrompts(options.prompts),
    approveBeforeExecute: options.approveBeforeExecute ?? false,
    runLimits,
    modelRetry: options.modelRetry ?? {},
    maxRetries(config) {
      const value = configurable(config).maxRetries;
      checkRetries("configurable.maxRetries", value);
      return value ?? options.maxRetries ?? DEFAULT_MAX_RETRIES;
    },
    defaultLanguage(config) {
      const value = configurable(config).defaultLanguage;
      checkLanguage("configurable.defaultLanguage", value);
      return value ?? options.defaultLanguage ?? DEFAULT_LANGUAGE;
    },
    model(config) {
      const fromRun = configurable(config).model;
      if (fromRun !== undefined && (typeof fromRun !== "string" || fromRun.trim() === "")) {
        throw new InvalidOptionError("configurable.model", fromRun, 'a "provider:model" string');
      }
      if (fromRun === undefined && instance !== undefined) return (fixedModel ??= resolveChatModel(instance, readModelSettings(options.env ?? process.env)));
      // Environment variables are read at run time, so Studio and the CLI can set them late.
      return resolveChatModel(fromRun ?? options.model, readModelSettings(options.env ?? process.env));
    },
    sandbox() {
      return options.sandbox === undefined ? defaultRunner() : Promise.resolve(options.sandbox);
    },
  };
}

/**
 * Checks a `maxRetries` value (repairs after the first attempt): an integer from 0 to 20. The
 * graph, the tools and the SDK use this one check.
 *
 * @throws InvalidOptionError naming `name`.
 */
export function checkRetries(name: string, value: unknown): void {
  if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 20)) {
    throw new InvalidOptionError(name, value, "an integer from 0 to 20");
  }
}

function checkLanguage(name: string, value: unknown): void {
  if (value !== undefined) resolveLanguage(value, name);
}
