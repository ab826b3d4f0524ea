/**
 * codegen-sandbox/deepagents: a local, isolated sandbox backend for deepagents
 * (`createDeepAgent({ backend: await CodeGenSandbox.create() })`). Needs `deepagents` (an
 * optional peer dependency of this package); nothing else of the package loads it.
 */
export { CodeGenSandbox } from "./code-gen-sandbox.js";
export {
  DEFAULT_EXECUTE_TIMEOUT_MS,
  DEFAULT_EXECUTE_MAX_OUTPUT_BYTES,
  type CodeGenSandboxOptions,
} from "./options.js";
