/**
 * File contents kept in the graph's LangGraph store instead of the checkpoint
 * (`fileContents: "store"`): the `files` channel and the log then hold each content's SHA-256
 * (a `FileContentRef`) and the store holds the content under that digest.
 *
 * Why: a delta channel holding S bytes whose reads walk at most W updates must be copied whole
 * every W updates, S / W bytes per call whatever the call wrote (docs/code-mode.md, "Costs").
 * Out of the checkpoint, S is the references only (~150 bytes a file), so checkpoint bytes per
 * call follow what the call wrote; the contents are written once, when first seen.
 *
 * Exact by construction: an entry is immutable (its key is its content's digest, and a content
 * read back is checked against it), so every checkpoint, past or forked, reads the bytes its
 * references name. Entries are never deleted by code mode (an old checkpoint may still name them);
 * a thread's entries are under one namespace, `fileContentsNamespace(threadId)`, for a user who
 * deletes the thread.
 */
import { sha256Hex } from "./digest.js";
import { fileBytes, type StoredFileRef, type ThreadFile } from "./files.js";
import { contentRefOf } from "./file-contents.js";

export { sha256Hex } from "./digest.js";
export type { StoredFileRef } from "./files.js";

/**
 * The part of LangGraph's `BaseStore` used here (`InMemoryStore`, `PostgresStore`, ...): gets and
 * puts, and `batch` where the store has one (see `batchOf`).
 */
export interface GraphStore {
  get(namespace: string[], key: string): Promise<{ value?: Record<string, unknown> } | null | undefined>;
  put(namespace: string[], key: string, value: Record<string, unknown>, index?: false | string[]): Promise<void>;
  batch?(operations: StoreOperation[]): Promise<unknown[]>;
}

/** A get (no `value`) or a put of `BaseStore.batch`. */
type StoreOperation = { namespace: string[]; key: string } | { namespace: string[]; key: string; value: Record<string, unknown>; index: false };

/** Operations per `batch` call: one round trip each, and far below PostgreSQL's 65,535 parameters a query. */
const BATCH_SIZE = 500;

/**
 * The `batch` of the store that holds the entries. Inside a graph the store is LangGraph's
 * `AsyncBatchedStore`, which refuses `batch` and answers a tick's gets in time quadratic in their
 * number (tens of thousands of gets took seconds where one `batch` of the store under it did not): the
 * contents go to the store it wraps, in batches of `BATCH_SIZE`. Undefined (any other store, which
 * a user's own call such as `readStoredFile` may pass): single calls.
 */
function batchOf(store: GraphStore): ((operations: StoreOperation[]) => Promise<unknown[]>) | undefined {
  const wrapped = store as GraphStore & { lg_name?: unknown; store?: unknown };
  // Only under the wrapper LangGraph names so: should that change, single calls (slower, never wrong).
  if (wrapped.lg_name !== "AsyncBatchedStore") return undefined;
  const target = wrapped.store as GraphStore | null | undefined;
  const batch = target?.batch;
  return typeof batch === "function" ? (operations) => batch.call(target, operations) : undefined;
}

async function inBatches<T>(store: GraphStore, operations: StoreOperation[], single: (operation: StoreOperation) => Promise<T>): Promise<T[]> {
  const batch = batchOf(store);
  if (!batch) return Promise.all(operations.map(single));
  const out: T[] = [];
  for (let i = 0; i < operations.length; i += BATCH_SIZE) out.push(...((await batch(operations.slice(i, i + BATCH_SIZE))) as T[]));
  return out;
}

/** Whether `value` is a LangGraph store (the graph's `store`, as a tool's config carries it). */
export function isGraphStore(value: unknown): value is GraphStore {
  const s = value as { get?: unknown; put?: unknown; search?: unknown } | null;
  return typeof s === "object" && s !== null && typeof s.get === "function" && typeof s.put === "function" && typeof s.search === "function";
}

/**
 * The store namespace of a LangGraph thread's file contents. The thread id is hashed: store
 * namespaces may not hold every character a thread id may (PostgresStore refuses periods, `%`, `_` and backslashes).
 */
export function fileContentsNamespace(threadId: string): string[] {
  return ["codegen-sandbox", "file-contents", sha256Hex(String(threadId)).slice(0, 32)];
}

/**
 * The contents of `digests` the store holds, each checked against its digest (an entry that
 * does not match, written by hand or by another program, counts as missing).
 */
export async function getContents(store: GraphStore, namespace: string[], digests: Iterable<string>): Promise<Map<string, string>> {
  const keys = [...new Set(digests)];
  const out = new Map<string, string>();
  if (keys.length === 0) return out;
  type Item = { value?: Record<string, unknown> } | null | undefined;
  const items = await inBatches<Item>(store, keys.map((key) => ({ namespace, key })), (op) => store.get(op.namespace, op.key));
  keys.forEach((key, i) => {
    const content = items[i]?.value?.content;
    if (typeof content === "string" && sha256Hex(content) === key) out.set(key, content);
  });
  return out;
}

/** Writes `contents` (digest → content) to the store; the graph's checkpoint may name them only once this resolved. */
export async function putContents(store: GraphStore, namespace: string[], contents: ReadonlyMap<string, string>): Promise<void> {
  if (contents.size === 0) return;
  // `index: false`: a store with a vector index must not embed file contents.
  const operations: StoreOperation[] = [...contents].map(([key, content]) => ({ namespace, key, value: { content }, index: false }));
  await inBatches(store, operations, (op) => store.put(op.namespace, op.key, (op as { value: Record<string, unknown> }).value, false));
}

/**
 * `file`'s reference and its content, when its content is a string (text or base64; bytes and
 * line arrays, which only hand-written updates hold, stay as they are).
 */
export function storedFileOf(file: ThreadFile, size: number): { ref: StoredFileRef; digest: string; content: string } | undefined {
  const moved = contentRefOf(file);
  return moved && { ...moved, ref: { ...moved.ref, size } };
}

/**
 * The bytes of a file whose content is in the graph's store (a `StoredFileRef` from the `files`
 * channel, or an artifact's written file), or undefined when the store does not hold it.
 *
 * @example
 * ```ts
 * const ref = state.values.files["/report.csv"];
 * const bytes = await readStoredFile(store, "thread-1", ref);
 * ```
 */
export async function readStoredFile(store: GraphStore, threadId: string, ref: { contentSha256: string; mimeType?: string }): Promise<Uint8Array | undefined> {
  const content = (await getContents(store, fileContentsNamespace(threadId), [ref.contentSha256])).get(ref.contentSha256);
  return content === undefined ? undefined : fileBytes({ content, mimeType: ref.mimeType });
}
