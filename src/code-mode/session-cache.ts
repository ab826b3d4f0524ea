/**
 * A bounded per-process cache of live sessions, one per (thread, language), least recently used
 * first out. An evicted session is disposed; the thread's state is still in its checkpoint and
 * is rebuilt by replay on its next call.
 */
import type { SandboxSession } from "../sandbox/types.js";

/** A live session and the ids of the log cells it has run, in order. */
export interface LiveSession {
  session: SandboxSession;
  applied: string[];
}

/** LRU of live sessions; `use` serialises work per key. */
export class SessionCache {
  private readonly entries = new Map<string, LiveSession>();
  private readonly locks = new Map<string, Promise<unknown>>();

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

  /** Stores a session for `key`, disposing the one it replaces and the least recently used beyond the cap. */
  async set(key: string, entry: LiveSession): Promise<void> {
    const old = this.entries.get(key);
    this.entries.delete(key);
    this.entries.set(key, entry);
    const dropped: LiveSession[] = old && old !== entry ? [old] : [];
    while (this.entries.size > this.maxSessions) {
      const [oldestKey, oldest] = this.entries.entries().next().value as [string, LiveSession];
      this.entries.delete(oldestKey);
      dropped.push(oldest);
    }
    await Promise.all(dropped.map((d) => d.session.dispose().catch(() => undefined)));
  }

  /** Forgets and disposes the session of `key`. */
  async drop(key: string): Promise<void> {
    const entry = this.entries.get(key);
    this.entries.delete(key);
    await entry?.session.dispose().catch(() => undefined);
  }

  /** Runs `task` after every earlier task of `key` (one context serves one cell at a time). */
  use<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const next = previous.then(task, task);
    const settled = next.catch(() => undefined);
    this.locks.set(key, settled);
    void settled.then(() => {
      if (this.locks.get(key) === settled) this.locks.delete(key);
    });
    return next;
  }

  /** Disposes every session. */
  async clear(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.map((e) => e.session.dispose().catch(() => undefined)));
  }
}
