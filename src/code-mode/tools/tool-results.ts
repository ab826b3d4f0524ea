/**
 * The caps on what tools called from code hand to the guest (and so to the replay log and the
 * artifact, which store exactly what the guest received): one result's JSON, and all of a cell's
 * tool calls together. A value is measured while it is serialised and the work stops as soon as
 * it is known to be over the cap, so a tool that returns 50 MB costs the host no second copy.
 */
import { createHash } from "node:crypto";
import type { JsonValue } from "../../sandbox/types.js";

import { DEFAULT_MAX_CELL_RECORD_BYTES, DEFAULT_MAX_HOST_RESULT_BYTES } from "../replay/host-call-log.js";
/** Nesting beyond this is refused: no tool result that deep is meant for code, and the guest's parser would overflow. */
export const MAX_TOOL_RESULT_DEPTH = 100;

/** The caps of one run's tool calls, and the options that set them (named in the guest's error). */
export interface ToolResultCaps {
  /** Cap of one result's JSON, in bytes. */
  maxResultBytes: number;
  /** The option the guest is told to raise when a result is over `maxResultBytes`. */
  resultOption: string;
  /** Cap of all of a cell's tool calls together (inputs and results), in bytes. */
  maxCellBytes: number;
  /** The option that sets `maxCellBytes`. */
  cellOption: string;
}

/** Caps with the defaults of code mode. */
export function defaultToolResultCaps(): ToolResultCaps {
  return {
    maxResultBytes: DEFAULT_MAX_HOST_RESULT_BYTES,
    resultOption: "maxHostResultBytes",
    maxCellBytes: DEFAULT_MAX_CELL_RECORD_BYTES,
    cellOption: "maxCellRecordBytes",
  };
}

/**
 * The caps of one run in `language`: Python's engine also refuses any value passed into the
 * sandbox over the run's `maxResultBytes`, so a tool result there is capped by the smaller of
 * the two (and the error names the one that binds), and what the guest would not receive is
 * never recorded.
 */
export function capsForRun(caps: ToolResultCaps | undefined, language: string, runMaxResultBytes: number | undefined): ToolResultCaps {
  const base = caps ?? defaultToolResultCaps();
  if (language !== "python" || runMaxResultBytes === undefined || runMaxResultBytes >= base.maxResultBytes) return base;
  return { ...base, maxResultBytes: runMaxResultBytes, resultOption: "maxResultBytes" };
}

/** Why a value could not be handed to the guest. */
export type EncodeFailure = { kind: "too_large"; atLeastBytes: number } | { kind: "not_json"; reason: string };

/** A value as JSON: its text and byte length, or why it has none. */
export type Encoded = { json: string | undefined; bytes: number } | { failure: EncodeFailure };

class OverCap extends Error {
  constructor(readonly atLeastBytes: number) {
    super("over cap");
  }
}
class TooDeep extends Error {}

/**
 * Serialises `value` as JSON, stopping as soon as it is known to be longer than `capBytes` bytes
 * or deeper than {@link MAX_TOOL_RESULT_DEPTH}. A string is measured without being copied.
 *
 * @example
 * ```ts
 * encodeBounded({ a: 1 }, 100); // { json: '{"a":1}', bytes: 7 }
 * encodeBounded("x".repeat(1e6), 100); // { failure: { kind: "too_large", atLeastBytes: 1000000 } }
 * ```
 */
export function encodeBounded(value: unknown, capBytes: number): Encoded {
  if (value === undefined) return { json: undefined, bytes: 0 };
  // A string's JSON is at least as long as the string: refuse before copying it.
  if (typeof value === "string" && value.length > capBytes) return { failure: { kind: "too_large", atLeastBytes: value.length } };
  let estimate = 0;
  const ancestors: unknown[] = [];
  const replacer = function (this: unknown, key: string, v: unknown): unknown {
    // `this` is the object holding `v`: unwind to it, so `ancestors` is the path from the root.
    while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
    // A lower bound of the JSON's length (so nothing under the cap is refused): an object's
    // key in quotes with its colon, a string's characters, one character for anything else.
    const isRoot = ancestors.length === 0;
    if (!isRoot && !Array.isArray(this)) estimate += key.length + 3;
    if (typeof v === "string") estimate += v.length + 2;
    else estimate += 1;
    if (v !== null && typeof v === "object") {
      ancestors.push(v);
      if (ancestors.length > MAX_TOOL_RESULT_DEPTH) throw new TooDeep();
    }
    if (estimate > capBytes) throw new OverCap(estimate);
    return v;
  };
  let json: string | undefined;
  try {
    json = JSON.stringify(value, replacer);
  } catch (error) {
    if (error instanceof OverCap) return { failure: { kind: "too_large", atLeastBytes: error.atLeastBytes } };
    if (error instanceof TooDeep) return { failure: { kind: "not_json", reason: `it is nested deeper than ${MAX_TOOL_RESULT_DEPTH} levels` } };
    const message = error instanceof Error ? error.message : String(error);
    return { failure: { kind: "not_json", reason: message.slice(0, 200) } };
  }
  if (json === undefined) return { json: undefined, bytes: 0 };
  const bytes = Buffer.byteLength(json);
  if (bytes > capBytes) return { failure: { kind: "too_large", atLeastBytes: bytes } };
  return { json, bytes };
}

/** A short stand-in for an input too large to keep in the log: replays match it by hash. */
export function inputDigest(json: string): string {
  return createHash("sha256").update(json).digest("hex");
}


/** The parsed form of `encoded` (plain JSON, nothing of the host's objects). */
export function decodeEncoded(encoded: { json: string | undefined }): JsonValue {
  return encoded.json === undefined ? null : (JSON.parse(encoded.json) as JsonValue);
}
