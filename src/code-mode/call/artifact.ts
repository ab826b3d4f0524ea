/**
 * The artifact of an `execute_code` call: the code that ran, its result, and only what it wrote.
 */
import type { ExecutionResult, Language } from "../../sandbox/types.js";
import { toThreadFile, type ThreadFile, type ThreadFilesUpdate } from "../thread/files.js";
import { isContentRef } from "../thread/file-contents.js";
import type { StoredFileRef } from "../thread/content-store.js";
import type { ArtifactToolCall, CellOutcome, RestoreReport } from "../replay/runner.js";
import type { ExecuteCodeInput } from "./input-schema.js";
import type { RunImage } from "./images.js";

/** A written file in an artifact when its content is in the graph's store (`fileContents: "store"`): read it with `readStoredFile`. */
export interface ArtifactFileRef {
  contentSha256: string;
  size: number;
  mimeType?: string;
}

/** Artifact of an `execute_code` call: the code that ran, its result, and only what it wrote. */
export interface ExecuteCodeArtifact {
  code: string;
  language: Language;
  /** The run's result (without the file set: `files` below has what the run changed). */
  result: Omit<ExecutionResult, "files" | "clockReads">;
  /** Tool calls the code made, with what they gave the code (an output over 4 KiB by its size, `outputBytes`: the thread's log has it). */
  toolCalls?: ArtifactToolCall[];
  /** Files the code wrote (path → file data, text or base64; with `fileContents: "store"` a reference), deleted, and refused. */
  files?: { written: Record<string, ThreadFile | ArtifactFileRef>; deleted: string[]; refused: string[] };
  /** When earlier cells of the thread were replayed into a fresh session before this one. */
  restore?: RestoreReport;
  /** Set when the run was stopped from outside and left the thread as it was (why). */
  rolledBack?: string;
  /** Images among the written files (`images/` first); their bytes are in `files.written`. Absent with `images: "off"`. */
  images?: RunImage[];
}

/** The artifact of a call from its outcome, the files it wrote (`writtenFiles`) and its images. */
export function artifactOf(input: ExecuteCodeInput, outcome: CellOutcome, written: Record<string, ThreadFile | ArtifactFileRef> | undefined, images?: RunImage[]): ExecuteCodeArtifact {
  const { files: _files, clockReads: _clock, ...result } = outcome.result;
  const artifact: ExecuteCodeArtifact = { code: input.code, language: input.language, result };
  if (images && images.length > 0) artifact.images = images;
  if (outcome.toolCalls.length > 0) artifact.toolCalls = outcome.toolCalls;
  if (written) artifact.files = { written, deleted: outcome.files.deleted, refused: outcome.files.refused };
  if (outcome.restore) artifact.restore = outcome.restore;
  if (outcome.rolledBack) artifact.rolledBack = outcome.rolledBack;
  return artifact;
}

/** The files a call wrote, as its artifact names them (a reference where the update holds one). */
export function writtenFiles(outcome: CellOutcome, refs?: ThreadFilesUpdate): Record<string, ThreadFile | ArtifactFileRef> | undefined {
  if (outcome.files.written.size === 0 && outcome.files.deleted.length === 0 && outcome.files.refused.length === 0) return undefined;
  const out: Record<string, ThreadFile | ArtifactFileRef> = {};
  for (const [path, bytes] of outcome.files.written) {
    const ref = refs?.[path];
    if (ref && typeof ref === "object" && isContentRef(ref)) {
      // The file's dates are in state: the artifact names the content (and its size, type).
      const { contentSha256, size, mimeType } = ref as StoredFileRef;
      out[path] = { contentSha256, size, ...(mimeType ? { mimeType } : {}) };
    } else out[path] = toThreadFile(path, bytes);
  }
  return out;
}
