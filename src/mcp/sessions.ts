/**
 * The server's code sessions: explicit handles a client passes back in tool arguments, so no
 * tool depends on the transport's own session. The registry owns every session and its idle
 * timer, and disposes them all when the server closes.
 *
 * A handle is `s-<server tag>-<secret>`: the tag (48 random bits) names the server instance that
 * opened it, the secret is 160 random bits, so a handle cannot be guessed and a handle of another
 * server (or of this one before a restart) gets a message that says so.
 */
import { randomBytes } from "node:crypto";
import { InvalidOptionError, SandboxSessionEndedError } from "../errors.js";
import type { Language, SandboxSession } from "../sandbox/types.js";
import { BoundedMap } from "../common/bounded-map.js";

const HANDLE = /^s-([0-9a-f]{12})-([0-9a-f]{40})$/;
/** Ended handles remembered for a precise message (bounded: the oldest are forgotten). */
const ENDED_MEMORY = 256;

/** What the registry needs: how to open a session, how many, how long they may idle. */
export interface SessionRegistryOptions {
  maxSessions: number;
  idleMs: number;
  create(language: Language): Promise<SandboxSession>;
}

/** Outcome of a registry call: a value, or a message for the model saying what to do. */
export type Lookup<T> = { ok: true; value: T } | { ok: false; message: string };

interface Entry {
  readonly handle: string;
  readonly session: SandboxSession;
  timer: NodeJS.Timeout | undefined;
  busy: number;
}

function idleText(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * Code sessions of one MCP server, by handle.
 *
 * @example
 * ```ts
 * const registry = new SessionRegistry({ maxSessions: 8, idleMs: 600_000, create: (language) => sandbox.createSession({ language }) });
 * const opened = await registry.open("javascript"); // { ok: true, value: "s-…" }
 * ```
 */
export class SessionRegistry {
  readonly #tag = randomBytes(6).toString("hex");
  readonly #open = new Map<string, Entry>();
  readonly #ended = new BoundedMap<string, string>(ENDED_MEMORY);
  #opening = 0;
  #closed = false;

  constructor(private readonly options: SessionRegistryOptions) {}

  /** Sessions open now (opening ones not counted). */
  get size(): number {
    return this.#open.size;
  }

  /** Opens a session of `language`; refused (with what to do) when the cap is reached. */
  async open(language: Language): Promise<Lookup<{ handle: string; session: SandboxSession }>> {
    if (this.#closed) return { ok: false, message: "This server is shutting down; no session can be opened." };
    if (this.#open.size + this.#opening >= this.options.maxSessions) {
      return {
        ok: false,
        message: `Too many open sessions (${this.options.maxSessions}, the server's limit). Close one you no longer need with close_session, or run the code without a session; unused sessions close after ${idleText(this.options.idleMs)}.`,
      };
    }
    this.#opening++;
    let session: SandboxSession;
    try {
      session = await this.options.create(language);
    } finally {
      this.#opening--;
    }
    if (this.#closed) {
      await session.dispose();
      return { ok: false, message: "This server is shutting down; no session can be opened." };
    }
    const handle = `s-${this.#tag}-${randomBytes(20).toString("hex")}`;
    const entry: Entry = { handle, session, timer: undefined, busy: 0 };
    this.#open.set(handle, entry);
    this.#arm(entry);
    return { ok: true, value: { handle, session } };
  }

  /**
   * Runs `work` with the session of `handle`. The session does not expire while work runs; its
   * idle time starts again when the work ends. A session whose engine ended (a run timed out,
   * ran out of memory or was cancelled mid-way) is removed and reported.
   */
  async use<T>(handle: unknown, work: (session: SandboxSession) => Promise<T>): Promise<Lookup<T>> {
    const found = this.#find(handle);
    if (!found.ok) return found;
    const entry = found.value;
    entry.busy++;
    clearTimeout(entry.timer);
    entry.timer = undefined;
    try {
      const value = await work(entry.session);
      // Closed while the work ran (close_session, shutdown): its run was stopped, say so.
      if (this.#open.get(entry.handle) !== entry) return { ok: false, message: this.#endedMessage(entry.handle) ?? `Session "${entry.handle}" was closed.` };
      return { ok: true, value };
    } catch (error) {
      if (!(error instanceof SandboxSessionEndedError)) throw error;
      await this.#end(entry, "has ended (a run in it timed out, ran out of memory or was cancelled, so its state could not be trusted)");
      return { ok: false, message: this.#endedMessage(entry.handle)! };
    } finally {
      entry.busy--;
      if (this.#open.get(entry.handle) === entry) this.#arm(entry);
    }
  }

  /** Closes the session of `handle`. */
  async close(handle: unknown): Promise<Lookup<{ language: Language }>> {
    const found = this.#find(handle);
    if (!found.ok) return found;
    const language = found.value.session.language;
    await this.#end(found.value, "was closed");
    return { ok: true, value: { language } };
  }

  /** Closes every session and stops every timer; later calls are refused. */
  async dispose(): Promise<void> {
    this.#closed = true;
    const entries = [...this.#open.values()];
    await Promise.all(entries.map((entry) => this.#end(entry, "was closed when the server shut down")));
  }

  #find(handle: unknown): Lookup<Entry> {
    const entry = typeof handle === "string" ? this.#open.get(handle) : undefined;
    if (entry !== undefined) return { ok: true, value: entry };
    const match = typeof handle === "string" ? HANDLE.exec(handle) : null;
    if (match === null) {
      return {
        ok: false,
        message: new InvalidOptionError("session", handle, 'a handle returned by open_session (it looks like "s-…-…"); open a session with open_session, or leave "session" out to run without one').message,
      };
    }
    const ended = this.#endedMessage(handle as string);
    if (ended !== undefined) return { ok: false, message: ended };
    if (match[1] !== this.#tag) {
      return {
        ok: false,
        message: `Session "${handle}" belongs to another server (or to this one before it restarted): a session lives only in the server that opened it. Open a new one with open_session and define what you need again.`,
      };
    }
    return { ok: false, message: `Session "${handle}" is not open on this server. Open a new one with open_session.` };
  }

  #endedMessage(handle: string): string | undefined {
    const reason = this.#ended.get(handle);
    if (reason === undefined) return undefined;
    return `Session "${handle}" ${reason}; what it defined is gone. Open a new one with open_session and define what you need again.`;
  }

  #arm(entry: Entry): void {
    if (entry.busy > 0 || this.#closed) return;
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      void this.#end(entry, `expired after ${idleText(this.options.idleMs)} without use`);
    }, this.options.idleMs);
    // An idle session never keeps the process alive by its timer.
    entry.timer.unref();
  }

  async #end(entry: Entry, reason: string): Promise<void> {
    if (this.#open.get(entry.handle) !== entry) return;
    this.#open.delete(entry.handle);
    clearTimeout(entry.timer);
    entry.timer = undefined;
    this.#ended.set(entry.handle, reason);
    await entry.session.dispose();
  }
}
