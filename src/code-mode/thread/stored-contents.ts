/**
 * The file contents a call reads, wherever the thread keeps them (`codeFileContents`, the
 * graph's store), and the `files` update of a call whose contents go to the store.
 */
import { fileBytes, type FileCaps, type ThreadFile, type ThreadFiles, type ThreadFilesUpdate } from "./files.js";
import { isContentRef, type FileContents } from "./file-contents.js";
import { fileContentsNamespace, storedFileOf, type GraphStore, type StoredFileRef } from "./content-store.js";
import type { ContentCache } from "./content-cache.js";
import type { CodeModeState } from "./state.js";

/** The contents a call reads, wherever they are kept, and the thread's files with the stored ones resolved. */
export interface StoredContents {
  /** Digest → content: `codeFileContents` and what the graph's store gave; undefined when neither is in use (the log keeps contents inline). */
  known: FileContents | undefined;
  /** The `files` channel with every reference replaced by its content (those not found left out). */
  files: ThreadFiles | undefined;
  /** The `files` channel as the state holds it. */
  stateFiles: ThreadFiles | undefined;
  /** Whether the graph has the `codeFileContents` channel. */
  channel: boolean;
  /** Whether that channel holds no content (a thread that never kept contents in it). */
  channelEmpty: boolean;
  notes: string[];
  graphStore: GraphStore | undefined;
  namespace: string[];
}

/**
 * Reads the contents the thread's log and `files` refer to: from `codeFileContents`, and for
 * what it does not hold, from the graph's store (one batch).
 */
export async function storedContents(
  state: CodeModeState,
  threadId: string,
  stateFiles: boolean,
  graphStore: GraphStore | undefined,
  contentsInStore: boolean,
  cache: ContentCache,
  caps: FileCaps,
): Promise<StoredContents> {
  const channel = contentStoreOf(state);
  const files = stateFiles ? (state.files as ThreadFiles | undefined) : undefined;
  const namespace = fileContentsNamespace(threadId);
  const wanted = new Set<string>();
  for (const cell of state.codeCells ?? []) {
    for (const file of Object.values(cell.filesIn ?? {})) if (isContentRef(file) && !(channel && Object.hasOwn(channel, file.contentSha256))) wanted.add(file.contentSha256);
  }
  // What a reference says of its size bounds what is read for it: at most `maxThreadFiles`
  // references (in path order) of at most `maxFileBytes` each (code mode writes no more; a state
  // that holds more was written by hand). The caps are checked again on the bytes read.
  const readable = new Set<string>();
  for (const path of Object.keys(files ?? {}).sort()) {
    const file = files![path];
    if (!isContentRef(file) || readable.size >= caps.maxThreadFiles) continue;
    const size = (file as Partial<StoredFileRef>).size;
    if (typeof size === "number" && size > caps.maxFileBytes) continue;
    readable.add(path);
    wanted.add(file.contentSha256);
  }
  const fetched = graphStore && wanted.size > 0 ? await cache.get(graphStore, namespace, wanted) : new Map<string, string>();
  const known = channel !== undefined || contentsInStore || fetched.size > 0 ? { ...channel, ...Object.fromEntries(fetched) } : undefined;
  const notes: string[] = [];
  let resolved = files;
  if (files && Object.values(files).some(isContentRef)) {
    resolved = {};
    for (const [path, file] of Object.entries(files)) {
      if (!isContentRef(file)) {
        resolved[path] = file;
        continue;
      }
      const { contentSha256, size: _size, ...rest } = file as StoredFileRef;
      const content = readable.has(path) ? fetched.get(contentSha256) : undefined;
      if (!readable.has(path)) notes.push(`the thread's file ${path.slice(0, 200)} is not visible to code: it is over code mode's file caps (maxFileBytes, maxThreadFiles)`);
      else if (content === undefined) notes.push(`the thread's file ${path.slice(0, 200)} is not visible to code: its content is not in the graph's store${graphStore ? " (no entry under its digest, or one whose bytes do not match it)" : " (this graph has no store)"}`);
      else resolved[path] = { ...rest, content };
    }
  }
  return { known, files: resolved, stateFiles: files, notes, graphStore, namespace, channel: channel !== undefined, channelEmpty: channel === undefined || Object.keys(channel).length === 0 };
}

/**
 * The state update of a call whose contents go to the store: written files by reference, and
 * the thread's files another node wrote with their content moved to the store (only if they
 * still have it: `ContentMove`). Adds the contents to write to `toPut`.
 */
export function referencedUpdate(update: ThreadFilesUpdate | undefined, written: ReadonlyMap<string, Uint8Array>, files: ThreadFiles | undefined, toPut: Map<string, string>): ThreadFilesUpdate {
  const out: ThreadFilesUpdate = {};
  for (const [path, value] of Object.entries(update ?? {})) {
    // The run's own bytes give the size; an update the source made itself is decoded for it.
    const size = () => written.get(path)?.byteLength ?? fileBytes(value)?.byteLength ?? 0;
    const stored = value !== null && typeof value === "object" ? storedFileOf(value as ThreadFile, size()) : undefined;
    if (!stored) {
      out[path] = value;
      continue;
    }
    toPut.set(stored.digest, stored.content);
    out[path] = stored.ref;
  }
  for (const [path, file] of Object.entries(files ?? {})) {
    if (Object.hasOwn(out, path) || isContentRef(file)) continue;
    const stored = storedFileOf(file as ThreadFile, fileBytes(file)?.byteLength ?? 0);
    if (!stored) continue;
    toPut.set(stored.digest, stored.content);
    out[path] = { ...stored.ref, sameContentOnly: true };
  }
  return out;
}

/** The thread's `codeFileContents`, or undefined when the graph does not have that channel (the log then keeps contents inline). */
export function contentStoreOf(state: CodeModeState | undefined): FileContents | undefined {
  const store = state?.codeFileContents;
  return typeof store === "object" && store !== null && !Array.isArray(store) ? store : undefined;
}
