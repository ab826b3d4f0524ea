/**
 * The thread's virtual files as they live in graph state: path → `{ encoding, content }`, a JSON
 * form that round-trips through every checkpointer (MemorySaver, PostgresSaver). Text that is
 * valid UTF-8 is kept readable; anything else is base64.
 */
import { InvalidOptionError } from "../errors.js";

/** One file in graph state. */
export interface ThreadFile {
  encoding: "utf-8" | "base64";
  content: string;
}

/** The `files` channel: path → file. */
export type ThreadFiles = Record<string, ThreadFile>;

/** An update of the `files` channel: a file, a text (UTF-8), or `null` to delete. */
export type ThreadFilesUpdate = Record<string, ThreadFile | string | null>;

/** Default cap of one file, in bytes (1 MiB). */
export const DEFAULT_MAX_THREAD_FILE_BYTES = 1024 * 1024;
/** Default cap of all of a thread's files together, in bytes (10 MiB). */
export const DEFAULT_MAX_THREAD_FILES_BYTES = 10 * 1024 * 1024;

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Encodes bytes for state: UTF-8 text when it is, base64 otherwise. */
export function encodeFile(bytes: Uint8Array): ThreadFile {
  try {
    const text = decoder.decode(bytes);
    if (!text.includes("\u0000")) return { encoding: "utf-8", content: text };
  } catch {
    // not UTF-8: base64 below
  }
  return { encoding: "base64", content: Buffer.from(bytes).toString("base64") };
}

/** The bytes of a stored file (a plain string is UTF-8 text). */
export function decodeFile(file: ThreadFile | string): Uint8Array {
  if (typeof file === "string") return new Uint8Array(Buffer.from(file, "utf8"));
  if (file.encoding === "base64") return new Uint8Array(Buffer.from(file.content, "base64"));
  return new Uint8Array(Buffer.from(file.content, "utf8"));
}

/** Reducer of the `files` channel: merges an update, `null` deletes a path. */
export function mergeFiles(current: ThreadFiles | undefined, update: ThreadFilesUpdate | undefined): ThreadFiles {
  const next: ThreadFiles = { ...current };
  for (const [path, value] of Object.entries(update ?? {})) {
    if (value === null) delete next[path];
    else next[path] = typeof value === "string" ? { encoding: "utf-8", content: value } : value;
  }
  return next;
}

/** Bytes of every file of a set. */
export function filesToBytes(files: ThreadFiles | undefined): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  for (const [path, file] of Object.entries(files ?? {})) out[path] = decodeFile(file);
  return out;
}

/** Caller-given files (tool option): text or bytes, checked. */
export function filesFromOption(files: Record<string, string | Uint8Array> | undefined, option = "files"): ThreadFiles {
  const out: ThreadFiles = {};
  if (files === undefined) return out;
  if (files === null || typeof files !== "object") throw new InvalidOptionError(option, files, "an object of path → text or Uint8Array");
  for (const [path, value] of Object.entries(files)) {
    if (typeof value === "string") out[path] = { encoding: "utf-8", content: value };
    else if (value instanceof Uint8Array) out[path] = encodeFile(value);
    else throw new InvalidOptionError(`${option}["${path}"]`, value, "text or a Uint8Array");
  }
  return out;
}

/** The caps that apply to a thread's files. */
export interface FileCaps {
  maxFileBytes: number;
  maxThreadFilesBytes: number;
}

/** What a run's files changed, after the caps: the update for state and what was refused. */
export interface FilesChange {
  update: ThreadFilesUpdate;
  written: string[];
  deleted: string[];
  refused: string[];
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;
}

/**
 * Compares the file set a run ended with to the one it started with and returns the update for
 * state. Files over `maxFileBytes`, or that would take the thread over `maxThreadFilesBytes`,
 * are refused with a message that says which cap and by how much.
 */
export function diffFiles(before: ThreadFiles, after: Record<string, Uint8Array> | undefined, caps: FileCaps): FilesChange {
  const change: FilesChange = { update: {}, written: [], deleted: [], refused: [] };
  if (after === undefined) return change;
  let total = 0;
  for (const [path, file] of Object.entries(before)) if (path in after) total += decodeFile(file).byteLength;
  for (const path of Object.keys(before)) {
    if (!(path in after)) {
      change.update[path] = null;
      change.deleted.push(path);
    }
  }
  for (const [path, bytes] of Object.entries(after).sort(([a], [b]) => a.localeCompare(b))) {
    const old = before[path];
    const encoded = encodeFile(bytes);
    if (old && old.content === encoded.content && old.encoding === encoded.encoding) continue;
    const oldBytes = old ? decodeFile(old).byteLength : 0;
    if (bytes.byteLength > caps.maxFileBytes) {
      change.refused.push(`${path} (${formatBytes(bytes.byteLength)}) is larger than the per-file cap of ${formatBytes(caps.maxFileBytes)}: write less data to it`);
      continue;
    }
    if (total - oldBytes + bytes.byteLength > caps.maxThreadFilesBytes) {
      change.refused.push(`${path} (${formatBytes(bytes.byteLength)}) would take this thread's files over their cap of ${formatBytes(caps.maxThreadFilesBytes)}: delete files you no longer need`);
      continue;
    }
    total += bytes.byteLength - oldBytes;
    change.update[path] = encoded;
    change.written.push(path);
  }
  return change;
}
