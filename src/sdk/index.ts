/**
 * `codegen-sandbox/sdk`: the Code Generator SDK. Backends (chat models, REST/gRPC functions,
 * OpenAI-compatible servers), templates, `CodeGeneratorSandbox` and the `CodeGenerators` registry.
 */
export {
  BaseCodeGenerator,
  defaultPreProcessor,
  type CheckExecuteQuery,
  type CodeChecker,
  type CodeGeneratorApi,
  type Completion,
  type CompletionUsage,
  type Descriptors,
  type GeneratorEstimates,
  type PreProcessor,
} from "./generator-api.js";
export {
  DEFAULT_GENERATOR_SYSTEM_PROMPT,
  fromAsyncFunction,
  fromChatModel,
  fromOpenAICompatible,
  type AdapterOptions,
  type AsyncFunctionAdapterOptions,
  type BackendReply,
  type BackendRequest,
  type ChatModelAdapterOptions,
  type OpenAICompatibleOptions,
} from "./adapters.js";
export * from "./errors.js";
export { DEFAULT_TEMPLATE, type CodeTemplate, type TemplateInput } from "./templates.js";
export type { Dependency, DependencyManifest } from "./dependencies.js";
export {
  GeneratedInstance,
  type AsyncProxy,
  type CallLimits,
  type DynamicFunctions,
  type GeneratedFiles,
  type GeneratedFunctions,
} from "./instance.js";
export {
  CodeGeneratorSandbox,
  type CodeGeneratorSandboxOptions,
  type GenerateOptions,
  type JsonObject,
} from "./code-generator-sandbox.js";
export { CodeGenerators, type CodeGeneratorsOptions, type RegisterOptions } from "./registry.js";
export { stripCodeFences } from "./strip-fences.js";
