/**
 * The rules of the options every model-taking entry shares (`model`, `env`), in a module with no
 * LangChain import: the graph, the tools, the SDK and the MCP server check them the same way.
 */
import { InvalidOptionError } from "../errors.js";
import { objectRule, textRule, type OptionRule } from "../options/index.js";
import type { ModelSpec } from "./resolve-model.js";

const MODEL_NAME_RULE = textRule({ what: 'a "provider:model" name' });

/** A chat model instance (anything with `invoke`) or a `provider:model` string (the `model` option everywhere). */
export const MODEL_SPEC_RULE: OptionRule<ModelSpec> = {
  expected: 'a chat model instance or a "provider:model" string',
  check(value, name) {
    if (typeof value === "string") return MODEL_NAME_RULE.check(value, name);
    if (typeof value === "object" && value !== null && typeof (value as { invoke?: unknown }).invoke === "function") return value as ModelSpec;
    throw new InvalidOptionError(name, value, this.expected);
  },
};

/** The `env` option (environment read for model settings): names to strings. */
export const ENV_RULE = objectRule<Record<string, string | undefined>>("an object of environment variables (name → string)", (v) =>
  Object.values(v).every((x) => x === undefined || typeof x === "string"),
);

