/**
 * A bounded per-process cache of live sessions, one per (thread, language), least recently
 * used first out. Only an idle session is ever evicted: a call never dies because another
 * thread arrived (while every session is busy the cache holds more than its cap, and gives the
 * extra back as soon as one is idle). An evicted session is disposed; the thread's state is in
 * its checkpoint and is rebuilt by replay on its next call.
 */
import type { JsonValue, SandboxSession } from "../../sandbox/types.js";

/** A live session and exactly what it has run: the log cells, the files after them, what they were given. */
export interface LiveSession {
  session: SandboxSession;
  /** The log cells it has run, in order, each by its id and what it ran (`cellSignature` in runner.ts). */
  applied: string[];
  /** The file set after its last cell (engine paths): what the next cell starts from, unless told otherwise. */
  files: Record<string, Uint8Array>;
  /** Host function names and globals its last cell was given. */
  env: { hostFunctions: string[]; globals: Record<string, JsonValue> };
  /** Host function names its `tools` namespace was set up with (undefined: never set up). */
  toolsSetUp?: string[];
}

/** LRU of live sessions; `use` serialises work per key and keeps the key's session from eviction while it runs. */
export class SessionCache {
  private readonly entries = new Map<string, LiveSession>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly busy = new Map<string, number>();

  constructor(readonly maxSessions: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The live session of `key`, marked most recently used. */
  get(key: string): LiveSession | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  /** The live session of `key`, without marking it used. */
  peek(key: string): LiveSession | undefined {
    return this.entries.get(key);
  }

  /** Stores a session for `key`, disposing the one it replaces and idle ones beyond the cap. */
  async set(key: string, entry: LiveSession): Promise<void> {
    const old = this.entries.get(key);
    this.entries.delete(key);
    this.entries.set(key, entry);
    const dropped: LiveSession[] = old && old !== entry ? [old] : [];
    dropped.push(...this.evictIdle());
    await Promise.all(dropped.map((d) => d.session.dispose().catch(() => undefined)));
  }

  /** Forgets and disposes the session of `key`. */
  async drop(key: string): Promise<void> {
    const entry = this.entries.get(key);
    this.entries.delete(key);
    await entry?.session.dispose().catch(() => undefined);
  }

  /**
   * Runs `task` after every earlier task of `key` (one context serves one cell at a time); the
   * key's session is not evicted while the task runs.
   */
  use<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const run = async () => {
      this.busy.set(key, (this.busy.get(key) ?? 0) + 1);
      try {
        return await task();
      } finally {
        const n = (this.busy.get(key) ?? 1) - 1;
        if (n === 0) this.busy.delete(key);
        else this.busy.set(key, n);
        // Sessions kept over the cap while every one was busy go now.
        await Promise.all(this.evictIdle().map((d) => d.session.dispose().catch(() => undefined)));
      }
    };
    const next = previous.then(run, run);
    const settled = next.catch(() => undefined);
    this.locks.set(key, settled);
    void settled.then(() => {
      if (this.locks.get(key) === settled) this.locks.delete(key);
    });
    return next;
  }

  /** Removes idle sessions, least recently used first, until the cache is within its cap. */
  private evictIdle(): LiveSession[] {
    const dropped: LiveSession[] = [];
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.maxSessions) break;
      if (this.busy.has(key)) continue;
      this.entries.delete(key);
      dropped.push(entry);
    }
    return dropped;
  }

  /** Disposes every session. */
  async clear(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.map((e) => e.session.dispose().catch(() => undefined)));
  }
}
