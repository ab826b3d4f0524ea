/** Errors of the evaluation harness: a task file that cannot be read as tasks. */
import { CodeGenSandboxError } from "../errors.js";

/**
 * A task file (JSONL) has a line that is not a task of the expected format. Names the file,
 * the 1-based line and what is wrong, so the line can be fixed.
 */
export class InvalidTaskFileError extends CodeGenSandboxError {
  override name = "InvalidTaskFileError";
  constructor(
    readonly file: string,
    readonly line: number,
    readonly problem: string,
  ) {
    super(`Task file ${file}, line ${line}: ${problem}.`);
  }
}

/**
 * The model gave no answer at all on the first task of an evaluation (every attempt ended in
 * `model_error`), so the remaining tasks would only fail the same way after the same waits.
 */
export class EvalModelUnavailableError extends CodeGenSandboxError {
  override name = "EvalModelUnavailableError";
  constructor(
    readonly taskId: string,
    readonly reason: string,
  ) {
    super(
      `Stopped the evaluation: the model did not answer on task ${taskId} (${reason}). ` +
        `Check --model, CODEGEN_MODEL, OPENAI_BASE_URL and OPENAI_API_KEY, then run it again.`,
    );
  }
}
