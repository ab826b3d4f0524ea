/**
 * `CodeGenerators`: a registry of named code generators sharing global settings, parameters
 * and state, so an agent or policy can pick a backend by name.
 */
import { InvalidOptionError } from "../errors.js";
import { checkOptions, type OptionRules } from "../options/index.js";
import type { JsonValue, Language, Sandbox } from "../sandbox/types.js";
import { CODE_GENERATOR_SANDBOX_OPTION_RULES, CodeGeneratorSandbox, type CodeGeneratorSandboxOptions, type JsonObject } from "./code-generator-sandbox.js";
import { DuplicateGeneratorError, UnknownGeneratorError } from "./errors.js";
import type { CodeGeneratorApi, Descriptors } from "./generator-api.js";
import type { DynamicFunctions, GeneratedFiles, GeneratedFunctions, GeneratedInstance } from "./instance.js";
import type { TemplateInput } from "./templates.js";

/** Options shared by every generator of a registry. */
export interface CodeGeneratorsOptions {
  globalSettings?: JsonObject;
  globalParameters?: JsonObject;
  globalState?: JsonObject;
  /** Sandbox for every generator. Default: the shared sandbox. */
  sandbox?: Sandbox;
  /** Default language of registered generators. Default `"javascript"`. */
  language?: Language;
}

/** Per-generator options of `register`. */
export type RegisterOptions = Pick<CodeGeneratorSandboxOptions, "language" | "useDefaultDescriptors" | "maxRetries" | "limits"> & {
  template?: TemplateInput;
};

const R = CODE_GENERATOR_SANDBOX_OPTION_RULES;
const REGISTRY_OPTION_RULES = {
  globalSettings: R.globalSettings,
  globalParameters: R.globalParameters,
  globalState: R.globalState,
  sandbox: R.sandbox,
  language: R.language,
} satisfies OptionRules<CodeGeneratorsOptions>;
const REGISTER_OPTION_RULES = {
  language: R.language,
  useDefaultDescriptors: R.useDefaultDescriptors,
  maxRetries: R.maxRetries,
  limits: R.limits,
  template: R.template,
} satisfies OptionRules<RegisterOptions>;

/**
 * A registry of named code generators. Each name owns a `CodeGeneratorSandbox`; an unknown name
 * throws `UnknownGeneratorError` listing the registered names, a taken name
 * `DuplicateGeneratorError`.
 *
 * @example
 * ```ts
 * const generators = new CodeGenerators({ globalSettings: { region: "eu" } });
 * generators.register("openai", fromChatModel(model));
 * const calc = await generators.generateAndInstantiate("openai", "Define add(x, y)");
 * await calc.call("add", 5, 7); // 12
 * await generators.cleanup();
 * ```
 */
export class CodeGenerators {
  private readonly sandboxes = new Map<string, CodeGeneratorSandbox>();

  private readonly options: CodeGeneratorsOptions;

  constructor(options: CodeGeneratorsOptions = {}) {
    this.options = checkOptions<CodeGeneratorsOptions>(options, REGISTRY_OPTION_RULES, "CodeGenerators");
  }

  /** Registers `generator` as `name` and returns its `CodeGeneratorSandbox`. */
  register(name: string, generator: CodeGeneratorApi, options: RegisterOptions = {}): CodeGeneratorSandbox {
    if (typeof name !== "string" || name.trim() === "") {
      throw new InvalidOptionError("name", name, "a non-empty string naming the generator");
    }
    if (this.sandboxes.has(name)) throw new DuplicateGeneratorError(name);
    const checked = checkOptions<RegisterOptions>(options, REGISTER_OPTION_RULES, "register");
    const sandboxOptions: CodeGeneratorSandboxOptions = { ...this.options, ...checked, generator };
    const sandbox = new CodeGeneratorSandbox(sandboxOptions, "register");
    this.sandboxes.set(name, sandbox);
    return sandbox;
  }

  /** Removes `name` after releasing its instance. */
  async unregister(name: string): Promise<void> {
    await this.get(name).cleanup();
    this.sandboxes.delete(name);
  }

  /** The `CodeGeneratorSandbox` registered as `name`. */
  get(name: string): CodeGeneratorSandbox {
    const sandbox = this.sandboxes.get(name);
    if (sandbox === undefined) throw new UnknownGeneratorError(String(name), [...this.sandboxes.keys()]);
    return sandbox;
  }

  /** Registered names mapped to their sandboxes (a copy). */
  list(): Record<string, CodeGeneratorSandbox> {
    return Object.fromEntries(this.sandboxes);
  }

  /** Generates code with generator `name`, without running it. */
  async generate(name: string, task: string, descriptors?: Descriptors): Promise<GeneratedFiles> {
    return this.get(name).generateCode(task, descriptors);
  }

  /** Generates and loads code with generator `name`; returns the live instance. */
  async generateAndInstantiate<F extends GeneratedFunctions = DynamicFunctions>(
    name: string,
    task: string,
    descriptors?: Descriptors,
  ): Promise<GeneratedInstance<F>> {
    return this.get(name).generateAndInstantiate<F>(task, descriptors);
  }

  /** Calls the template's `eval` in generator `name`'s live instance. */
  async executeFunction(name: string, parameters?: JsonObject, inputData?: JsonObject, context?: JsonObject): Promise<JsonValue | undefined> {
    return this.get(name).executeFunction(parameters, inputData, context);
  }

  /** Releases the instance of `name`, or of every generator when `name` is left out. */
  async cleanup(name?: string): Promise<void> {
    if (name !== undefined) return this.get(name).cleanup();
    await Promise.all([...this.sandboxes.values()].map((sandbox) => sandbox.cleanup()));
  }
}
