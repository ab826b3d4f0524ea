/**
 * The one interface a code-generation backend implements, and a base class that gives every
 * backend the pre-processor hook and the planner hooks (dry-run check, running estimates).
 */
import type { CheckResult, Language } from "../sandbox/types.js";
import { InvalidOptionError } from "../errors.js";

/** Key/value hints that shape the generated code (style, structure, template, language...). */
export type Descriptors = Record<string, string>;

/** Turns a task and its descriptors into the prompt the backend sends to its model. */
export type PreProcessor = (task: string, descriptors: Descriptors) => string;

/** A dry-run query of `checkExecute`: code to validate without running it. */
export interface CheckExecuteQuery {
  code: string;
  /** Default `"javascript"`. */
  language?: Language;
}

/** What a backend has spent so far (for planners deciding whether to call it again). */
export interface GeneratorEstimates {
  /** `generate` calls made, including failed ones. */
  attempts: number;
  /** `generate` calls that threw. */
  failures: number;
  /** Prompt tokens reported by the backend (0 when it reports none). */
  inputTokens: number;
  /** Completion tokens reported by the backend. */
  outputTokens: number;
  totalTokens: number;
  /** Time spent inside `generate`, summed, in milliseconds. */
  totalDurationMs: number;
  /** Mean time per `generate` call; 0 before the first. */
  meanDurationMs: number;
}

/**
 * A code-generation backend: turns a task and descriptors into code (plain source, no Markdown).
 * `checkExecute` and `getCurrentEstimates` are optional planner hooks.
 */
export interface CodeGeneratorApi {
  /** Generates code for `task`; the pre-processor builds the prompt from task and descriptors. */
  generate(task: string, descriptors: Descriptors): Promise<string>;
  /** Replaces the pre-processor. */
  setPreProcessor(fn: PreProcessor): void;
  /** Dry run: validates code (syntax and imports) without running it. */
  checkExecute?(query: CheckExecuteQuery): Promise<CheckResult>;
  /** Tokens, time and attempts spent so far. */
  getCurrentEstimates?(): GeneratorEstimates;
}

/** Token counts a backend may report for one completion. */
export interface CompletionUsage {
  inputTokens?: number;
  outputTokens?: number;
}

/** One completion of a backend: the raw text and, when known, its token usage. */
export interface Completion {
  text: string;
  usage?: CompletionUsage;
}

/** Validates code without running it; `checkCode` of the sandbox fits. */
export type CodeChecker = (code: string, options: { language: Language }) => Promise<CheckResult>;

/**
 * The default pre-processor: appends each descriptor to the task as " key: value".
 *
 * @example
 * ```ts
 * defaultPreProcessor("Create add(a, b)", { style: "concise" }); // "Create add(a, b) style: concise"
 * ```
 */
export function defaultPreProcessor(task: string, descriptors: Descriptors): string {
  let prompt = task;
  for (const [key, value] of Object.entries(descriptors)) prompt += ` ${key}: ${value}`;
  return prompt;
}

/**
 * Base of the adapters: keeps the pre-processor, counts attempts, tokens and time, and answers
 * `checkExecute` with a code checker. Subclasses implement `complete(prompt, descriptors)`.
 *
 * @example
 * ```ts
 * class EchoGenerator extends BaseCodeGenerator {
 *   protected async complete(prompt: string) { return { text: `console.log(${JSON.stringify(prompt)})` }; }
 * }
 * ```
 */
export abstract class BaseCodeGenerator implements CodeGeneratorApi {
  private preProcessor: PreProcessor = defaultPreProcessor;
  private readonly stats = { attempts: 0, failures: 0, inputTokens: 0, outputTokens: 0, totalDurationMs: 0 };

  constructor(private readonly checker?: CodeChecker) {}

  /** Produces the raw reply for `prompt` (built from `request` by the pre-processor). Throw on backend failure. */
  protected abstract complete(prompt: string, request: { task: string; descriptors: Descriptors }): Promise<Completion>;

  /** Turns a raw reply into code (`descriptors` name the language); the default returns it unchanged. */
  protected postProcess(text: string, _descriptors?: Descriptors): string {
    return text;
  }

  setPreProcessor(fn: PreProcessor): void {
    if (typeof fn !== "function") {
      throw new InvalidOptionError("setPreProcessor(fn)", fn, "a function (task, descriptors) => prompt string");
    }
    this.preProcessor = fn;
  }

  async generate(task: string, descriptors: Descriptors = {}): Promise<string> {
    if (typeof task !== "string" || task.trim() === "") {
      throw new InvalidOptionError("task", task, "a non-empty string describing the code to generate");
    }
    const prompt = this.preProcessor(task, descriptors);
    if (typeof prompt !== "string") {
      throw new InvalidOptionError("pre-processor result", prompt, "a string (the prompt sent to the model)");
    }
    const startedAt = performance.now();
    this.stats.attempts += 1;
    try {
      const completion = await this.complete(prompt, { task, descriptors });
      this.stats.inputTokens += completion.usage?.inputTokens ?? 0;
      this.stats.outputTokens += completion.usage?.outputTokens ?? 0;
      return this.postProcess(completion.text, descriptors);
    } catch (error) {
      this.stats.failures += 1;
      throw error;
    } finally {
      this.stats.totalDurationMs += performance.now() - startedAt;
    }
  }

  async checkExecute(query: CheckExecuteQuery): Promise<CheckResult> {
    if (query === null || typeof query !== "object" || typeof query.code !== "string") {
      throw new InvalidOptionError("checkExecute(query)", query, "{ code: string, language?: Language }");
    }
    const check = this.checker ?? (await defaultChecker());
    return check(query.code, { language: query.language ?? "javascript" });
  }

  getCurrentEstimates(): GeneratorEstimates {
    const { attempts, failures, inputTokens, outputTokens, totalDurationMs } = this.stats;
    return {
      attempts,
      failures,
      inputTokens,
      outputTokens,
      totalTokens: inputTokens + outputTokens,
      totalDurationMs,
      meanDurationMs: attempts === 0 ? 0 : totalDurationMs / attempts,
    };
  }
}

async function defaultChecker(): Promise<CodeChecker> {
  // Loaded on first use so a generator that is never asked to check does not start an engine.
  const { checkCode } = await import("../sandbox/index.js");
  return (code, options) => checkCode(code, options);
}
