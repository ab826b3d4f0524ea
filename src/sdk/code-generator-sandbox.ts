/**
 * `CodeGeneratorSandbox`: generate code from a task with a pluggable backend, write it out as
 * files with a dependency manifest, load it into its own sandbox session and call it.
 */
import { InvalidOptionError, SandboxDisposedError } from "../errors.js";
import { getSharedSandbox } from "../sandbox/index.js";
import type { ExecutionResult, JsonValue, Language, Sandbox, SandboxSession } from "../sandbox/types.js";
import { assertJsonValue, LIMIT_RULES } from "../sandbox/options.js";
import { LANGUAGES } from "../sandbox/types.js";
import { DEFAULT_MAX_RETRIES, MAX_RETRIES_RULE, extractProgram, scanJavaScript, scanPython } from "../graph/shared.js";
import { anyValue, booleanRule, checkOptions, objectRule, oneOfRule, type OptionRule, type OptionRules } from "../options/index.js";
import { explainMissingFunctions } from "../feedback/explain.js";
import { requirePeers } from "../peers.js";
import { declaredFunctionNames, requestedFunctionNames } from "./requested-functions.js";
import type { LoadOutcome } from "./graph-generation.js";
import { buildDependencyManifest, requirementsText } from "./dependencies.js";
import { defaultDescriptors, mergeDescriptors } from "./descriptors.js";
import { GeneratedCodeError, GeneratedFunctionError, NotInstantiatedError, TemplateWithoutEvalError } from "./errors.js";
import type { CodeGeneratorApi, Descriptors, GeneratorEstimates } from "./generator-api.js";
import { EVAL_ENTRY, GeneratedInstance, type CallLimits, type GeneratedFiles, type GeneratedFunctions, type DynamicFunctions } from "./instance.js";
import { resolveTemplate, type CodeTemplate, type TemplateInput } from "./templates.js";

/** JSON object of settings, parameters or state shared with the generated code. */
export type JsonObject = Record<string, JsonValue>;

/** Options of `CodeGeneratorSandbox`. Only `generator` is required. */
export interface CodeGeneratorSandboxOptions {
  /** The backend that writes the code (`fromChatModel`, `fromAsyncFunction`, or your own). */
  generator: CodeGeneratorApi;
  /** Visible to the code as the global `globalSettings` (Python also `global_settings`). Default `{}`. */
  globalSettings?: JsonObject;
  /** Visible as `globalParameters` (Python also `global_parameters`). Default `{}`. */
  globalParameters?: JsonObject;
  /** Visible as `globalState` (Python also `global_state`); the session's copy may change, the caller's does not. Default `{}`. */
  globalState?: JsonObject;
  /** Template shown to the model; `executeFunction` calls its class's `eval`. Default `DEFAULT_TEMPLATE`. */
  template?: TemplateInput;
  /** Language of the generated code. Default `"javascript"`. */
  language?: Language;
  /** Sandbox that checks the code and holds the instance's session. Default: the shared sandbox. */
  sandbox?: Sandbox;
  /** Merge the caller's descriptors over the defaults. Default true. */
  useDefaultDescriptors?: boolean;
  /**
   * Repairs after the first attempt (as in the graph): how many times the generator is asked
   * again, with the error, when the code fails validation or loading. Default 2 (as in the graph).
   */
  maxRetries?: number;
  /** Limits of each load and call: `timeoutMs`, `memoryLimitBytes`, `maxOutputBytes`. */
  limits?: CallLimits;
}

/** A JSON object shared with the generated code (checked to survive JSON unchanged). */
const JSON_OBJECT_RULE: OptionRule<JsonObject> = {
  expected: "a JSON object",
  check(value, name) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new InvalidOptionError(name, value, "a JSON object");
    assertJsonValue(value, name);
    return value as JsonObject;
  },
};

const LIMITS_RULES = {
  timeoutMs: LIMIT_RULES.timeoutMs,
  memoryLimitBytes: LIMIT_RULES.memoryLimitBytes,
  maxOutputBytes: LIMIT_RULES.maxOutputBytes,
} satisfies OptionRules<CallLimits>;

/** The options of `CodeGeneratorSandbox` and their rules (keys from the interface itself). */
export const CODE_GENERATOR_SANDBOX_OPTION_RULES = {
  generator: objectRule("a CodeGeneratorApi (an object with generate(task, descriptors)); use fromChatModel(model) or fromAsyncFunction(fn)", (v) => typeof v.generate === "function"),
  globalSettings: JSON_OBJECT_RULE,
  globalParameters: JSON_OBJECT_RULE,
  globalState: JSON_OBJECT_RULE,
  // Checked by resolveTemplate (text, or { name, text, evalClassName? }).
  template: anyValue,
  language: oneOfRule(LANGUAGES),
  sandbox: objectRule("a Sandbox from createSandbox()", (v) => typeof v.run === "function" && typeof v.check === "function" && typeof v.createSession === "function"),
  useDefaultDescriptors: booleanRule,
  maxRetries: MAX_RETRIES_RULE,
  limits: { expected: "an object of limits ({ timeoutMs?, memoryLimitBytes?, maxOutputBytes? })", check: (v) => checkOptions<CallLimits>(v, LIMITS_RULES, "limits", "limits.") },
} satisfies OptionRules<CodeGeneratorSandboxOptions>;

