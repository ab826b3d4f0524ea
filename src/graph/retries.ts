/**
 * `maxRetries` (repairs after the first attempt) and its rule, in a module with no LangChain
 * import: the graph, the tools, the SDK, eval and the CLI's `--max-retries` check it the same way.
 */
import { integerRule } from "../options/index.js";

/** Default number of repairs after the first attempt (the graph, the tools and the SDK). */
export const DEFAULT_MAX_RETRIES = 2;

/** The largest `maxRetries` the graph accepts. */
export const MAX_RETRIES_LIMIT = 20;

/** `maxRetries` everywhere (graph, run context, tools, SDK, CLI): a whole number from 0 to 20. */
export const MAX_RETRIES_RULE = integerRule({ min: 0, max: MAX_RETRIES_LIMIT });
