/**
 * The thread's files as they live in graph state: deepagents' file data, keyed by absolute path
 * (`/notes.txt` → `{ content, mimeType, created_at, modified_at }`), so a thread's files are
 * readable by deepagents' own tools and an agent moves between the two without migrating
 * state. What code mode writes is always a string: text as it is for a text MIME type, base64
 * for anything else (deepagents' `read_file` reads a string of a binary MIME type as base64).
 * On reading it also takes what deepagents may have put there: bytes (`Uint8Array`), bytes that
 * a JSON round trip turned into an object of numbers, and the older line-array form.
 */
import { InvalidOptionError } from "../../errors.js";
import { INTERPRETER_DIRECTORIES } from "../../sandbox/python/shared/bounds.js";
import { sha256Hex } from "./digest.js";
import { formatBytes, sameBytes } from "../../common/bytes.js";
import { isTextMime, mimeTypeOf } from "../../common/mime.js";

/** One file in graph state (deepagents' `FileDataV2`; `FileDataV1`'s line array is read too). */
export interface ThreadFile {
  /** Text, base64 (binary MIME type), or bytes (as deepagents' own backend stores them). */
  content: string | Uint8Array | string[];
  mimeType?: string;
  created_at: string;
  modified_at: string;
}

/**
 * The `files` channel: absolute path → file; with `fileContents: "store"`, a file whose content
 * is in the graph's store is held by reference (content-store.ts).
 */
export type ThreadFiles = Record<string, ThreadFile | StoredFileRef>;

/** A file whose content is kept apart, by its SHA-256 (`codeFileContents`, or the graph's store): its data without the content. */
export interface FileContentRef {
  contentSha256: string;
  mimeType?: string;
  created_at: string;
  modified_at: string;
}

/** A file as the `files` channel holds it when its content is in the graph's store (content-store.ts). */
export interface StoredFileRef extends FileContentRef {
  /** Bytes of the file (what the caps count). */
  size: number;
}

/**
 * A reference that replaces a file's content in state only if the file still has that content
 * (code mode moving a content another node wrote into the store: a write of that path in the
 * same step wins over it, whatever the order).
 */
export interface ContentMove extends StoredFileRef {
  sameContentOnly: true;
}

/**
 * Whether `current` is the file a move was made from: its content and also its type and dates (a
 * write of the same string with another type is other bytes, and a write must win over a move).
 */
function isFileMoved(current: ThreadFile | StoredFileRef | undefined, ref: StoredFileRef): boolean {
  const file = current as Partial<ThreadFile> | undefined;
  if (typeof file?.content !== "string" || sha256Hex(file.content) !== ref.contentSha256) return false;
  return file.mimeType === ref.mimeType && file.created_at === ref.created_at && file.modified_at === ref.modified_at;
}

/** An update of the `files` channel: a file, a text (UTF-8), a reference, or `null` to delete. */
export type ThreadFilesUpdate = Record<string, ThreadFile | StoredFileRef | ContentMove | string | null>;

/** Default cap of one file, in bytes (1 MiB). */
export const DEFAULT_MAX_THREAD_FILE_BYTES = 1024 * 1024;
/** Default cap of all of a thread's files together, in bytes, paths and entries included (10 MiB). */
export const DEFAULT_MAX_THREAD_FILES_BYTES = 10 * 1024 * 1024;
/** Default cap of the number of a thread's files. */
export const DEFAULT_MAX_THREAD_FILES = 1000;
/** Bytes each file counts against `maxThreadFilesBytes` besides its content and path (its entry in state). */
export const FILE_ENTRY_BYTES = 128;

/** The MIME type of bytes that are not text under a text type's name. */
const OCTET_STREAM = "application/octet-stream";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The file data for `bytes` at `path`: text when the path's type is text and the bytes are
 * UTF-8 (without NUL); otherwise base64, typed `application/octet-stream` when the path's own
 * type is a text type. `created_at` is kept from `existing`.
 */
export function toThreadFile(path: string, bytes: Uint8Array, existing?: { created_at: string }, now = new Date().toISOString()): ThreadFile {
  const type = mimeTypeOf(path);
  const created_at = existing?.created_at ?? now;
  if (isTextMime(type)) {
    try {
      const text = strictUtf8.decode(bytes);
      if (!text.includes("\u0000")) return { content: text, mimeType: type, created_at, modified_at: now };
    } catch {
      // not UTF-8: base64 below
    }
    return { content: Buffer.from(bytes).toString("base64"), mimeType: OCTET_STREAM, created_at, modified_at: now };
  }
  return { content: Buffer.from(bytes).toString("base64"), mimeType: type, created_at, modified_at: now };
}

/**
 * The bytes of a stored file, whatever form it is in (see the module comment); a plain string
 * is UTF-8 text. `undefined` for a value that is not a file.
 */