/** Options of one generation. */
export interface GenerateOptions {
  /** Overrides the sandbox's `useDefaultDescriptors` for this call. */
  useDefaultDescriptors?: boolean;
}

const GENERATE_OPTION_RULES = { useDefaultDescriptors: booleanRule } satisfies OptionRules<GenerateOptions>;

const MAIN_FILE: Record<Language, string> = { javascript: "main.js", typescript: "main.ts", python: "main.py" };

/**
 * Generates, validates, instantiates and runs code from a task. One live instance at a time:
 * `generateAndInstantiate` replaces the previous one, `cleanup()` releases it.
 *
 * Generation runs the code-generation graph (`graph-generation.ts`): the program is taken from
 * the reply with the package's one extractor, checked (syntax, imports, TypeScript types),
 * loaded, and must define at least one of the functions the task names (`add(a, b)`, "a
 * function called add"); when any step fails, the graph asks the generator again with its
 * repair prompt (`prompts/refine.md`) up to `maxRetries` times, never loading a repeated program
 * twice, then `GeneratedCodeError` reports the last failure. The previous instance stays live
 * until a new one has loaded, so a failed regeneration leaves the working one in place.
 *
 * @example
 * ```ts
 * const sandbox = new CodeGeneratorSandbox({ generator: fromChatModel(model), globalSettings: { currency: "EUR" } });
 * const instance = await sandbox.generateAndInstantiate("Create a method called add(a, b, c)");
 * await instance.call("add", 10, 20, 30); // 60
 * await sandbox.cleanup();
 * ```
 */
export class CodeGeneratorSandbox {
  readonly language: Language;
  readonly template: CodeTemplate;
  private readonly generator: CodeGeneratorApi;
  private readonly globals: { globalSettings: JsonObject; globalParameters: JsonObject; globalState: JsonObject };
  private readonly useDefaultDescriptors: boolean;
  private readonly maxRetries: number;
  private readonly limits: CallLimits;
  private sandbox: Sandbox | undefined;
  private current: GeneratedInstance | undefined;
  private cleanedUp = false;

  constructor(given: CodeGeneratorSandboxOptions, owner = "CodeGeneratorSandbox") {
    if (given === null || typeof given !== "object" || Array.isArray(given)) {
      throw new InvalidOptionError("options", given, "{ generator, globalSettings?, globalParameters?, globalState?, template?, language? }");
    }
    const options = checkOptions<CodeGeneratorSandboxOptions>(given, CODE_GENERATOR_SANDBOX_OPTION_RULES, owner);
    if (options.generator === undefined) throw new InvalidOptionError("generator", undefined, CODE_GENERATOR_SANDBOX_OPTION_RULES.generator.expected);
    this.generator = options.generator;
    this.language = options.language ?? "javascript";
    this.template = resolveTemplate(options.template);
    this.globals = {
      globalSettings: jsonObject("globalSettings", options.globalSettings),
      globalParameters: jsonObject("globalParameters", options.globalParameters),
      globalState: jsonObject("globalState", options.globalState),
    };
    this.useDefaultDescriptors = options.useDefaultDescriptors ?? true;
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.limits = { ...options.limits };
    this.sandbox = options.sandbox;
  }

  /** The live instance of the last `generateAndInstantiate`, if any and not cleaned up. */
  get instance(): GeneratedInstance | undefined {
    return this.current !== undefined && !this.current.disposed ? this.current : undefined;
  }

  /** The generator's tokens, time and attempts so far; undefined when it does not report them. */
  generatorEstimates(): GeneratorEstimates | undefined {
    return this.generator.getCurrentEstimates?.();
  }

  /** Descriptors a generation would send for `descriptors` (after merging with the defaults). */
  descriptorsFor(descriptors?: Descriptors, given: GenerateOptions = {}): Descriptors {
    const options = checkOptions<GenerateOptions>(given, GENERATE_OPTION_RULES, "generateAndInstantiate");
    if (descriptors !== undefined && (descriptors === null || typeof descriptors !== "object" || Array.isArray(descriptors))) {
      throw new InvalidOptionError("descriptors", descriptors, "an object of hints ({ key: text })");
    }
    return mergeDescriptors(
      defaultDescriptors(this.language, this.template),
      descriptors,
      options.useDefaultDescriptors ?? this.useDefaultDescriptors,
    );
  }

