/**
 * The virtual files of one run, held by the worker (outside the guest's memory) and checked
 * there: relative paths only (or absolute ones, with `filesAtRoot`), at most `maxFileBytes` per
 * file and `maxTotalFileBytes` in all (paths count too, so a flood of empty files is bounded),
 * and never a file where another file needs a directory (`a` and `a/b`). The rules live in
 * shared/file-rules.ts: the host checks the final set again with them.
 */
import { fileCost, invalidPathReason, type FileLimits } from "../shared/file-rules.js";

/** A refusal the guest sees as an exception. */
export class FileError extends Error {
  override name = "FileError";
}

/** A run's files (see the module comment). */
export class FileStore {
  private readonly files = new Map<string, Uint8Array>();
  /** Directories implied by the files' paths, with how many files each holds (at any depth). */
  private readonly directories = new Map<string, number>();
  private totalBytes = 0;

  constructor(
    initial: Record<string, Uint8Array>,
    readonly limits: FileLimits,
  ) {
    for (const [path, content] of Object.entries(initial)) {
      this.files.set(path, content);
      this.addDirectories(path, 1);
      this.totalBytes += fileCost(path, content);
    }
  }

  private addDirectories(path: string, delta: number): void {
    for (let slash = path.indexOf("/"); slash > 0; slash = path.indexOf("/", slash + 1)) {
      const dir = path.slice(0, slash);
      const count = (this.directories.get(dir) ?? 0) + delta;
      if (count === 0) this.directories.delete(dir);
      else this.directories.set(dir, count);
    }
  }

  read(path: unknown): Uint8Array {
    const p = this.checkPath(path, "read");
    const content = this.files.get(p);
    if (!content) throw new FileError(`files.read: no file ${this.shown(p)} (files.list() gives the files there are)`);
    return content;
  }

  /** Checks that `bytes` more may be written to `path` before the caller copies them. */
  assertFits(path: unknown, bytes: number): string {
    const p = this.checkPath(path, "write");
    if (bytes > this.limits.maxFileBytes) {
      throw new FileError(`files.write: ${this.shown(p)} would be ${bytes} bytes, over the ${this.limits.maxFileBytes}-byte limit per file (maxFileBytes); write less`);
    }
    if (this.directories.has(p)) throw new FileError(`files.write: ${this.shown(p)} is a directory (files are under it): choose another name`);
    for (let slash = p.indexOf("/"); slash > 0; slash = p.indexOf("/", slash + 1)) {
      const parent = p.slice(0, slash);
      if (this.files.has(parent)) throw new FileError(`files.write: ${this.shown(parent)} is a file, so ${this.shown(p)} cannot be written under it: choose another name or delete ${this.shown(parent)}`);
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
    if (!old) this.addDirectories(p, 1);
    this.files.set(p, content);
  }

  /** Paths of every file, sorted (absolute with `filesAtRoot`). */
  list(): string[] {
    return [...this.files.keys()].sort().map((p) => this.shown(p));
  }

  exists(path: unknown): boolean {
    const p = this.normal(path);
    return typeof p === "string" && this.files.has(p);
  }

  delete(path: unknown): boolean {
    const p = this.checkPath(path, "delete");
    const old = this.files.get(p);
    if (!old) return false;
    this.totalBytes -= fileCost(p, old);
    this.files.delete(p);
    this.addDirectories(p, -1);
    return true;
  }

  /** The file set now, as plain bytes (sent to the host at the end of the run). */
  snapshot(): Record<string, Uint8Array> {
    // fromEntries defines own properties: a file named "__proto__" stays a file.
    return Object.fromEntries([...this.files.keys()].sort().map((path) => [path, this.files.get(path)!]));
  }

  /** The key of a path the guest gave: with `filesAtRoot`, `/a/b` (and `a/b`) is `a/b`. */
  private normal(path: unknown): unknown {
    return this.limits.filesAtRoot && typeof path === "string" && path.startsWith("/") ? path.slice(1) : path;
  }

  /** A key as the guest sees it. */
  private shown(key: string): string {
    return this.limits.filesAtRoot ? `/${key}` : key;
  }

  private checkPath(path: unknown, op: string): string {
    const p = this.normal(path);
    const bad = invalidPathReason(p);
    if (bad) throw new FileError(`files.${op}: the path ${JSON.stringify(String(path).slice(0, 100))} is not valid: ${bad}`);
    return p as string;
  }
}