export function fileBytes(file: unknown): Uint8Array | undefined {
  if (typeof file === "string") return new Uint8Array(Buffer.from(file, "utf8"));
  if (file === null || typeof file !== "object") return undefined;
  const f = file as Record<string, unknown>;
  const content = f.content;
  // The form of this package's versions before 0.2: { encoding, content }.
  if (typeof f.encoding === "string" && typeof content === "string") {
    return new Uint8Array(Buffer.from(content, f.encoding === "base64" ? "base64" : "utf8"));
  }
  if (content instanceof Uint8Array) return new Uint8Array(content);
  if (Array.isArray(content)) return content.every((line) => typeof line === "string") ? new Uint8Array(Buffer.from(content.join("\n"), "utf8")) : undefined;
  if (typeof content === "string") {
    const type = typeof f.mimeType === "string" && f.mimeType ? f.mimeType : "text/plain";
    return new Uint8Array(Buffer.from(content, isTextMime(type) ? "utf8" : "base64"));
  }
  if (content !== null && typeof content === "object") {
    // A Uint8Array after a JSON round trip: { "0": 137, "1": 80, ... }.
    const values = Object.values(content as Record<string, unknown>);
    if (values.every((v) => typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 255)) return Uint8Array.from(values as number[]);
  }
  return undefined;
}

/** Reducer of the `files` channel: merges updates in order, `null` deletes a path (deepagents' reducer). */
export function mergeFiles(current: ThreadFiles | undefined, updates: readonly (ThreadFilesUpdate | undefined)[]): ThreadFiles {
  const next: ThreadFiles = { ...current };
  for (const update of updates) {
    for (const [path, value] of Object.entries(update ?? {})) {
      if (value === null) delete next[path];
      else if (typeof value === "string") next[path] = toThreadFile(path, new Uint8Array(Buffer.from(value, "utf8")), next[path]);
      else if ((value as Partial<ContentMove>).sameContentOnly === true) {
        const { sameContentOnly: _move, ...ref } = value as ContentMove;
        if (isFileMoved(next[path], ref)) next[path] = ref;
      } else next[path] = value as ThreadFile | StoredFileRef;
    }
  }
  return next;
}

/** A thread path (`/notes.txt`) as the engines name it (`notes.txt`, relative to the root). */
export function enginePath(path: string): string {
  return path.startsWith("/") ? path.slice(1) : path;
}

/** An engine path as the thread names it. */
export function threadPath(path: string): string {
  return `/${path}`;
}

/**
 * Why `path` cannot be a thread file, or `undefined`: absolute, `/`-separated, without empty,
 * `.` or `..` parts, NUL or backslash, at most 1024 characters, and not under an interpreter
 * directory (`/tmp`, `/lib`, ...: Python's own, never a thread's file).
 */
export function invalidThreadPath(path: string): string | undefined {
  if (!path.startsWith("/")) return "it is not absolute (thread files are /name)";
  if (path.length > 1024) return "it is longer than 1024 characters";
  if (path.includes("\0") || path.includes("\\")) return "it contains a NUL or a backslash";
  const parts = path.slice(1).split("/");
  if (parts.some((p) => p === "" || p === "." || p === "..")) return "it has an empty, '.' or '..' part";
  if (INTERPRETER_DIRECTORIES.includes(parts[0]!)) return `/${parts[0]} is the interpreter's own directory (scratch space, not kept)`;
  return undefined;
}

/** Caller-given files (tool option): text or bytes, checked, keyed by absolute path. */
export function filesFromOption(files: Record<string, string | Uint8Array> | undefined, option = "files"): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  if (files === undefined) return out;
  if (files === null || typeof files !== "object") throw new InvalidOptionError(option, files, "an object of path → text or Uint8Array");
  for (const [given, value] of Object.entries(files)) {
    const path = given.startsWith("/") ? given : `/${given}`;
    const bad = invalidThreadPath(path);
    if (bad) throw new InvalidOptionError(`${option}["${given}"]`, given, `a file path (${bad})`);
    if (typeof value === "string") out.set(path, new Uint8Array(Buffer.from(value, "utf8")));
    else if (value instanceof Uint8Array) out.set(path, new Uint8Array(value));
    else throw new InvalidOptionError(`${option}["${given}"]`, value, "text or a Uint8Array");
  }
  return out;
}

/** The caps that apply to a thread's files. */
export interface FileCaps {
  /** Bytes of one file. */
  maxFileBytes: number;
  /** Bytes of all files: contents, paths and `FILE_ENTRY_BYTES` per file. */
  maxThreadFilesBytes: number;
  /** Number of files. */
  maxThreadFiles: number;
}

/** Bytes a file counts against `maxThreadFilesBytes`. */
export function threadFileCost(path: string, bytes: number): number {
  return Buffer.byteLength(path) + bytes + FILE_ENTRY_BYTES;
}

/** What a run's files changed, after the caps: bytes written (by thread path), deletions, refusals. */
export interface FilesChange {
  written: Map<string, Uint8Array>;
  deleted: string[];
  refused: string[];
}

