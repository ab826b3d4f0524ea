/**
 * The graph-state channels of code mode: `files` (the thread's virtual files) and `codeCells`
 * (the replay log: every cell that ran successfully, with the tool results it got). Both are
 * plain JSON, so any checkpointer stores them.
 */
import { z } from "zod";
import { ReducedValue, StateSchema } from "@langchain/langgraph";
import { LANGUAGES, type JsonValue, type Language } from "../sandbox/types.js";
import { mergeFiles, type ThreadFilesUpdate, type ThreadFiles } from "./files.js";
import type { RecordedToolCall } from "./tool-bridge.js";

/** One cell of the replay log. */
export interface CodeCell {
  /** Unique id (so a live session knows exactly which cells it has run). */
  id: string;
  language: Language;
  code: string;
  /** Tool calls the cell made, with their results: a replay answers from these. */
  toolCalls: RecordedToolCall[];
}

/** The code-mode part of a graph's state. */
export interface CodeModeState {
  files?: ThreadFiles;
  codeCells?: CodeCell[];
}

const threadFile = z.object({ encoding: z.enum(["utf-8", "base64"]), content: z.string() });
// Tool inputs and outputs are JSON already (they crossed the sandbox boundary as JSON).
const jsonValue = z.custom<JsonValue>(() => true);
const recordedCall = z.object({
  name: z.string(),
  input: jsonValue,
  output: jsonValue.optional(),
  error: z.object({ name: z.string(), message: z.string() }).optional(),
});
const codeCell = z.object({
  id: z.string(),
  language: z.enum(LANGUAGES as [Language, ...Language[]]),
  code: z.string(),
  toolCalls: z.array(recordedCall),
});

/** Zod schema of the `files` channel's value. */
export const threadFilesSchema = z.record(z.string(), threadFile);

/**
 * The state fields of code mode, for a `StateSchema` or a middleware's `stateSchema`:
 * `files` merges updates (`null` deletes a path; a plain string is UTF-8 text) and `codeCells`
 * appends cells it does not have yet (by id).
 */
export const codeModeStateFields = {
  files: new ReducedValue(threadFilesSchema.default(() => ({})), {
    inputSchema: z.record(z.string(), z.union([threadFile, z.string(), z.null()])).optional(),
    reducer: (current: ThreadFiles, next: ThreadFilesUpdate | undefined) => mergeFiles(current, next),
  }),
  codeCells: new ReducedValue(z.array(codeCell).default(() => []), {
    inputSchema: z.array(codeCell).optional(),
    // Idempotent: createAgent feeds the whole current state back in as input on every invoke.
    reducer: (current: CodeCell[], next: CodeCell[] | undefined) => {
      const seen = new Set((current ?? []).map((c) => c.id));
      return [...(current ?? []), ...(next ?? []).filter((c) => !seen.has(c.id))];
    },
  }),
};

/**
 * The code-mode channels as a LangGraph `StateSchema` (for graphs you build yourself; the
 * middleware adds them to `createAgent` for you).
 */
export const codeModeStateSchema = new StateSchema(codeModeStateFields);