  /**
   * Generates code for `task` without running it. Returns the files: `main.js` / `main.ts` /
   * `main.py`, `dependencies.json` (each import marked available or not in the sandbox), and for
   * Python `requirements.txt`.
   */
  async generateCode(task: string, descriptors?: Descriptors, options: GenerateOptions = {}): Promise<GeneratedFiles> {
    const reply = await this.generateSource(task, this.descriptorsFor(descriptors, options));
    // Backends are asked for plain code but some wrap it anyway; a reply without a program is kept as is.
    const found = extractProgram(reply, this.language);
    return this.filesFor(found.ok ? found.code : reply.trim());
  }

  /**
   * Generates code for `task`, validates it, and loads it into a new sandbox session (the
   * previous instance is released). Returns the live instance.
   */
  async generateAndInstantiate<F extends GeneratedFunctions = DynamicFunctions>(
    task: string,
    descriptors?: Descriptors,
    options: GenerateOptions = {},
  ): Promise<GeneratedInstance<F>> {
    const merged = this.descriptorsFor(descriptors, options);
    if (typeof task !== "string" || task.trim() === "") {
      throw new InvalidOptionError("task", task, "a non-empty string describing the code to generate");
    }
    const sandbox = await this.getSandbox();
    const requested = requestedFunctionNames(task);
    requirePeers("codegen-sandbox/sdk generateAndInstantiate");
    const { generateWithGraph } = await import("./graph-generation.js");
    // The previous instance stays live (and callable) until the new one has loaded.
    const generated = await generateWithGraph({
      task,
      language: this.language,
      maxRetries: this.maxRetries,
      limits: this.limits,
      generate: (prompt) => this.generateSource(prompt, merged),
      estimates: () => this.generator.getCurrentEstimates?.(),
      check: (code) => sandbox.check(code, { language: this.language }),
      typeDeclarations: (code) => this.typeDeclarations(code),
      load: (code) => this.loadRequested(sandbox, code, requested),
    });
    if (!generated.ok) throw new GeneratedCodeError(generated.phase, generated.code, generated.outcome, generated.attempts);
    const { code, session } = generated;
    const files = await this.filesFor(code);
    const declared = declaredFunctionNames(code, this.language);
    const instance = new GeneratedInstance<F>(session, code, files, await session.functionNames(), this.template.evalClassName !== undefined, this.limits, declared);
    await this.releaseCurrent();
    this.current = instance as unknown as GeneratedInstance;
    this.cleanedUp = false;
    return instance;
  }

  /** Declarations of the SDK's globals for the type check; code that declares one itself (as the default descriptors suggest) keeps its own. */
  private typeDeclarations(code: string): string {
    if (this.language !== "typescript") return "";
    return Object.keys(this.globals)
      .filter((name) => !new RegExp(`\\bdeclare\\s+(?:const|let|var)\\s+${name}\\b`).test(code))
      .map((name) => `declare const ${name}: Record<string, any>;`)
      .join("\n");
  }

  /**
   * The graph's run of `code` here: loaded into a fresh session, it must define one of the
   * functions the task names. A load's value is the callable names (what the caller gets), so a
   * load that printed nothing is never judged a program that showed nothing.
   */
  private async loadRequested(sandbox: Sandbox, code: string, requested: readonly string[]): Promise<LoadOutcome> {
    const session = await sandbox.createSession({ language: this.language, ...pickMemory(this.limits) });
    const loaded = await this.load(session, code);
    if (loaded.status !== "success") {
      await session.dispose();
      return { ok: false, result: loaded };
    }
    const defined = this.language === "python" ? scanPython(code).defines : scanJavaScript(code, this.language).defines;
    if (requested.length > 0 && !requested.some((name) => defined.has(name))) {
      await session.dispose();
      const explanation = explainMissingFunctions(requested, [...defined]);
      return { ok: false, result: { ...loaded, status: "runtime_error", error: { name: "ReferenceError", message: explanation } } };
    }
    return { ok: true, session, result: { ...loaded, result: [...defined] } };
  }

  /**
   * Calls `eval(parameters, inputData, context)` of the template class in the live instance and
   * returns its value. Throws `TemplateWithoutEvalError` when the template has no such class,
   * `NotInstantiatedError` before `generateAndInstantiate`, `SandboxDisposedError` after
   * `cleanup()`, and `GeneratedFunctionError` when the call fails.
   */
  async executeFunction(parameters: JsonObject = {}, inputData: JsonObject = {}, context: JsonObject = {}): Promise<JsonValue | undefined> {
    const result = await this.executeFunctionResult(parameters, inputData, context);
    if (result.status !== "success") throw new GeneratedFunctionError(`${this.template.evalClassName}.eval`, result);
    return result.result;
  }

