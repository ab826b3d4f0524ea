/**
 * The replay log of a thread (`codeCells`): one entry per cell that became part of the thread,
 * holding everything the cell's run drew on besides its code, so that running the log again
 * gives exactly the same session (see docs/code-mode.md, "State per thread"):
 *
 * - `hostCalls`: every host call (tools and plain host functions), in the order the cell made
 *   them, with what the guest received and the order the answers reached it (`order`);
 * - `seed` and `clock`: the seed of its randomness and the clock readings it made;
 * - `filesIn`: the files it saw that the log does not reproduce by itself (changed outside code,
 *   or by cells of another language, since the previous cell of its language); their contents
 *   are stored once, apart (`codeFileContents`, file-contents.ts);
 * - `env`: the host function names and globals it was given, when they changed;
 * - `ran`: the limits it ran under and how long it took (a replay's own budget).
 */
import type { ExecutionStatus, JsonValue, Language } from "../../sandbox/types.js";
import type { FileContentRef, ThreadFile, ThreadFilesUpdate } from "../thread/files.js";

/** One host call a cell made, as the guest saw it. */
export interface RecordedHostCall {
  /** Host function name (tools are `__tool_<name>`). */
  name: string;
  /** The arguments (empty when they are kept as `argsSha256`). */
  args: JsonValue[];
  /** SHA-256 of the arguments' JSON, for arguments too large to keep (a replay matches the digest). */
  argsSha256?: string;
  /** Bytes of the arguments' JSON, when they are kept as `argsSha256`. */
  argsBytes?: number;
  /** What the guest received (absent with `error`, or for `undefined`). */
  value?: JsonValue;
  error?: { name: string; message: string };
  /** Rank of this call's answer among the cell's answers (the order they reached the guest); -1 when the run ended before it was answered. */
  order: number;
}

/** Limits a cell ran under, and what it took. */
export interface CellLimitsRan {
  durationMs: number;
  timeoutMs: number;
  memoryLimitBytes: number;
  maxOutputBytes: number;
  maxHostCalls: number;
  maxHostCallsInFlight: number;
  maxResultBytes: number;
}

/**
 * The log's own default of each limit: a logged `ran` leaves out a limit equal to it, and a
 * replay reads a missing one as it. Part of the log's format: these values never change, whatever
 * the sandbox's defaults become (a changed sandbox default is logged in full).
 */
export const LOGGED_LIMIT_DEFAULTS: Readonly<Omit<CellLimitsRan, "durationMs">> = Object.freeze({
  timeoutMs: 5000,
  memoryLimitBytes: 64 * 1024 * 1024,
  maxOutputBytes: 1024 * 1024,
  maxHostCalls: 256,
  maxHostCallsInFlight: 8,
  maxResultBytes: 1024 * 1024,
});

/** What a cell's `ran` is logged as: the limits that differ from `LOGGED_LIMIT_DEFAULTS` (~150 bytes less a cell at the defaults). */
export function compactRan(ran: CellLimitsRan): LoggedRan {
  const out: LoggedRan = { durationMs: ran.durationMs };
  for (const key of Object.keys(LOGGED_LIMIT_DEFAULTS) as (keyof typeof LOGGED_LIMIT_DEFAULTS)[]) if (ran[key] !== LOGGED_LIMIT_DEFAULTS[key]) out[key] = ran[key];
  return out;
}

/** A logged `ran` with its left-out limits read as the log's defaults (undefined stays undefined: a log without limits). */
export function expandRan(ran: LoggedRan | undefined): CellLimitsRan | undefined {
  return ran === undefined ? undefined : { ...LOGGED_LIMIT_DEFAULTS, ...ran };
}

/** `ran` as the log holds it: `durationMs` and the limits that differ from `LOGGED_LIMIT_DEFAULTS`. */
export type LoggedRan = Pick<CellLimitsRan, "durationMs"> & Partial<Omit<CellLimitsRan, "durationMs">>;

/** What a cell was given besides files, when it differs from the cell before it of its language. */
export interface CellEnv {
  hostFunctions?: string[];
  globals?: Record<string, JsonValue>;
}

export type { FileContentRef } from "../thread/files.js";

/** One cell of the replay log. */
export interface CodeCell {
  /** Unique id (a live session knows exactly which cells it has run). */
  id: string;
  language: Language;
  code: string;
  /** Id of the cell before it in the thread's log (null for the first). */
  after?: string | null;
  /** How the cell ended (`success` or `runtime_error`). */
  status?: ExecutionStatus;
  hostCalls?: RecordedHostCall[];
  /** 32 hex digits: the seed of the cell's randomness. */
  seed?: string;
  /** The clock readings the cell made (see `encodeClock`). */
  clock?: string;
  env?: CellEnv;
  /** Files it saw that the log does not reproduce (thread path → file, `null`: deleted); in state a file's content is in `codeFileContents` (a `FileContentRef`). */
  filesIn?: Record<string, ThreadFile | FileContentRef | string | null> | ThreadFilesUpdate;
  ran?: LoggedRan;
  /** Log of versions before 0.2: tool calls only (no seed, clock or files). */
  toolCalls?: { name: string; input: JsonValue; output?: JsonValue; error?: { name: string; message: string } }[];
}

/**
 * Clock readings in a few characters: whole microseconds, the first as it is and each next one
 * as the difference to the one before, a run of equal differences as `d*n` (most readings of a
 * cell are a few microseconds apart, many are equal).
 *
 * @example
 * encodeClock([1000.5, 1000.5, 1000.5, 1002]); // "1000500,0*2,1500"
 */
export function encodeClock(readings: readonly number[] | undefined): string {
  if (!readings || readings.length === 0) return "";
  const micros = readings.map((t) => Math.round(t * 1000));
  const parts = [String(micros[0])];
  let previous = micros[0]!;
  for (let i = 1; i < micros.length; ) {
    const delta = micros[i]! - previous;
    let run = 1;
    while (i + run < micros.length && micros[i + run]! - micros[i + run - 1]! === delta) run++;
    parts.push(run > 1 ? `${delta}*${run}` : String(delta));
    previous = micros[i + run - 1]!;
    i += run;
  }
  return parts.join(",");
}

/** Readings back from `encodeClock` (undefined for text that is not one: the cell then replays with a fresh clock). */
export function decodeClock(text: string | undefined, max = 100_000): number[] | undefined {
  if (text === undefined) return undefined;
  if (text === "") return [];
  const out: number[] = [];
  let micros = 0;
  for (const [i, part] of text.split(",").entries()) {
    const [d, n] = part.split("*");
    const value = Number(d);
    const count = n === undefined ? 1 : Number(n);
    if (!Number.isSafeInteger(value) || !Number.isSafeInteger(count) || count < 1 || out.length + count > max) return undefined;
    for (let k = 0; k < count; k++) {
      micros = i === 0 ? value : micros + value;
      out.push(micros / 1000);
    }
  }
  return out;
}

/** The cells of `language`, in log order. */
export function cellsOf(cells: readonly CodeCell[], language: Language): CodeCell[] {
  return cells.filter((c) => c.language === language);
}
