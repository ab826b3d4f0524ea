/**
 * The sandbox's own file store, on the host: absolute paths (`/notes.txt`) to bytes or
 * directories, with caps on bytes, entries and names. It is the one source of truth: the file
 * operations of `CodeGenSandbox` work on it directly, and the shell's worker gets a copy of it
 * before each command and gives back what the command changed, which is checked here before it
 * is applied (all or nothing). Nothing here touches the host's disk.
 */
import type { StoreLimits } from "./options.js";
import type { ReplicaChanges, WireEntry } from "./protocol.js";

/** Longest path accepted, in characters. */
export const MAX_STORE_PATH_CHARS = 4096;
/** Longest name of one file or directory, in UTF-8 bytes (as on Linux). */
export const MAX_NAME_BYTES = 255;
/** Deepest nesting of directories (the Python engine reads back 32 levels). */
export const MAX_PATH_DEPTH = 32;

/** A file or a directory of the store. Times are milliseconds since the epoch. */
export type StoreEntry =
  | { kind: "file"; bytes: Uint8Array; createdMs: number; modifiedMs: number }
  | { kind: "dir"; createdMs: number; modifiedMs: number };

/** Why an operation was refused, in deepagents' error vocabulary plus what to do. */
export interface StoreError {
  code: "invalid_path" | "is_directory" | "not_a_directory" | "too_large" | "full";
  message: string;
}

const encoder = new TextEncoder();

/**
 * The canonical form of a path, or why it is not one: absolute (a relative path is taken from
 * `/`), `/`-separated, `.` and empty parts dropped, no `..` part, no NUL, bounded in length,
 * name size and depth. `/` is the root.
 *
 * @example
 * normalizePath("/a//b/./c.txt"); // { path: "/a/b/c.txt" }
 * normalizePath("/a/../etc/passwd"); // { error: "... '..' ..." }
 */
export function normalizePath(path: unknown): { path: string } | { error: string } {
  if (typeof path !== "string") return { error: "the path is not a string" };
  if (path.length > MAX_STORE_PATH_CHARS) return { error: `the path is longer than ${MAX_STORE_PATH_CHARS} characters` };
  if (path.includes("\0")) return { error: "the path contains a NUL character" };
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") return { error: "the path has a '..' part (paths cannot leave the sandbox's root; use an absolute path such as /notes.txt)" };
    if (encoder.encode(part).byteLength > MAX_NAME_BYTES) return { error: `a name in the path is longer than ${MAX_NAME_BYTES} bytes` };
    parts.push(part);
  }
  if (parts.length > MAX_PATH_DEPTH) return { error: `the path is nested deeper than ${MAX_PATH_DEPTH} directories` };
  return { path: "/" + parts.join("/") };
}

/** The directory that holds `path` (`/` for a top-level entry). */
export function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash <= 0 ? "/" : path.slice(0, slash);
}

/** `path` itself and every directory above it, up to (not including) `/`, outermost first. */
function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let p = parentOf(path); p !== "/"; p = parentOf(p)) out.unshift(p);
  return out;
}

/** Bytes an entry counts against `maxTotalFileBytes`: its content plus its path. */
function cost(path: string, entry: StoreEntry): number {
  return encoder.encode(path).byteLength + (entry.kind === "file" ? entry.bytes.byteLength : 0);
}

/** True when `path` is `dir` or lies under it. */
export function isWithin(path: string, dir: string): boolean {
  return dir === "/" || path === dir || path.startsWith(dir + "/");
}

/** The file store (see the module comment). */
export class FileStore {
  private entries = new Map<string, StoreEntry>();
  private totalBytes = 0;
  /** Paths written or removed through this store since the shell's replica last synced. */
  private changed = new Set<string>();
  /**
   * The entries as the replica got them at its last sync. The replica reports whole trees
   * it compared (after `cp -r`, `mv`, or many removals), so an entry it reports unchanged
   * from here is not a change of the command: applying it would revert what a file
   * operation did while the command ran (deepagents runs one turn's tool calls at once).
   */
  private syncBase = new Map<string, StoreEntry>();

  constructor(readonly limits: StoreLimits) {}

  /** Number of files and directories held. */
  get size(): number {
    return this.entries.size;
  }

  /** The entry at a canonical path (`/` is a directory that is never stored). */
  get(path: string): StoreEntry | undefined {
    return this.entries.get(path);
  }

  /** True when a canonical path names a directory (the root always does). */
  isDirectory(path: string): boolean {
    return path === "/" || this.entries.get(path)?.kind === "dir";
  }

