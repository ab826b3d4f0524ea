/**
 * Templates: the shape the generated code should take. The default one is a class whose
 * `eval(parameters, inputData, context)` method `executeFunction` calls.
 */
import { InvalidOptionError } from "../errors.js";
import type { Language } from "../sandbox/types.js";

/** A template with its text per language and the class whose `eval` method is the entry point. */
export interface CodeTemplate {
  /** Name used in error messages. */
  name: string;
  /** Template text, per language or one text for all. */
  text: string | Partial<Record<Language, string>>;
  /**
   * Class that `executeFunction` instantiates with `(globalSettings, globalParameters,
   * globalState)` and whose `eval(parameters, inputData, context)` it calls. Leave out for a
   * template without an entry point; it is read from a string template's text.
   */
  evalClassName?: string;
}

/** What callers may pass as a template: a `CodeTemplate`, or the template text itself. */
export type TemplateInput = CodeTemplate | string;

const JS_TEMPLATE = `class GeneratedPolicy {
  constructor(globalSettings, globalParameters, globalState) {
    this.settings = globalSettings;
    this.parameters = globalParameters;
    this.state = globalState;
  }

  // Returns a JSON value computed from the parameters, the input data and the context.
  eval(parameters, inputData, context) {
  }
}`;

const TS_TEMPLATE = `type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

class GeneratedPolicy {
  constructor(
    private settings: Record<string, Json>,
    private parameters: Record<string, Json>,
    private state: Record<string, Json>,
  ) {}

  // Returns a JSON value computed from the parameters, the input data and the context.
  eval(parameters: Record<string, Json>, inputData: Record<string, Json>, context: Record<string, Json>): Json {
    return null;
  }
}`;

const PY_TEMPLATE = `class GeneratedPolicy:
    def __init__(self, global_settings, global_parameters, global_state):
        self.settings = global_settings
        self.parameters = global_parameters
        self.state = global_state

    # Returns a JSON value computed from the parameters, the input data and the context.
    def eval(self, parameters, input_data, context):
        pass`;

/**
 * The default template: class `GeneratedPolicy` with a constructor taking the global settings,
 * parameters and state, and `eval(parameters, inputData, context)`.
 *
 * @example
 * ```ts
 * templateText(DEFAULT_TEMPLATE, "python"); // "class GeneratedPolicy:\n    def __init__(..."
 * ```
 */
export const DEFAULT_TEMPLATE: CodeTemplate = {
  name: "default",
  text: { javascript: JS_TEMPLATE, typescript: TS_TEMPLATE, python: PY_TEMPLATE },
  evalClassName: "GeneratedPolicy",
};

// A method definition (not a call): `eval(...) {` in JS, `eval(...): T {` in TS, `def eval(` in Python.
const EVAL_METHOD_JS = /(?:^|[{;}])\s*(?:async\s+)?eval\s*\([^)]*\)\s*(?::[^{;]*)?\{/m;
const EVAL_METHOD_PY = /^\s*(?:async\s+)?def\s+eval\s*\(/m;

/**
 * Finds the class of `text` that has an `eval` method: the entry point of `executeFunction`.
 * Returns undefined when no class has one.
 *
 * @example
 * ```ts
 * findEvalClass("class Rule {\n  eval(p, i, c) { return 1; }\n}"); // "Rule"
 * ```
 */
export function findEvalClass(text: string): string | undefined {
  const classPattern = /^([ \t]*)class\s+([A-Za-z_$][\w$]*)/gm;
  const classes = [...text.matchAll(classPattern)];
  for (const [index, match] of classes.entries()) {
    const end = classes[index + 1]?.index ?? text.length;
    const body = text.slice(match.index! + match[0].length, end);
    if (EVAL_METHOD_JS.test(body) || EVAL_METHOD_PY.test(body)) return match[2];
  }
  return undefined;
}

/**
 * Checks a template option and returns it as a `CodeTemplate` (a string becomes a template for
 * every language, its eval class found in the text). Throws `InvalidOptionError` otherwise.
 *
 * @example
 * ```ts
 * resolveTemplate("class MyRule { eval(p, i, c) { return p; } }").evalClassName; // "MyRule"
 * ```
 */
export function resolveTemplate(template: TemplateInput | undefined): CodeTemplate {
  if (template === undefined) return DEFAULT_TEMPLATE;
  if (typeof template === "string") {
    const evalClassName = findEvalClass(template);
    return evalClassName === undefined ? { name: "custom", text: template } : { name: "custom", text: template, evalClassName };
  }
  const validText =
    typeof template?.text === "string" ||
    (template?.text !== null && typeof template?.text === "object" && Object.values(template.text).every((t) => typeof t === "string"));
  if (template === null || typeof template !== "object" || typeof template.name !== "string" || !validText) {
    throw new InvalidOptionError("template", template, "template text (a string) or { name, text: string | { javascript?, typescript?, python? }, evalClassName? }");
  }
  return template;
}

/** The template's text for `language`, or undefined when it has none for that language. */
export function templateText(template: CodeTemplate, language: Language): string | undefined {
  if (typeof template.text === "string") return template.text;
  // TypeScript accepts JavaScript text: a template written for one fits both.
  return template.text[language] ?? (language === "typescript" ? template.text.javascript : undefined);
}
