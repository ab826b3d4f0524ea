/** Errors of the Python engine's host side (never failures of user code). */
import { CodeGenSandboxError } from "../../../errors.js";

/**
 * The Python engine cannot start: a package or binary is missing, or the interpreter process
 * failed to come up. Says what is missing and how to fix it.
 *
 * @example
 * throw new EngineSetupError("the `deno` package is not installed; run `npm install deno@2.9.6`");
 */
export class EngineSetupError extends CodeGenSandboxError {
  override name = "EngineSetupError";
  constructor(
    readonly problem: string,
    cause?: unknown,
  ) {
    super(`The Python engine cannot start: ${problem}.`, cause === undefined ? undefined : { cause });
  }
}
