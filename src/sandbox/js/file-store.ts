/**
 * The virtual files of one run, held by the worker (outside the guest's memory) and checked
 * there: relative paths only, at most `maxFileBytes` per file and `maxTotalFileBytes` in all
 * (paths count too, so a flood of empty files is bounded). The host checks the final set
 * again when it arrives (engine-worker.ts), because it trusts nothing out of the worker.
 */

/** Longest path accepted, in characters. */
export const MAX_PATH_CHARS = 1024;

/** Caps of a run's files. */
export interface FileLimits {
  maxFileBytes: number;
  maxTotalFileBytes: number;
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
  return undefined;
}

/** A refusal the guest sees as an exception. */
export class FileError extends Error {
  override name = "FileError";
}

/** A run's files (see the module comment). */
export class FileStore {
  private readonly files = new Map<string, Uint8Array>();
  private totalBytes = 0;

  constructor(
    initial: Record<string, Uint8Array>,
    readonly limits: FileLimits,
  ) {
    for (const [path, content] of Object.entries(initial)) {
      this.files.set(path, content);
      this.totalBytes += fileCost(path, content);
    }
  }

  read(path: unknown): Uint8Array {
    const p = this.checkPath(path, "read");
    const content = this.files.get(p);
    if (!content) throw new FileError(`files.read: no file ${p} (files.list() gives the files there are)`);
    return content;
  }

  /** Checks that `bytes` more may be written to `path` before the caller copies them. */
  assertFits(path: unknown, bytes: number): string {
    const p = this.checkPath(path, "write");
    if (bytes > this.limits.maxFileBytes) {
      throw new FileError(`files.write: ${p} would be ${bytes} bytes, over the ${this.limits.maxFileBytes}-byte limit per file (maxFileBytes); write less`);
    }
    const old = this.files.get(p);
    const total = this.totalBytes - (old ? fileCost(p, old) : 0) + Buffer.byteLength(p) + bytes;
    if (total > this.limits.maxTotalFileBytes) {
      throw new FileError(`files.write: the files would take ${total} bytes, over the ${this.limits.maxTotalFileBytes}-byte limit for all files (maxTotalFileBytes); delete or shrink files`);
    }
    return p;
  }

  write(path: unknown, content: Uint8Array): void {
    const p = this.assertFits(path, content.byteLength);
    const old = this.files.get(p);
    this.totalBytes += fileCost(p, content) - (old ? fileCost(p, old) : 0);
    this.files.set(p, content);
  }

  list(): string[] {
    return [...this.files.keys()].sort();
  }

  exists(path: unknown): boolean {
    return typeof path === "string" && this.files.has(path);
  }

  delete(path: unknown): boolean {
    const p = this.checkPath(path, "delete");
    const old = this.files.get(p);
    if (!old) return false;
    this.totalBytes -= fileCost(p, old);
    this.files.delete(p);
    return true;
  }

  /** The file set now, as plain bytes (sent to the host at the end of the run). */
  snapshot(): Record<string, Uint8Array> {
    const out: Record<string, Uint8Array> = {};
    for (const path of this.list()) out[path] = this.files.get(path)!;
    return out;
  }

  private checkPath(path: unknown, op: string): string {
    const bad = invalidPathReason(path);
    if (bad) throw new FileError(`files.${op}: the path ${JSON.stringify(String(path).slice(0, 100))} is not valid: ${bad}`);
    return path as string;
  }
}
