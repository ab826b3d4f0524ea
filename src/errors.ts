/**
 * Errors thrown for misuse by the caller or faults of the host. Failures of user code are
 * never thrown: they are `ExecutionResult` statuses.
 * One class per failure mode, each with structured fields and a message that says what to do.
 */

/** Base of every error this package throws. */
export class CodegenSandboxError extends Error {
  override name = "CodegenSandboxError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** An option or argument has a bad value. Names the option, what was given and what is allowed. */
export class InvalidOptionError extends CodegenSandboxError {
  override name = "InvalidOptionError";
  constructor(
    readonly option: string,
    readonly received: unknown,
    readonly expected: string,
  ) {
    super(`Invalid option "${option}": got ${describeValue(received)}; expected ${expected}.`);
  }
}

/** A sandbox, session or generator was used after `dispose()`/`cleanup()`. */
export class SandboxDisposedError extends CodegenSandboxError {
  override name = "SandboxDisposedError";
  constructor(readonly what: string) {
    super(`${what} was used after it was disposed; create a new one.`);
  }
}

/** Short, bounded rendering of a value for error messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "function") return "a function";
  if (typeof value === "bigint") return `${value}n`;
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  // errors.ts imports nothing of ours (it is the bottom of the house), so this short rendering
  // of a value has its own bound instead of the feedback module's truncation rule.
  return text.length <= 80 ? text : `${text.slice(0, 77)}...`;
}

/** A sandbox session ended (its run timed out, ran out of memory, or its engine crashed). */
export class SandboxSessionEndedError extends CodegenSandboxError {
  override name = "SandboxSessionEndedError";
  constructor(readonly reason: string) {
    super(`This sandbox session has ended (${reason}); its state is gone. Create a new session and run the code again.`);
  }
}

/** A language engine could not be loaded (e.g. its module is missing from this build). */
export class EngineUnavailableError extends CodegenSandboxError {
  override name = "EngineUnavailableError";
  constructor(
    readonly language: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`The ${language} engine is not available: ${detail}`, options);
  }
}
