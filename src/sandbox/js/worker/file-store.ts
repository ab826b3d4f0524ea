/**
 * The virtual files of one run, held by the worker (outside the guest's memory) and checked
 * there: relative paths only, at most `maxFileBytes` per file and `maxTotalFileBytes` in all
 * (paths count too, so a flood of empty files is bounded). The rules live in shared/file-rules.ts:
 * the host checks the final set again with them.
 */
import { fileCost, invalidPathReason, type FileLimits } from "../shared/file-rules.js";

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
    // fromEntries defines own properties: a file named "__proto__" stays a file.
    return Object.fromEntries(this.list().map((path) => [path, this.files.get(path)!]));
  }

  private checkPath(path: unknown, op: string): string {
    const bad = invalidPathReason(path);
    if (bad) throw new FileError(`files.${op}: the path ${JSON.stringify(String(path).slice(0, 100))} is not valid: ${bad}`);
    return path as string;
  }
}
