/**
 * The rules of a run's virtual files, applied on both sides of the worker boundary: the worker's
 * FileStore checks every write as the guest makes it; the host checks the final set again when
 * it arrives (host/worker-client.ts), because it trusts nothing out of the worker.
 */

/** Longest path accepted, in characters. */
export const MAX_PATH_CHARS = 1024;

/** Caps of a run's files. */
export interface FileLimits {
  maxFileBytes: number;
  maxTotalFileBytes: number;
  /** Paths are absolute (`/notes.txt`) in the `files` API; the set's keys stay relative. */
  filesAtRoot?: boolean;
}

/**
 * Why `path` is not a valid file path, or `undefined` when it is: relative, `/`-separated,
 * without `.`, `..` or empty parts, NUL or backslash, at most MAX_PATH_CHARS long.
 *
 * @example
 * invalidPathReason("data/in.csv"); // undefined
 * invalidPathReason("../etc/passwd"); // "it has a '..' part"
 */
export function invalidPathReason(path: unknown): string | undefined {
  if (typeof path !== "string") return "it is not a string";
  if (path === "") return "it is empty";
  if (path.length > MAX_PATH_CHARS) return `it is longer than ${MAX_PATH_CHARS} characters`;
  if (path.startsWith("/")) return "it is absolute (paths are relative to the working directory)";
  if (path.includes("\0") || path.includes("\\")) return "it contains a NUL or a backslash";
  for (const part of path.split("/")) {
    if (part === "..") return "it has a '..' part";
    if (part === "." || part === "") return "it has an empty or '.' part";
  }
  return undefined;
}

/**
 * Why a set of paths cannot all be files, or `undefined`: a path that is also the directory of
 * another (`a` and `a/b`) cannot exist in a file system (Python could not place them).
 */
export function pathConflictReason(paths: Iterable<string>): string | undefined {
  const all = new Set(paths);
  for (const path of all) {
    for (let slash = path.indexOf("/"); slash > 0; slash = path.indexOf("/", slash + 1)) {
      const parent = path.slice(0, slash);
      if (all.has(parent)) return `${parent.slice(0, 200)} is a file, so ${path.slice(0, 200)} cannot be a file under it`;
    }
  }
  return undefined;
}

/** Bytes a file counts against `maxTotalFileBytes`: its content plus its path. */
export function fileCost(path: string, content: Uint8Array): number {
  return Buffer.byteLength(path) + content.byteLength;
}

/**
 * Why a file set breaks `limits` or holds something that is not a file, or `undefined` when it
 * is valid (used by the host on what a worker sends back).
 */
export function invalidFileSetReason(files: unknown, limits: FileLimits): string | undefined {
  if (files === null || typeof files !== "object" || Array.isArray(files)) return "the file set is not an object";
  let total = 0;
  for (const [path, content] of Object.entries(files)) {
    const bad = invalidPathReason(path);
    if (bad) return `the path ${JSON.stringify(path.slice(0, 100))} is not valid: ${bad}`;
    if (!(content instanceof Uint8Array)) return `the file ${path} does not hold bytes`;
    if (content.byteLength > limits.maxFileBytes) return `the file ${path} is ${content.byteLength} bytes, over the maxFileBytes limit of ${limits.maxFileBytes}`;
    total += fileCost(path, content);
    if (total > limits.maxTotalFileBytes) return `the files are over the maxTotalFileBytes limit of ${limits.maxTotalFileBytes} bytes`;
  }
  return pathConflictReason(Object.keys(files));
}
