/**
 * The graph-state channels of code mode: `files` (the thread's files, deepagents' file data by
 * absolute path), `codeCells` (the replay log) and `codeFileContents` (the contents of the files
 * the log refers to, once each: file-contents.ts). All are delta channels: a checkpoint stores
 * what a step wrote (a cell, the files it changed), and a full copy only once the writes since
 * the last one add up to the value's size (or after `MAX_UPDATES_BETWEEN_COPIES` updates; see
 * copy-policy.ts), so checkpoint bytes per call follow what the call wrote, not the thread's
 * size. All are plain JSON (strings and numbers), so every checkpointer keeps them as they are.
 */
import { z } from "zod";
import { DeltaValue, Overwrite, StateSchema } from "@langchain/langgraph";
import { LANGUAGES, type Language } from "../../sandbox/types.js";
import { mergeFiles, type ThreadFile, type ThreadFiles, type ThreadFilesUpdate } from "./files.js";
import { MAX_UPDATES_BETWEEN_COPIES, withCopyPolicy, type CopyMeasure } from "./copy-policy.js";
import type { CodeCell } from "../replay/cell-log.js";
import { addContents, type FileContents } from "./file-contents.js";

export type { CodeCell } from "../replay/cell-log.js";

/** The code-mode part of a graph's state. */
export interface CodeModeState {
  files?: ThreadFiles;
  codeCells?: CodeCell[];
  codeFileContents?: FileContents;
}


const stringOrBytes = z.union([z.string(), z.instanceof(Uint8Array), z.array(z.string()), z.record(z.string(), z.number())]);
const threadFile = z.object({ content: stringOrBytes, mimeType: z.string().optional(), created_at: z.string(), modified_at: z.string() }).passthrough();
// The form of this package's versions before 0.2 (read, never written).
const legacyFile = z.object({ encoding: z.enum(["utf-8", "base64"]), content: z.string() });
const fileValue = z.union([threadFile, legacyFile]);
// A file of a cell's `filesIn` whose content is in `codeFileContents` (file-contents.ts).
const contentRef = z.object({ contentSha256: z.string(), mimeType: z.string().optional(), created_at: z.string(), modified_at: z.string() });
// A file of `files` whose content is in the graph's store (content-store.ts), and the update that moves one there.
const storedRef = contentRef.extend({ size: z.number() });
const contentMove = storedRef.extend({ sameContentOnly: z.literal(true) });
// Recorded values crossed the sandbox boundary as JSON already; their size is capped where they are recorded.
const json = z.custom<unknown>(() => true);
const recordedCall = z.object({
  name: z.string(),
  args: z.array(json),
  argsSha256: z.string().optional(),
  argsBytes: z.number().optional(),
  value: json.optional(),
  error: z.object({ name: z.string(), message: z.string() }).optional(),
  // -1: the run ended before this call was answered (the guest never received an answer).
  order: z.number().int().min(-1),
});
// Limits equal to the log's defaults are left out (cell-log.ts, LOGGED_LIMIT_DEFAULTS).
const limitsRan = z.object({
  durationMs: z.number(),
  timeoutMs: z.number().optional(),
  memoryLimitBytes: z.number().optional(),
  maxOutputBytes: z.number().optional(),
  maxHostCalls: z.number().optional(),
  maxHostCallsInFlight: z.number().optional(),
  maxResultBytes: z.number().optional(),
});
const codeCell = z
  .object({
    id: z.string(),
    language: z.enum(LANGUAGES as [Language, ...Language[]]),
    code: z.string(),
    after: z.string().nullable().optional(),
    status: z.string().optional(),
    hostCalls: z.array(recordedCall).optional(),
    seed: z.string().optional(),
    clock: z.string().optional(),
    env: z.object({ hostFunctions: z.array(z.string()).optional(), globals: z.record(z.string(), json).optional() }).optional(),
    filesIn: z.record(z.string(), z.union([fileValue, contentRef, z.string(), z.null()])).optional(),
    ran: limitsRan.optional(),
    // The log of this package's versions before 0.2 (tool calls only; replayed as far as it goes).
    toolCalls: z.array(z.object({ name: z.string(), input: json, output: json.optional(), error: z.object({ name: z.string(), message: z.string() }).optional() })).optional(),
  })
  .passthrough();

/**
 * A state field for both a `StateSchema` (LangGraph sees a `DeltaValue`) and a LangChain agent
 * middleware's state schema (which reads each field as a zod schema and knows only
 * `ReducedValue`): a permissive zod schema that carries the `DeltaValue`'s fields and marker.
 */
function deltaField<V, I>(delta: DeltaValue<V, I>): z.ZodDefault<z.ZodType<V>> {
  const field = z.custom<V>(() => true).optional();
  const source = delta as unknown as Record<PropertyKey, unknown>;
  for (const key of [Symbol.for("langgraph.state.delta_value"), "valueSchema", "inputSchema", "reducer", "snapshotFrequency", "jsonSchemaExtra"]) {
    Object.defineProperty(field, key, { value: source[key], enumerable: false });
  }
  return field as unknown as z.ZodDefault<z.ZodType<V>>;
}

