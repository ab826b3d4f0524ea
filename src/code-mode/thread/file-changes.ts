/**
 * A cell's file changes in the state's form (`ThreadFilesUpdate`), and applying one to a set of
 * bytes: how a later call of the same AI message sees what the calls before it wrote.
 */
import { fileBytes, toThreadFile, type ThreadFilesUpdate } from "./files.js";
import type { CellOutcome } from "../replay/runner.js";

/** Applies a state-form files update to a set of bytes (thread paths). */
export function applyUpdate(files: Map<string, Uint8Array>, update: ThreadFilesUpdate | undefined): void {
  for (const [path, value] of Object.entries(update ?? {})) {
    if (value === null) files.delete(path);
    else {
      const bytes = fileBytes(value);
      if (bytes) files.set(path, bytes);
    }
  }
}

/** A cell's file changes in state form (what a later call of the same message must see). */
export function changeAsUpdate(outcome: CellOutcome): ThreadFilesUpdate {
  const update: ThreadFilesUpdate = {};
  for (const path of outcome.files.deleted) update[path] = null;
  for (const [path, bytes] of outcome.files.written) update[path] = toThreadFile(path, bytes);
  return update;
}
