/**
 * Every host capability of a code-mode cell — its tools and its plain host functions alike —
 * passes through one of these two wrappers:
 *
 * - `HostCallRecorder` (a cell that runs for the first time): calls the real function, and
 *   records what the guest receives, capped: a value over `maxHostResultBytes`, or one that
 *   would take the cell's recording over `maxCellRecordBytes`, is not given to the guest (it
 *   gets an error naming the option) and is not stored. It also records the order in which the
 *   answers reached the guest.
 * - `HostCallReplayer` (a replay): answers every call from the recording, in the recorded order
 *   of answers; a call the recording does not have (another name or other arguments, or one
 *   call too many) fails the replay and never reaches a real function.
 */
import { createHash } from "node:crypto";
import { describeHostFailure } from "../../sandbox/host-call-context.js";
import type { HostFunction, JsonValue } from "../../sandbox/types.js";
import type { RecordedHostCall } from "./cell-log.js";

/** Default cap of one recorded host result (its JSON), in bytes: 1 MiB. */
export const DEFAULT_MAX_HOST_RESULT_BYTES = 1024 * 1024;
/** Default cap of everything one cell's host calls may return together, in bytes: 8 MiB. */
export const DEFAULT_MAX_CELL_RECORD_BYTES = 8 * 1024 * 1024;

/** Caps of a cell's recording. */
export interface RecordCaps {
  maxHostResultBytes: number;
  maxCellRecordBytes: number;
}

/** An error the guest sees with exactly this name and message. */
class GuestError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
    this.stack = `${name}: ${message}`;
  }
}

/** The JSON text of a call's arguments (as the replay compares them), or "null" when they have none. */
function argsJson(args: JsonValue[]): string {
  try {
    return JSON.stringify(args) ?? "null";
  } catch {
    return "null";
  }
}

/** Bytes of a recorded call's JSON besides its name, arguments and value (`{"name":..,"args":..,"order":..}`). */
const ENTRY_BYTES = 40;
/** Bytes a call's arguments kept as their digest count for (the digest and its field). */
const DIGEST_BYTES = 80;

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Records the host calls of one cell (see the module comment). */
export class HostCallRecorder {
  private readonly calls: RecordedHostCall[] = [];
  private settled = 0;
  private bytes = 0;
  private closed = false;

  constructor(private readonly caps: RecordCaps) {}

  /** Bytes recorded so far (arguments and values). */
  get recordedBytes(): number {
    return this.bytes;
  }

  /**
   * The recording as the run left it (call this when the run has ended): an answer that
   * arrives later never reached the guest, so it is not in the recording.
   */
  close(): RecordedHostCall[] {
    this.closed = true;
    return this.calls.map((c) => ({ ...c }));
  }

  /** The functions, each recording its calls. */
  wrap(functions: Record<string, HostFunction>): Record<string, HostFunction> {
    const out: Record<string, HostFunction> = {};
    for (const [name, fn] of Object.entries(functions)) {
      out[name] = async (...args: JsonValue[]) => {
        if (this.closed) throw new GuestError("HostCallError", "the program that made this call has ended");
        const entry: RecordedHostCall = { name, args, order: -1 };
        this.calls.push(entry);
        // Arguments count against the cell's cap like values: arguments larger than one value may
        // be are kept as their digest (a replay still matches them), and past the cell's cap the
        // call is refused and kept as its digest, so no cell's recording outgrows its caps (200
        // calls with 4 MB arguments once made an 800 MB log).
        const json = argsJson(args);
        const bytes = Buffer.byteLength(json);
        const asDigest = () => {
          entry.args = [];
          entry.argsSha256 = sha256(json);
          entry.argsBytes = bytes;
        };
        if (bytes > this.caps.maxHostResultBytes) asDigest();
        // The entry's own fields count too (a million calls of `note()` hold more than their arguments).
        const stored = ENTRY_BYTES + name.length + (entry.argsSha256 === undefined ? bytes : DIGEST_BYTES);
        if (this.bytes + stored > this.caps.maxCellRecordBytes) {
          if (entry.argsSha256 === undefined) asDigest();
          const message = `the host calls of this program have sent and received more than ${this.caps.maxCellRecordBytes} bytes in all (maxCellRecordBytes); ${shownName(name)} was not called with these ${bytes} bytes of arguments: do the rest in a next program`;
          entry.error = { name: "HostResultLimitError", message };
          this.bytes += DIGEST_BYTES + message.length;
          entry.order = this.settled++;
          throw new GuestError("HostResultLimitError", message);
        }
        this.bytes += stored;
        try {
          const raw: unknown = await fn(...args);
          const value = this.admit(name, raw);
          if (value !== undefined) entry.value = value;
          entry.order = this.settled++;
          return value;
        } catch (error) {
          const { name: errorName, message } = describeHostFailure(error);
          entry.error = { name: errorName, message };
          this.bytes += errorName.length + message.length;
          entry.order = this.settled++;
          throw new GuestError(errorName, message);
        }
      };
    }
    return out;
  }

