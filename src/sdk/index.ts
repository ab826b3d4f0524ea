/** The Code Generator SDK: backends, templates, `CodeGeneratorSandbox` and the `CodeGenerators` registry. */
export * from "./generator-api.js";
export * from "./adapters.js";
export * from "./errors.js";
export * from "./templates.js";
export * from "./descriptors.js";
export * from "./dependencies.js";
export * from "./instance.js";
export * from "./code-generator-sandbox.js";
export * from "./registry.js";
export { stripCodeFences } from "./strip-fences.js";
