/**
 * Errors of the Code Generator SDK: one class per way a caller can misuse it, or per way the
 * generated code or the model backend can fail it.
 */
import { CodeGenSandboxError } from "../errors.js";
import type { CheckResult, ExecutionResult } from "../sandbox/types.js";
import { describeError } from "../feedback/quote.js";
import { describeTypeErrors, type FailedValidation } from "../feedback/explain.js";

function listNames(names: readonly string[]): string {
  return names.length === 0 ? "none" : names.map((n) => `"${n}"`).join(", ");
}

/** No generator is registered under this name. */
export class UnknownGeneratorError extends CodeGenSandboxError {
  override name = "UnknownGeneratorError";
  constructor(readonly generatorName: string, readonly knownNames: readonly string[]) {
    super(`No code generator is registered as "${generatorName}". Registered: ${listNames(knownNames)}. Call register("${generatorName}", generator) first.`);
  }
}

/** A generator is already registered under this name. */
export class DuplicateGeneratorError extends CodeGenSandboxError {
  override name = "DuplicateGeneratorError";
  constructor(readonly generatorName: string) {
    super(`A code generator is already registered as "${generatorName}". Pick another name, or cleanup("${generatorName}") and unregister("${generatorName}") first.`);
  }
}

/** `executeFunction` was used with a template that has no `eval` method. */
export class TemplateWithoutEvalError extends CodeGenSandboxError {
  override name = "TemplateWithoutEvalError";
  constructor(readonly templateName: string) {
    super(`Template "${templateName}" defines no class with an eval(parameters, inputData, context) method, so executeFunction has nothing to call. Use the default template or one with such a class, or call the generated functions with instance.call(name, ...args).`);
  }
}

/** The generated code does not define the function that was called. */
export class UnknownFunctionError extends CodeGenSandboxError {
  override name = "UnknownFunctionError";
  constructor(readonly functionName: string, readonly knownNames: readonly string[]) {
    super(`The generated code defines no function "${functionName}". It defines: ${listNames(knownNames)}.`);
  }
}

/** `executeFunction` (or an instance call) before `generateAndInstantiate`. */
export class NotInstantiatedError extends CodeGenSandboxError {
  override name = "NotInstantiatedError";
  constructor(readonly what: string) {
    super(`${what} has no live instance: call generateAndInstantiate(task) first.`);
  }
}

/** The generated code did not pass validation or failed while being loaded (after any repair). */
export class GeneratedCodeError extends CodeGenSandboxError {
  override name = "GeneratedCodeError";
  constructor(
    readonly phase: "validate" | "instantiate",
    readonly code: string,
    readonly outcome: CheckResult | FailedValidation | ExecutionResult,
    readonly attempts: number,
  ) {
    const error = "error" in outcome ? outcome.error : undefined;
    const status = "status" in outcome ? outcome.status : "invalid";
    const details = "diagnostics" in outcome ? describeTypeErrors(outcome.diagnostics, code) : error ? describeError(error, code) : "no details";
    super(
      `The generated code ${phase === "validate" ? "did not pass validation" : "failed while loading"} after ${attempts} attempt(s): ${status}: ${details}. Make the task more precise, add descriptors, or use a stronger model; the code is in error.code.`,
    );
  }
}

/** A call of a generated function ended with a failed run (an error thrown, a limit hit). */
export class GeneratedFunctionError extends CodeGenSandboxError {
  override name = "GeneratedFunctionError";
  constructor(readonly functionName: string, readonly result: ExecutionResult) {
    const error = result.error;
    super(`Generated function "${functionName}" failed with ${result.status}: ${error ? describeError(error, "") : "no details"}. The full run is in error.result.`);
  }
}

/** The model backend failed (network error, bad reply, server error). */
export class GeneratorBackendError extends CodeGenSandboxError {
  override name = "GeneratorBackendError";
  constructor(readonly backend: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`The code generator backend "${backend}" failed: ${reason}. Check that the model server is running and returns code.`, { cause });
  }
}
