/** Model resolution, retries and token counting for the code-generation graph. */
export * from "./configuration.js";
export * from "./errors.js";
export * from "./resolve-model.js";
export * from "./retry.js";
export * from "./usage.js";