/**
 * Compares the file set a run ended with (engine paths) to the thread's files it started with
 * (thread paths) and keeps what the caps allow, in path order: a file over `maxFileBytes`, one
 * that would take the thread over `maxThreadFilesBytes` or `maxThreadFiles`, one under an
 * interpreter directory, or one whose path holds another file as a directory, is refused with a
 * message that says which rule and what to do.
 */
export function diffFiles(before: ReadonlyMap<string, Uint8Array>, after: Record<string, Uint8Array> | undefined, caps: FileCaps): FilesChange {
  const change: FilesChange = { written: new Map(), deleted: [], refused: [] };
  if (after === undefined) return change;
  const next = new Map<string, Uint8Array>();
  for (const [path, bytes] of Object.entries(after)) next.set(threadPath(path), bytes);
  let total = 0;
  let count = 0;
  for (const [path, bytes] of before) {
    if (next.has(path)) {
      total += threadFileCost(path, bytes.byteLength);
      count += 1;
    } else change.deleted.push(path);
  }
  const kept = new Set([...before.keys()].filter((p) => next.has(p)));
  for (const [path, bytes] of [...next].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const old = before.get(path);
    if (sameBytes(old, bytes)) continue;
    const refuse = (why: string) => change.refused.push(`${path.slice(0, 200)} (${formatBytes(bytes.byteLength)}) ${why}`);
    const bad = invalidThreadPath(path);
    if (bad) {
      refuse(`is not kept: ${bad}`);
      continue;
    }
    if (bytes.byteLength > caps.maxFileBytes) {
      refuse(`is larger than the per-file cap of ${formatBytes(caps.maxFileBytes)} (maxFileBytes): write less data to it`);
      continue;
    }
    const parent = ancestorIn(path, kept);
    if (parent !== undefined) {
      refuse(`cannot be kept: ${parent} is a file, so nothing can be under it; write it under another name`);
      continue;
    }
    const oldCost = old ? threadFileCost(path, old.byteLength) : 0;
    const cost = threadFileCost(path, bytes.byteLength);
    if (total - oldCost + cost > caps.maxThreadFilesBytes) {
      refuse(`would take this thread's files over their cap of ${formatBytes(caps.maxThreadFilesBytes)} (maxThreadFilesBytes; paths count too): delete files you no longer need`);
      continue;
    }
    if (!old && count + 1 > caps.maxThreadFiles) {
      refuse(`would make this thread more than ${caps.maxThreadFiles} files (maxThreadFiles): delete files you no longer need`);
      continue;
    }
    total += cost - oldCost;
    if (!old) count += 1;
    kept.add(path);
    change.written.set(path, bytes);
  }
  return change;
}

/** The first ancestor directory of `path` that is a file of `files`. */
export function ancestorIn(path: string, files: ReadonlySet<string> | ReadonlyMap<string, unknown>): string | undefined {
  for (let slash = path.indexOf("/", 1); slash > 0; slash = path.indexOf("/", slash + 1)) {
    const parent = path.slice(0, slash);
    if (files.has(parent)) return parent;
  }
  return undefined;
}

/**
 * The thread's files as bytes, from state, for code: entries that are not files, paths that
 * cannot be files, files under another file and those past the caps are left out, each with a
 * note (deepagents' own tools or a graph input may have put them there).
 */
export function threadFilesAsBytes(files: ThreadFiles | undefined, caps: FileCaps): { files: Map<string, Uint8Array>; notes: string[] } {
  const out = new Map<string, Uint8Array>();
  const notes: string[] = [];
  let total = 0;
  for (const path of Object.keys(files ?? {}).sort()) {
    const bytes = fileBytes(files![path]);
    const bad = bytes === undefined ? "its entry is not file data" : invalidThreadPath(path);
    const skip = (why: string) => notes.push(`the thread's file ${path.slice(0, 200)} is not visible to code: ${why}`);
    if (bad) {
      skip(bad);
      continue;
    }
    const parent = ancestorIn(path, out);
    if (parent !== undefined) {
      skip(`${parent} is a file, so nothing can be under it`);
      continue;
    }
    const cost = threadFileCost(path, bytes!.byteLength);
    if (bytes!.byteLength > caps.maxFileBytes || total + cost > caps.maxThreadFilesBytes || out.size + 1 > caps.maxThreadFiles) {
      skip("it is over code mode's file caps (maxFileBytes, maxThreadFilesBytes, maxThreadFiles)");
      continue;
    }
    total += cost;
    out.set(path, bytes!);
  }
  return { files: out, notes };
}

/** The state update for a change: written files as file data (keeping `created_at`), deletions as `null`. */
export function stateUpdateOf(change: FilesChange, current: ThreadFiles | undefined): ThreadFilesUpdate {
  const update: ThreadFilesUpdate = {};
  const now = new Date().toISOString();
  for (const path of change.deleted) update[path] = null;
  for (const [path, bytes] of change.written) update[path] = toThreadFile(path, bytes, current?.[path], now);
  return update;
}
