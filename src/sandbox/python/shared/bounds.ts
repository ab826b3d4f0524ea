/**
 * Bounds both sides of the Python boundary apply to what crosses it: the runner inside Deno
 * checks them first, the host checks them again (it never trusts what Deno sends).
 */

/** Longest line of a session image the host reads (base64 of its pages and files): the runner refuses a bigger image before sending it. */
export const MAX_SESSION_IMAGE_LINE_BYTES = 256 * 1024 * 1024;

/** Longest host function name that crosses to the runner. */
export const MAX_HOST_NAME_CHARS = 200;
/** Longest argument JSON of one host call. */
export const MAX_HOST_ARGS_CHARS = 1024 * 1024;

/** A relative path without empty, `.` or `..` parts (the rule of a run's files on both sides). */
export function isRelativePath(path: string): boolean {
  return path.length > 0 && path.length <= 4096 && !path.startsWith("/") && path.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}

/** Clock readings a run records at most (`MAX_RECORDED_CLOCK_READS` of the public types; Deno cannot import that module). */
export const MAX_CLOCK_READS = 10_000;

/**
 * Top-level directories of the interpreter's own file system: with `filesAtRoot` they are not
 * files of the run (never written from `files`, never read back).
 */
export const INTERPRETER_DIRECTORIES: readonly string[] = ["dev", "home", "lib", "proc", "tmp"];

/** Longest encoded value of one test's part (value-encoder.ts's JSON text) that crosses. */
export const MAX_TEST_VALUE_CHARS = 256 * 1024;
/** Longest total of the encoded values of one run's tests; later values are sent as cut. */
export const MAX_TEST_VALUES_TOTAL_CHARS = 2 * 1024 * 1024;
/** Nodes plus text characters the encoder spends on one value before it cuts. */
export const TEST_VALUE_BUDGET = 20_000;
