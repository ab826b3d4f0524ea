/**
 * Where a thread's file contents live when `fileContents` is left unset: in the graph's LangGraph
 * store when the graph has one (content-store.ts: one immutable entry per SHA-256, the checkpoint
 * holding references), otherwise in the checkpoint as before. And the move of contents that
 * another node left inline in `files` (a graph input, a tool's `Command`) into the store before
 * they are copied further.
 *
 * Why the move: `createAgent` dispatches each tool call as a `Send` whose payload is the whole
 * state, stored in the step's writes and again in the next checkpoint. A 100 KB file given as
 * the graph's input would ride in the first call's `Send` twice before the code tool could move
 * it; moved by the model node (the step before the `Send`), the payload holds its reference.
 *
 * Exact: an entry's key is its content's digest and a read checks it (content-store.ts), so
 * every checkpoint, past or forked, reads the bytes it names; the move's references replace a
 * file only while it still has that content (`ContentMove`, files.ts).
 */
import { putContents, storedFileOf, fileContentsNamespace, type GraphStore } from "./content-store.js";
import { isContentRef } from "./file-contents.js";
import { fileBytes, type ThreadFile, type ThreadFiles, type ThreadFilesUpdate } from "./files.js";

/** The `fileContents` option: `"checkpoint"`, `"store"`, or unset (the store when the graph has one). */
export type FileContentsOption = "checkpoint" | "store" | undefined;

/**
 * Whether a call keeps its thread's contents in the graph's store. `allowed` is false where
 * references would break another reader of `files` (deepagents' file tools on its state backend).
 */
export function contentsGoToStore(option: FileContentsOption, graphStore: GraphStore | undefined, allowed = true): boolean {
  if (option !== undefined) return option === "store";
  return graphStore !== undefined && allowed;
}

/** Whether `files` holds a file whose content is in the store (a thread that chose the store before). */
export function holdsStoredFiles(files: unknown): boolean {
  return typeof files === "object" && files !== null && Object.values(files).some(isContentRef);
}

/**
 * The `files` update that replaces each inline text or base64 content of `files` by its
 * reference, once the contents are in `store` under the thread's namespace; undefined when
 * there is nothing to move. Bytes and line arrays (hand-written updates) stay as they are.
 */
export async function moveFilesToStore(files: unknown, store: GraphStore, threadId: string): Promise<ThreadFilesUpdate | undefined> {
  if (typeof files !== "object" || files === null) return undefined;
  const update: ThreadFilesUpdate = {};
  const contents = new Map<string, string>();
  for (const [path, file] of Object.entries(files as ThreadFiles)) {
    if (file === null || typeof file !== "object" || isContentRef(file)) continue;
    const stored = storedFileOf(file as ThreadFile, fileBytes(file)?.byteLength ?? 0);
    if (!stored) continue;
    contents.set(stored.digest, stored.content);
    update[path] = { ...stored.ref, sameContentOnly: true };
  }
  if (contents.size === 0) return undefined;
  // The store holds the contents before the checkpoint can name them.
  await putContents(store, fileContentsNamespace(threadId), contents);
  return update;
}