  /** The value as the guest will receive it (a JSON copy), or a throw when it is over a cap. */
  private admit(name: string, raw: unknown): JsonValue | undefined {
    if (raw === undefined) return undefined;
    // A string's JSON is at least as many bytes as it has characters: refuse without copying it.
    if (typeof raw === "string" && raw.length > this.caps.maxHostResultBytes) {
      throw new GuestError(
        "HostResultLimitError",
        `${shownName(name)} returned more than ${this.caps.maxHostResultBytes} bytes of JSON, over the cap of one result (maxHostResultBytes); ask for less`,
      );
    }
    let text: string | undefined;
    try {
      text = JSON.stringify(raw);
    } catch (error) {
      throw new GuestError("TypeError", `the value of ${name}() is not JSON (${describeHostFailure(error).message})`);
    }
    if (text === undefined) return undefined;
    const bytes = Buffer.byteLength(text);
    if (bytes > this.caps.maxHostResultBytes) {
      throw new GuestError(
        "HostResultLimitError",
        `${shownName(name)} returned ${bytes} bytes of JSON, over the ${this.caps.maxHostResultBytes}-byte cap of one result (maxHostResultBytes); ask for less`,
      );
    }
    if (this.bytes + bytes > this.caps.maxCellRecordBytes) {
      throw new GuestError(
        "HostResultLimitError",
        `the host calls of this program have returned more than ${this.caps.maxCellRecordBytes} bytes in all (maxCellRecordBytes); ${shownName(name)}'s value was not delivered: do the rest in a next program`,
      );
    }
    this.bytes += bytes;
    return JSON.parse(text) as JsonValue;
  }
}

/** How a tool's host function reads for a model. */
function shownName(name: string): string {
  return name.startsWith("__tool_") ? `tools.${name.slice("__tool_".length)}` : name;
}

/** Whether a replayed call's arguments are those recorded (by digest when the recording kept only that). */
function sameArgs(recorded: RecordedHostCall, args: JsonValue[]): boolean {
  if (typeof recorded.argsSha256 === "string") return sha256(argsJson(args)) === recorded.argsSha256;
  return JSON.stringify(recorded.args) === JSON.stringify(args);
}

/** Why a replay did not follow its recording (the first time it did not). */
export interface ReplayDivergence {
  message: string;
}

/** Answers a replayed cell's host calls from its recording (see the module comment). */
export class HostCallReplayer {
  private index = 0;
  private nextOrder = 0;
  private readonly waiting = new Map<number, () => void>();
  private releasing = false;
  /** Set at the first call the recording does not have. */
  divergence: ReplayDivergence | undefined;

  constructor(private readonly recording: readonly RecordedHostCall[]) {}

  /** Calls the recording did not answer (0 when the replay made every recorded call). */
  get unanswered(): number {
    return this.recording.length - this.index;
  }

  /** Host functions named `names`, each answered from the recording. */
  functions(names: readonly string[]): Record<string, HostFunction> {
    const out: Record<string, HostFunction> = {};
    for (const name of names) out[name] = (...args: JsonValue[]) => this.answer(name, args);
    return out;
  }

  private answer(name: string, args: JsonValue[]): Promise<JsonValue | undefined> {
    const i = this.index;
    const recorded = this.recording[i];
    if (!recorded || recorded.name !== name || !sameArgs(recorded, args)) {
      const message = !recorded
        ? `the replayed cell made a host call the recording does not have (${shownName(name)}, call ${i + 1})`
        : `the replayed cell called ${shownName(name)} where the recording has ${shownName(recorded.name)}${recorded.name === name ? " with other arguments" : ""} (call ${i + 1})`;
      this.divergence ??= { message };
      return Promise.reject(new GuestError("RestoreError", `${message}; the real function is not called during a restore`));
    }
    this.index++;
    return new Promise((resolve, reject) => {
      this.waiting.set(recorded.order, () => {
        if (recorded.error) reject(new GuestError(recorded.error.name, recorded.error.message));
        else resolve(recorded.value);
      });
      this.release();
    });
  }

  /**
   * Answers, in their recorded order, every call whose turn has come: one answer per turn of
   * the event loop, so that the engine, which sends each answer when its promise settles, sends
   * them to the guest in exactly that order (an answer settled in the same tick as its call is
   * made would otherwise overtake one that was waiting).
   */
  private release(): void {
    if (this.releasing || !this.waiting.has(this.nextOrder)) return;
    this.releasing = true;
    setImmediate(() => {
      this.releasing = false;
      const next = this.waiting.get(this.nextOrder);
      if (!next) return;
      this.waiting.delete(this.nextOrder);
      this.nextOrder++;
      next();
      this.release();
    });
  }
}