/** Reducer of `codeCells`: appends the cells it does not have yet (by id), in order. */
export function appendCells(current: CodeCell[] | undefined, writes: readonly (CodeCell[] | undefined)[]): CodeCell[] {
  const out = [...(current ?? [])];
  // Idempotent: createAgent feeds the whole current state back in as input on every invoke.
  const seen = new Set(out.map((c) => c.id));
  for (const write of writes) {
    for (const cell of write ?? []) {
      if (seen.has(cell.id)) continue;
      seen.add(cell.id);
      out.push(cell);
    }
  }
  return out;
}

/** The JSON length of `value` (what the checkpointer's serializer writes, near enough); 0 for what is not JSON. */
function jsonBytes(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return 0; // not JSON (a hand-written value): the checkpointer will say so; the measure must not throw
  }
}

// A file's JSON length, measured once per file object (a file set keeps the same objects from step
// to step). JSON, not the content's length: text that JSON escapes (control characters) takes up
// to 6 bytes per character, and a copy must not cost more than the writes it is measured against.
const fileSizes = new WeakMap<object, number>();
function entryBytes(path: string, file: object | string | null): number {
  if (file === null || typeof file !== "object") return path.length + 8 + (typeof file === "string" ? jsonBytes(file) : 0);
  let n = fileSizes.get(file);
  if (n === undefined) fileSizes.set(file, (n = jsonBytes(file)));
  return path.length + 8 + n;
}

function filesBytes(files: ThreadFilesUpdate | ThreadFiles): number {
  let n = 0;
  for (const [path, file] of Object.entries(files)) n += entryBytes(path, file);
  return n;
}

const filesMeasure: CopyMeasure<ThreadFiles, ThreadFilesUpdate | undefined> = { valueBytes: filesBytes, writeBytes: (w) => filesBytes(w ?? {}) };

// A cell's JSON length, measured once per cell object (a log holds the same objects from step to step).
const cellSizes = new WeakMap<CodeCell, number>();
function cellBytes(cell: CodeCell): number {
  let n = cellSizes.get(cell);
  if (n === undefined) cellSizes.set(cell, (n = jsonBytes(cell)));
  return n;
}

const cellsMeasure: CopyMeasure<CodeCell[], CodeCell[] | undefined> = {
  valueBytes: (cells) => cells.reduce((n, c) => n + cellBytes(c), 0),
  writeBytes: (cells) => (cells ?? []).reduce((n, c) => n + cellBytes(c), 0),
};

// The store's JSON length, measured once per value object (a step that adds nothing keeps the object).
const storeSizes = new WeakMap<object, number>();
function storeBytes(store: FileContents): number {
  let n = storeSizes.get(store);
  if (n === undefined) {
    n = 0;
    for (const [digest, content] of Object.entries(store)) n += digest.length + 4 + jsonBytes(content);
    storeSizes.set(store, n);
  }
  return n;
}

const contentsMeasure: CopyMeasure<FileContents, FileContents | undefined> = { valueBytes: storeBytes, writeBytes: (w) => storeBytes(w ?? {}) };

/**
 * The state fields of code mode, for a `StateSchema` or a middleware's `stateSchema`:
 * `files` merges updates (`null` deletes a path; a plain string is UTF-8 text) and `codeCells`
 * appends cells it does not have yet (by id). `resetCodeState()` is the update that clears a
 * thread's code state.
 */
export const codeModeStateFields = {
  files: deltaField(
    new DeltaValue(z.record(z.string(), z.union([fileValue, storedRef])).default(() => ({})) as unknown as z.ZodType<ThreadFiles>, {
      inputSchema: z.record(z.string(), z.union([contentMove, fileValue, storedRef, z.string(), z.null()])).optional() as unknown as z.ZodType<ThreadFilesUpdate | undefined>,
      reducer: withCopyPolicy((current: ThreadFiles, writes: (ThreadFilesUpdate | undefined)[]) => mergeFiles(current, writes), filesMeasure),
      snapshotFrequency: MAX_UPDATES_BETWEEN_COPIES,
    }),
  ),
  codeCells: deltaField(
    new DeltaValue(z.array(codeCell).default(() => []) as unknown as z.ZodType<CodeCell[]>, {
      inputSchema: z.array(codeCell).optional() as unknown as z.ZodType<CodeCell[] | undefined>,
      reducer: withCopyPolicy(appendCells, cellsMeasure),
      snapshotFrequency: MAX_UPDATES_BETWEEN_COPIES,
    }),
  ),
  codeFileContents: deltaField(
    new DeltaValue(z.record(z.string(), z.string()).default(() => ({})) as unknown as z.ZodType<FileContents>, {
      inputSchema: z.record(z.string(), z.string()).optional() as unknown as z.ZodType<FileContents | undefined>,
      reducer: withCopyPolicy(addContents, contentsMeasure),
      snapshotFrequency: MAX_UPDATES_BETWEEN_COPIES,
    }),
  ),
};

/**
 * The code-mode channels as a LangGraph `StateSchema` (for graphs you build yourself; the
 * middleware adds them to `createAgent` for you).
 */
export const codeModeStateSchema = new StateSchema(codeModeStateFields);

/**
 * The state update that resets a thread's code state: its log is emptied, so the next call
 * starts a fresh session (definitions and the interpreter's scratch space are gone; the
 * thread's files stay).
 *
 * @example
 * ```ts
 * await agent.updateState({ configurable: { thread_id: "t1" } }, resetCodeState());
 * ```
 */
export function resetCodeState(): { codeCells: Overwrite<CodeCell[]> } {
  return { codeCells: new Overwrite<CodeCell[]>([]) };
}
