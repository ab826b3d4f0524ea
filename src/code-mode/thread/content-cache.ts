/**
 * The file contents a tool read from or wrote to the graph's store, kept in this process so
 * that a call does not read the thread's whole file set from the store again (a PostgresStore
 * read costs a round trip per call). Safe to keep: an entry is immutable (its key is its
 * content's digest, checked when it was read) and is kept under its namespace, so a thread
 * gets from the cache only what the store would give it. Bounded in bytes; the least recently
 * used entries go first.
 */
import { getContents, putContents, type GraphStore } from "./content-store.js";

export class ContentCache {
  private readonly entries = new Map<string, string>();
  private bytes = 0;

  /** @param maxBytes what the cache may hold (UTF-16 code units × 2, about the strings' memory) */
  constructor(private readonly maxBytes: number) {}

  private static key(namespace: readonly string[], digest: string): string {
    return `${namespace.join("\u0000")}\u0000${digest}`;
  }

  private remember(key: string, content: string): void {
    const size = 2 * content.length;
    if (size > this.maxBytes) return;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.bytes -= 2 * old.length;
    }
    this.entries.set(key, content);
    this.bytes += size;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= 2 * v.length;
    }
  }

  /** The contents of `digests` from the cache, the rest from the store (checked there), all remembered. */
  async get(store: GraphStore, namespace: string[], digests: Iterable<string>): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const missing: string[] = [];
    for (const digest of new Set(digests)) {
      const key = ContentCache.key(namespace, digest);
      const hit = this.entries.get(key);
      if (hit === undefined) missing.push(digest);
      else {
        out.set(digest, hit);
        this.remember(key, hit); // most recently used now
      }
    }
    for (const [digest, content] of await getContents(store, namespace, missing)) {
      out.set(digest, content);
      this.remember(ContentCache.key(namespace, digest), content);
    }
    return out;
  }

  /** Writes `contents` to the store and remembers them once written. */
  async put(store: GraphStore, namespace: string[], contents: ReadonlyMap<string, string>): Promise<void> {
    await putContents(store, namespace, contents);
    for (const [digest, content] of contents) this.remember(ContentCache.key(namespace, digest), content);
  }
}
