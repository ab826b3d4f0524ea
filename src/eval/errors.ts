/** Errors of the evaluation harness: a task file that cannot be read as tasks. */
import { CodegenSandboxError } from "../errors.js";

/**
 * A task file (JSONL) has a line that is not a task of the expected format. Names the file,
 * the 1-based line and what is wrong, so the line can be fixed.
 */
export class InvalidTaskFileError extends CodegenSandboxError {
  override name = "InvalidTaskFileError";
  constructor(
    readonly file: string,
    readonly line: number,
    readonly problem: string,
  ) {
    super(`Task file ${file}, line ${line}: ${problem}.`);
  }
}
