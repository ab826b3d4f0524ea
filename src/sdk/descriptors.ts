/**
 * Default descriptors: the hints every generation gets unless the caller turns them off.
 */
import { InvalidOptionError } from "../errors.js";
import type { Language } from "../sandbox/types.js";
import type { Descriptors } from "./generator-api.js";
import { templateText, type CodeTemplate } from "./templates.js";

const GLOBALS: Record<Language, string> = {
  javascript: "globalSettings, globalParameters and globalState",
  typescript: "globalSettings, globalParameters and globalState (declare them with `declare const`)",
  python: "global_settings, global_parameters and global_state (also as globalSettings, globalParameters, globalState)",
};

/**
 * The default descriptors for `language` and `template`: language, output form, structure,
 * environment and the template text.
 *
 * @example
 * ```ts
 * defaultDescriptors("javascript", DEFAULT_TEMPLATE).language; // "javascript"
 * ```
 */
export function defaultDescriptors(language: Language, template: CodeTemplate): Descriptors {
  const descriptors: Descriptors = {
    language,
    style: "the whole program in one fenced code block tagged with the language, no explanations",
    structure:
      language === "python"
        ? "define each function the task names with def at module level, under exactly that name"
        : "define each function the task names as a top-level function declaration under exactly that name; no import or export statements",
    environment: `a sandbox without files, network, timers or third-party packages; the JSON globals ${GLOBALS[language]} hold the caller's configuration`,
  };
  const text = templateText(template, language);
  if (text !== undefined) {
    descriptors.template = template.evalClassName
      ? `when the task describes a rule, policy or evaluation, implement it by completing this class (keep its name and the eval signature):\n${text}\n`
      : `follow this template:\n${text}\n`;
  }
  return descriptors;
}

/**
 * Checks a descriptors argument (undefined, or an object of strings) and merges it over the
 * defaults unless `useDefaults` is false.
 *
 * @example
 * ```ts
 * mergeDescriptors({ language: "javascript" }, { style: "concise" }, true); // { language: "javascript", style: "concise" }
 * ```
 */
export function mergeDescriptors(defaults: Descriptors, descriptors: Descriptors | undefined, useDefaults: boolean): Descriptors {
  if (descriptors !== undefined) {
    const valid =
      descriptors !== null && typeof descriptors === "object" && !Array.isArray(descriptors) && Object.values(descriptors).every((v) => typeof v === "string");
    if (!valid) throw new InvalidOptionError("descriptors", descriptors, "an object whose values are strings, e.g. { style: \"concise\" }");
  }
  return useDefaults ? { ...defaults, ...descriptors } : { ...descriptors };
}
