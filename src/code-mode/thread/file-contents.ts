/**
 * The contents of the files the log refers to, stored once (`codeFileContents`: SHA-256 of a
 * content → the content). A cell's `filesIn` (the files it saw that the log does not reproduce:
 * the graph's input, deepagents' writes, ...) holds a file's data without its content and the
 * content's digest instead; the content itself goes to this store the first time it is seen.
 *
 * Why: the log is copied whole into a checkpoint every `MAX_UPDATES_BETWEEN_COPIES` cells
 * (copy-policy.ts). With the contents inline, the first cell of a thread started with 1 MiB of
 * files carried that 1 MiB into every copy of the log, whether or not a call wrote anything. The
 * store is updated only when a call brings a new content or writes files (an empty update then;
 * with a deepagents backend, which leaves no `files` channel, every logged cell), so its copies
 * follow the thread's file writes, like the copies of `files`, and a read's walk back to its last
 * copy is no longer than the walk to the last copy of `files` (or of the log).
 *
 * A graph without the channel (a state that spreads only `codeCells`) keeps the contents inline,
 * as before; logs written inline (this package's versions up to now) are read as they are.
 */
import type { CodeCell, FileContentRef } from "../replay/cell-log.js";
import { sha256Hex as sha256 } from "./digest.js";
import type { ThreadFile } from "./files.js";

/** The `codeFileContents` channel: SHA-256 (hex) of a content → the content (text or base64, as in `files`). */
export type FileContents = Record<string, string>;

export type { FileContentRef } from "../replay/cell-log.js";

/** Whether `value` is a `FileContentRef` (and not file data). */
export function isContentRef(value: unknown): value is FileContentRef {
  return typeof value === "object" && value !== null && typeof (value as { contentSha256?: unknown }).contentSha256 === "string" && !("content" in value);
}

/**
 * `file` without its content, named by the content's digest instead, and that content; undefined
 * for what has no string content to move (a deletion, a plain text update, a reference already,
 * bytes or line arrays from a hand-written update).
 */
export function contentRefOf(file: unknown): { ref: FileContentRef; digest: string; content: string } | undefined {
  if (file === null || typeof file !== "object" || isContentRef(file) || typeof (file as ThreadFile).content !== "string") return undefined;
  const { content, ...rest } = file as ThreadFile & { content: string };
  const digest = sha256(content);
  return { ref: { ...rest, contentSha256: digest }, digest, content };
}

/**
 * `cell` with the contents of its `filesIn` moved out: the cell to log, and the contents the
 * store does not hold yet (by digest). A file whose content is not a string (bytes, line arrays
 * from a hand-written update) stays inline.
 */
export function moveContentsOut(cell: CodeCell, store: FileContents): { cell: CodeCell; added: FileContents } {
  const added: FileContents = {};
  if (!cell.filesIn) return { cell, added };
  const filesIn: Record<string, ThreadFile | FileContentRef | string | null> = {};
  for (const [path, file] of Object.entries(cell.filesIn)) {
    const moved = contentRefOf(file);
    if (!moved) {
      filesIn[path] = file;
      continue;
    }
    if (!Object.hasOwn(store, moved.digest)) added[moved.digest] = moved.content;
    filesIn[path] = moved.ref;
  }
  return { cell: { ...cell, filesIn }, added };
}

/**
 * `cells` with the contents of their `filesIn` put back from `store`, and how many the store did
 * not have (a log edited by hand, a store reset on its own): such a file is given to the cell as
 * deleted, so a replay that reads it says where it differs.
 */
export function putContentsBack(cells: readonly CodeCell[], store: FileContents | undefined): { cells: CodeCell[]; missing: number } {
  let missing = 0;
  const out = cells.map((cell) => {
    if (!cell.filesIn || !Object.values(cell.filesIn).some(isContentRef)) return cell;
    const filesIn: Record<string, ThreadFile | string | null> = {};
    for (const [path, file] of Object.entries(cell.filesIn)) {
      if (!isContentRef(file)) {
        filesIn[path] = file as ThreadFile | string | null;
        continue;
      }
      const { contentSha256, ...rest } = file;
      const content = store !== undefined && Object.hasOwn(store, contentSha256) ? store[contentSha256] : undefined;
      if (typeof content !== "string") {
        missing++;
        filesIn[path] = null;
        continue;
      }
      filesIn[path] = { ...rest, content };
    }
    return { ...cell, filesIn };
  });
  return { cells: out, missing };
}

/**
 * Reducer of `codeFileContents`: adds the contents it does not hold, each only under its own
 * digest (a write that names another content's digest is dropped, so no writer can make a later
 * restore read other bytes than the cell saw: the first writer of a digest would otherwise win).
 */
export function addContents(current: FileContents | undefined, writes: readonly (FileContents | undefined)[]): FileContents {
  let out = current ?? {};
  for (const write of writes) {
    for (const [digest, content] of Object.entries(write ?? {})) {
      if (Object.hasOwn(out, digest) || typeof content !== "string" || sha256(content) !== digest) continue;
      if (out === current) out = { ...current };
      out[digest] = content;
    }
  }
  return out;
}