  /** The entries directly inside a directory, sorted by path. */
  children(dir: string): Array<[string, StoreEntry]> {
    const prefix = dir === "/" ? "/" : dir + "/";
    const out: Array<[string, StoreEntry]> = [];
    for (const [path, entry] of this.entries) {
      if (path.startsWith(prefix) && !path.includes("/", prefix.length)) out.push([path, entry]);
    }
    return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** Every entry at or under a path, sorted by path. */
  within(dir: string): Array<[string, StoreEntry]> {
    const out: Array<[string, StoreEntry]> = [];
    for (const [path, entry] of this.entries) if (isWithin(path, dir)) out.push([path, entry]);
    return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /**
   * Creates or replaces a file (and the directories above it). Keeps the creation time of a
   * file it replaces.
   */
  writeFile(path: string, bytes: Uint8Array, nowMs = Date.now()): StoreError | undefined {
    if (path === "/") return { code: "is_directory", message: "/ is the root directory, not a file" };
    const existing = this.entries.get(path);
    if (existing?.kind === "dir") return { code: "is_directory", message: `${path} is a directory` };
    if (bytes.byteLength > this.limits.maxFileBytes) {
      return { code: "too_large", message: `the file would hold ${bytes.byteLength} bytes, over the ${this.limits.maxFileBytes}-byte maxFileBytes limit` };
    }
    const missing: string[] = [];
    for (const dir of ancestors(path)) {
      const entry = this.entries.get(dir);
      if (entry?.kind === "file") return { code: "not_a_directory", message: `${dir} is a file, so ${path} cannot be created under it` };
      if (!entry) missing.push(dir);
    }
    const file: StoreEntry = { kind: "file", bytes, createdMs: existing?.createdMs ?? nowMs, modifiedMs: nowMs };
    const newEntries = missing.length + (existing ? 0 : 1);
    if (this.entries.size + newEntries > this.limits.maxFiles) {
      return { code: "full", message: `the sandbox holds ${this.entries.size} files and directories; maxFiles is ${this.limits.maxFiles}` };
    }
    let delta = cost(path, file) - (existing ? cost(path, existing) : 0);
    for (const dir of missing) delta += cost(dir, { kind: "dir", createdMs: nowMs, modifiedMs: nowMs });
    if (this.totalBytes + delta > this.limits.maxTotalFileBytes) {
      return { code: "full", message: `the files would hold ${this.totalBytes + delta} bytes, over the ${this.limits.maxTotalFileBytes}-byte maxTotalFileBytes limit` };
    }
    for (const dir of missing) this.put(dir, { kind: "dir", createdMs: nowMs, modifiedMs: nowMs });
    this.put(path, file);
    return undefined;
  }

  /** Removes a path and everything under it; returns the paths removed (none when absent). */
  remove(path: string): string[] {
    const removed = path === "/" ? [...this.entries.keys()] : [...this.entries.keys()].filter((p) => isWithin(p, path));
    for (const p of removed) {
      this.totalBytes -= cost(p, this.entries.get(p)!);
      this.entries.delete(p);
      this.changed.add(p);
    }
    return removed;
  }

  /** Every entry, for a full copy into a new replica (which then equals the store). */
  snapshot(): Array<[string, WireEntry]> {
    this.syncBase = new Map(this.entries);
    return [...this.entries].map(([path, entry]) => [path, toWire(entry)]);
  }

  /**
   * What was written or removed through this store since the last call, as changes for the
   * replica (the replica then equals the store again).
   */
  takeChanges(): ReplicaChanges {
    this.syncBase = new Map(this.entries);
    const upserts: Array<[string, WireEntry]> = [];
    const deletes: string[] = [];
    for (const path of [...this.changed].sort()) {
      const entry = this.entries.get(path);
      if (entry) upserts.push([path, toWire(entry)]);
      else deletes.push(path);
    }
    this.changed.clear();
    return { upserts, deletes };
  }

  /** Forgets the recorded changes (the replica is about to get a full snapshot). */
  clearChanges(): void {
    this.changed.clear();
  }

  /**
   * Applies what a command changed in the replica, checked first: every path canonical, every
   * entry well formed, the result within the caps and without a file above another entry.
   * All or nothing; returns why the changes were refused.
   */
  applyReplicaChanges(changes: unknown): string | undefined {
    const checked = checkChanges(changes, this.limits.maxFiles);
    if (typeof checked === "string") return checked;
    const next = new Map(this.entries);
    // One pass with an ancestor walk per entry (depth ≤ 32), not one scan per removed path:
    // 20 000 removed paths over 10 000 entries would hold the host thread for seconds.
    const removed = new Set(checked.deletes);
    if (removed.size > 0) {
      for (const p of [...next.keys()]) if (removed.has(p) || ancestors(p).some((dir) => removed.has(dir))) next.delete(p);
    }
    const unchangedDirs = new Map<string, WireEntry>();
    const applied: string[] = [];
    for (const [path, wire] of checked.upserts) {
      if (sameEntry(this.syncBase.get(path), wire)) {
        if (wire.kind === "dir") unchangedDirs.set(path, wire);
        continue;
      }
      next.set(path, fromWire(wire, next.get(path)));
      applied.push(path);
    }
    // A directory the command left as it was still holds what the command wrote in it, even
    // if a file operation removed it meanwhile.
    for (const path of applied) {
      for (const dir of ancestors(path)) {
        const wire = unchangedDirs.get(dir);
        if (wire !== undefined && !next.has(dir)) next.set(dir, fromWire(wire, undefined));
      }
    }
    let total = 0;
    for (const [path, entry] of next) {
      for (const dir of ancestors(path)) {
        const above = next.get(dir);
        if (above === undefined) return `the directory ${dir.slice(0, 200)} above ${path.slice(0, 200)} is missing`;
        if (above.kind === "file") return `${dir.slice(0, 200)} is a file but holds ${path.slice(0, 200)}`;
      }
      if (entry.kind === "file" && entry.bytes.byteLength > this.limits.maxFileBytes) {
        return `the file ${path.slice(0, 200)} holds ${entry.bytes.byteLength} bytes, over the ${this.limits.maxFileBytes}-byte maxFileBytes limit`;
      }
      total += cost(path, entry);
    }
    if (next.size > this.limits.maxFiles) return `the command left ${next.size} files and directories; maxFiles is ${this.limits.maxFiles}`;
    if (total > this.limits.maxTotalFileBytes) return `the command left ${total} bytes of files, over the ${this.limits.maxTotalFileBytes}-byte maxTotalFileBytes limit`;
    this.entries = next;
    this.totalBytes = total;
    return undefined;
  }

  private put(path: string, entry: StoreEntry): void {
    const old = this.entries.get(path);
    if (old) this.totalBytes -= cost(path, old);
    this.entries.set(path, entry);
    this.totalBytes += cost(path, entry);
    this.changed.add(path);
  }
}

/** True when the replica reports an entry exactly as it got it (kind, time and bytes). */
function sameEntry(base: StoreEntry | undefined, wire: WireEntry): boolean {
  if (base === undefined || base.kind !== wire.kind || base.modifiedMs !== wire.modifiedMs) return false;
  if (base.kind === "dir" || wire.kind === "dir") return true;
  return base.bytes.byteLength === wire.bytes.byteLength && Buffer.from(base.bytes.buffer, base.bytes.byteOffset, base.bytes.byteLength).equals(Buffer.from(wire.bytes.buffer, wire.bytes.byteOffset, wire.bytes.byteLength));
}

function toWire(entry: StoreEntry): WireEntry {
  return entry.kind === "file" ? { kind: "file", bytes: entry.bytes, modifiedMs: entry.modifiedMs } : { kind: "dir", modifiedMs: entry.modifiedMs };
}

function fromWire(wire: WireEntry, old: StoreEntry | undefined): StoreEntry {
  const createdMs = old !== undefined && old.kind === wire.kind ? old.createdMs : wire.modifiedMs;
  return wire.kind === "file"
    ? { kind: "file", bytes: wire.bytes, createdMs, modifiedMs: wire.modifiedMs }
    : { kind: "dir", createdMs, modifiedMs: wire.modifiedMs };
}

/** Checks the shape of changes that came out of the worker (they are data made by a guest). */
function checkChanges(value: unknown, maxFiles: number): { upserts: Array<[string, WireEntry]>; deletes: string[] } | string {
  const v = value as Partial<ReplicaChanges> | null;
  if (v === null || typeof v !== "object" || !Array.isArray(v.upserts) || !Array.isArray(v.deletes)) return "the changes are not well formed";
  if (v.upserts.length > maxFiles * 2 || v.deletes.length > maxFiles * 2) return "the command changed more entries than maxFiles allows";
  for (const path of v.deletes) {
    if (!isCanonical(path)) return `the removed path ${JSON.stringify(String(path).slice(0, 100))} is not a canonical path`;
  }
  for (const item of v.upserts) {
    if (!Array.isArray(item) || item.length !== 2) return "a changed entry is not well formed";
    const [path, wire] = item as [unknown, Partial<WireEntry> | null];
    if (!isCanonical(path) || path === "/") return `the changed path ${JSON.stringify(String(path).slice(0, 100))} is not a canonical path`;
    if (wire === null || typeof wire !== "object" || typeof wire.modifiedMs !== "number" || !Number.isFinite(wire.modifiedMs)) {
      return `the entry ${path.slice(0, 200)} is not well formed`;
    }
    if (wire.kind === "file") {
      if (!(wire.bytes instanceof Uint8Array)) return `the file ${path.slice(0, 200)} does not hold bytes`;
    } else if (wire.kind !== "dir") {
      return `the entry ${path.slice(0, 200)} is neither a file nor a directory`;
    }
  }
  return v as { upserts: Array<[string, WireEntry]>; deletes: string[] };
}

function isCanonical(path: unknown): path is string {
  const n = normalizePath(path);
  return "path" in n && n.path === path;
}
