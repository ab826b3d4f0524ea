/**
 * The `Command` a thread call returns: its `ToolMessage`, the new log cell (`codeCells`), the
 * file changes (`files`) and the contents they refer to (`codeFileContents`, or the graph's
 * store with `fileContents: "store"`, written before the checkpoint can name them).
 */
import type { ToolRuntime } from "@langchain/core/tools";
import { ToolMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import type { ThreadFilesUpdate } from "../thread/files.js";
import type { FileSource } from "../thread/file-sources.js";
import { moveContentsOut } from "../thread/file-contents.js";
import type { ContentCache } from "../thread/content-cache.js";
import { referencedUpdate, type StoredContents } from "../thread/stored-contents.js";
import type { CellOutcome } from "../replay/runner.js";
import { artifactOf, writtenFiles } from "./artifact.js";
import type { ExecuteCodeInput } from "./input-schema.js";
import type { ToolMessageContent } from "./tool-message.js";
import type { RunImage } from "./images.js";

/** One finished thread call, as `threadCommand` turns it into a state update. */
export interface FinishedCall {
  input: ExecuteCodeInput;
  outcome: CellOutcome;
  /** What the file source kept of the call's writes. */
  kept: Awaited<ReturnType<FileSource["write"]>> | undefined;
  stored: StoredContents | undefined;
  message: { content: ToolMessageContent; images: RunImage[] };
  runtime: Partial<ToolRuntime> | undefined;
  toolName: string;
  contentsInStore: boolean;
  /** The thread's files live in a deepagents backend (there is no `files` channel). */
  backend: boolean;
  contentCache: ContentCache;
}

/** The `Command` that updates the thread's state with `call`. */
export async function threadCommand(call: FinishedCall): Promise<Command> {
  const { outcome, kept, stored, contentsInStore, runtime } = call;
  const update: Record<string, unknown> = {};
  if (kept?.update !== undefined && Object.keys(kept.update).length > 0) update.files = kept.update;
  // The log's contents move out of its cells where they have a place to go: the graph's
  // store (fileContents: "store") or `codeFileContents`; otherwise they stay inline.
  const moved = outcome.cell && (contentsInStore || stored?.channel) ? moveContentsOut(outcome.cell, stored?.known ?? {}) : undefined;
  if (outcome.cell) update.codeCells = [moved?.cell ?? outcome.cell];
  let added = moved?.added ?? {};
  if (stored?.graphStore && contentsInStore) {
    // The contents go to the graph's store before the checkpoint can name them.
    const toPut = new Map(Object.entries(added));
    added = {};
    const files = referencedUpdate(kept?.update, outcome.files.written, stored.stateFiles, toPut);
    if (Object.keys(files).length > 0) update.files = files;
    else delete update.files;
    await call.contentCache.put(stored.graphStore, stored.namespace, toPut);
  }
  // Written with every file write too (empty when nothing is new), so the channel's copies
  // keep pace with those of `files` and a read's walk back to its last copy is no longer
  // (file-contents.ts); with a backend there is no `files` channel, and it keeps pace with
  // the log instead. In store mode it stays empty and is not written (an empty channel has no walk).
  const touch = (update.files !== undefined || (call.backend && outcome.cell !== undefined)) && !(contentsInStore && stored?.channelEmpty);
  if (stored?.channel && (touch || Object.keys(added).length > 0)) update.codeFileContents = added;
  update.messages = [
    new ToolMessage({
      content: call.message.content,
      artifact: artifactOf(call.input, outcome, writtenFiles(outcome, update.files as ThreadFilesUpdate | undefined), call.message.images),
      tool_call_id: runtime?.toolCallId ?? runtime?.toolCall?.id ?? "",
      name: call.toolName,
      status: outcome.result.status === "success" ? "success" : "error",
    }),
  ];
  return new Command({ update });
}