  /** Like `executeFunction`, but returns the whole run; failures of the code are statuses. */
  async executeFunctionResult(parameters: JsonObject = {}, inputData: JsonObject = {}, context: JsonObject = {}): Promise<ExecutionResult> {
    if (this.template.evalClassName === undefined) throw new TemplateWithoutEvalError(this.template.name);
    jsonObject("parameters", parameters);
    jsonObject("inputData", inputData);
    jsonObject("context", context);
    if (this.cleanedUp) throw new SandboxDisposedError("This CodeGeneratorSandbox's instance (released by cleanup())");
    if (this.current === undefined) throw new NotInstantiatedError("This CodeGeneratorSandbox");
    return this.current.evaluate(parameters, inputData, context);
  }

  /** Releases the live instance's session. Later calls on it throw `SandboxDisposedError`. */
  async cleanup(): Promise<void> {
    await this.releaseCurrent();
    this.cleanedUp = true;
  }

  private async releaseCurrent(): Promise<void> {
    const previous = this.current;
    this.current = undefined;
    if (previous) await previous.dispose();
  }

  private async generateSource(task: string, descriptors: Descriptors): Promise<string> {
    if (typeof task !== "string" || task.trim() === "") {
      throw new InvalidOptionError("task", task, "a non-empty string describing the code to generate");
    }
    const reply = await this.generator.generate(task, descriptors);
    if (typeof reply !== "string") {
      throw new InvalidOptionError("generator.generate() result", reply, "a string of code");
    }
    return reply;
  }

  private async filesFor(code: string): Promise<GeneratedFiles> {
    const sandbox = await this.getSandbox();
    const manifest = await buildDependencyManifest(code, this.language, (probe, options) => sandbox.check(probe, options));
    const files: GeneratedFiles = {
      [MAIN_FILE[this.language]]: code,
      "dependencies.json": `${JSON.stringify(manifest, null, 2)}\n`,
    };
    if (this.language === "python") files["requirements.txt"] = requirementsText(manifest);
    return files;
  }

  private load(session: SandboxSession, code: string): Promise<ExecutionResult> {
    const globals: Record<string, JsonValue> = { ...this.globals };
    if (this.language === "python") {
      globals.global_settings = this.globals.globalSettings;
      globals.global_parameters = this.globals.globalParameters;
      globals.global_state = this.globals.globalState;
    }
    const className = this.template.evalClassName;
    // The entry point is appended to the same program so it sees the class even where
    // top-level class bindings do not outlive one run.
    const program = className === undefined ? code : `${code}\n${evalBootstrap(this.language, className)}`;
    return session.run(program, { ...this.limits, globals });
  }

  private async getSandbox(): Promise<Sandbox> {
    this.sandbox ??= getSharedSandbox();
    return this.sandbox;
  }
}

function evalBootstrap(language: Language, className: string): string {
  const missing = `The generated code defines no class ${className} with an eval(parameters, inputData, context) method, so executeFunction cannot call it.`;
  if (language === "python") {
    return [
      `def ${EVAL_ENTRY}(parameters, input_data, context):`,
      `    cls = globals().get(${JSON.stringify(className)})`,
      `    if cls is None:`,
      `        raise NameError(${JSON.stringify(missing)})`,
      `    if globals().get("${EVAL_ENTRY}_instance") is None:`,
      `        globals()["${EVAL_ENTRY}_instance"] = cls(global_settings, global_parameters, global_state)`,
      `    return globals()["${EVAL_ENTRY}_instance"].eval(parameters, input_data, context)`,
      "",
    ].join("\n");
  }
  return [
    `;globalThis.${EVAL_ENTRY} = function (parameters, inputData, context) {`,
    `  if (typeof ${className} !== "function") throw new ReferenceError(${JSON.stringify(missing)});`,
    `  if (globalThis.${EVAL_ENTRY}_instance === undefined) globalThis.${EVAL_ENTRY}_instance = new ${className}(globalSettings, globalParameters, globalState);`,
    `  return globalThis.${EVAL_ENTRY}_instance.eval(parameters, inputData, context);`,
    `};`,
    "",
  ].join("\n");
}

function pickMemory(limits: CallLimits): { memoryLimitBytes?: number } {
  return limits.memoryLimitBytes === undefined ? {} : { memoryLimitBytes: limits.memoryLimitBytes };
}

function jsonObject(option: string, value: unknown): JsonObject {
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InvalidOptionError(option, value, "a JSON object");
  }
  return value as JsonObject;
}
