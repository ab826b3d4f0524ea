/**
 * Bounds both sides of the Python boundary apply to what crosses it: the runner inside Deno
 * checks them first, the host checks them again (it never trusts what Deno sends).
 */

/** Longest host function name that crosses to the runner. */
export const MAX_HOST_NAME_CHARS = 200;
/** Longest argument JSON of one host call. */
export const MAX_HOST_ARGS_CHARS = 1024 * 1024;

/** A relative path without empty, `.` or `..` parts (the rule of a run's files on both sides). */
export function isRelativePath(path: string): boolean {
  return path.length > 0 && path.length <= 4096 && !path.startsWith("/") && path.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}
