/**
 * Compiler messages reworded for the sandbox: TypeScript's advice to change a compiler option
 * (`lib`, `target`, `types`) or install type packages is advice the model cannot follow, so it
 * is replaced by what is true here: the engine lacks the built-in, or the sandbox has no DOM,
 * Node.js or test framework.
 */

/** Sentences of TypeScript's messages that send the reader to the compiler's settings or to npm. */
const COMPILER_ADVICE = [
  /\s*Do you need to change your target library\?[^]*$/,
  /\s*Do you need to install type definitions[^]*$/,
  /\s*Try changing the '[^']+' compiler option[^]*$/,
  /\s*Try `npm i[^]*$/,
  /\s*and then add '[^']+' to the types field in your tsconfig\.?/,
  /\s*Consider (?:changing|setting|adding) the '[^']+' (?:compiler )?option[^]*$/,
  /\s*(?:Set|Use) the '[^']+' (?:compiler )?option[^]*$/,
];

const NO_DOM = "The sandbox has no DOM (no document, window or fetch).";
const NO_NODE = "The sandbox has no Node.js APIs (no require, process, Buffer or fs).";
const NO_TEST_FRAMEWORK = "The sandbox has no test framework: check results with plain code that throws.";
const NOT_IN_ENGINE = "The sandbox's engine (QuickJS) does not provide it: write it another way.";

/**
 * `message` (TypeScript diagnostic `code`) without advice about compiler options or packages,
 * with what holds in the sandbox instead.
 *
 * @example
 * ```ts
 * withSandboxAdvice(2550, "Property 'fromAsync' does not exist on type 'ArrayConstructor'. Do you need to change your target library? Try changing the 'lib' compiler option to 'esnext' or later.");
 * // "Property 'fromAsync' does not exist on type 'ArrayConstructor'. The sandbox's engine (QuickJS) does not provide it: write it another way."
 * ```
 */
export function withSandboxAdvice(code: number, message: string): string {
  let text = message;
  for (const advice of COMPILER_ADVICE) text = text.replace(advice, "");
  if (text === message) return message;
  text = text.trim();
  if (!/[.!?]$/.test(text)) text += ".";
  return `${text} ${hintFor(code, message)}`;
}

function hintFor(code: number, message: string): string {
  if (/\bdom\b/i.test(message) || code === 2584) return NO_DOM;
  if (/@types\/node|\bnode\b/i.test(message) || code === 2580 || code === 2591) return NO_NODE;
  if (/jest|mocha|@types\/(?:jest|mocha)/i.test(message) || code === 2582 || code === 2593) return NO_TEST_FRAMEWORK;
  return NOT_IN_ENGINE;
}
