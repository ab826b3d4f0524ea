/**
 * codegen-sandbox: generate, validate, run and repair model-written code in a WebAssembly
 * sandbox, as a LangGraph state machine and LangChain tools.
 */
export * from "./sandbox/types.js";
export * from "./sandbox/index.js";
export * from "./errors.js";
export * from "./tools/index.js";
export * from "./sdk/index.js";
export * from "./graph/index.js";
export * from "./models/index.js";
export * from "./eval/index.js";
