/**
 * Where a thread's files live, as code mode reads and writes them: in the graph state's
 * `files` channel (code mode's own, or deepagents' — the same data), or in a deepagents
 * backend (state, store, filesystem, composite, a sandbox), which is then the one source of
 * truth: what `write_file` wrote, code reads; what code writes, `read_file`, `ls`, `glob` and
 * `grep` find. deepagents is not a dependency: a backend is used through the methods of its
 * protocol (`BackendProtocolV2`).
 */
import {
  ancestorIn,
  fileBytes,
  invalidThreadPath,
  stateUpdateOf,
  threadFileCost,
  threadFilesAsBytes,
  type FileCaps,
  type FilesChange,
  type ThreadFiles,
  type ThreadFilesUpdate,
} from "./files.js";
import { formatBytes } from "../../common/bytes.js";

/** The part of deepagents' `BackendProtocolV2` code mode uses. */
export interface FilesBackend {
  glob(pattern: string, path?: string): unknown;
  readRaw(filePath: string): unknown;
  write(filePath: string, content: string): unknown;
  delete?(filePath: string): unknown;
  uploadFiles?(files: Array<[string, Uint8Array]>): unknown;
  downloadFiles?(paths: string[]): unknown;
}

/** A backend, or a factory of one from the tool's runtime (as deepagents' `backend` option takes). */
export type FilesBackendOption = FilesBackend | ((runtime: unknown) => FilesBackend | Promise<FilesBackend>);

/** The thread's files for one cell, and where its changes go. */
export interface FileSource {
  /** The thread's files now (thread path → bytes), within the caps, and notes on what is left out. */
  read(): Promise<{ files: Map<string, Uint8Array>; notes: string[] }>;
  /** Keeps a cell's changes; returns the state update (state-kept files) and notes on what failed. */
  write(change: FilesChange): Promise<{ update?: ThreadFilesUpdate; notes: string[] }>;
}

/** At most this many notes about files, the rest counted. */
const MAX_FILE_NOTES = 5;

/** Notes about files, bounded. */
export function boundedNotes(notes: string[]): string[] {
  return notes.length <= MAX_FILE_NOTES ? notes : [...notes.slice(0, MAX_FILE_NOTES), `... and ${notes.length - MAX_FILE_NOTES} more files like these`];
}

/** Files kept in the graph state (`files` channel). */
export function stateFileSource(files: ThreadFiles | undefined, caps: FileCaps): FileSource {
  return {
    async read() {
      const { files: bytes, notes } = threadFilesAsBytes(files, caps);
      return { files: bytes, notes: boundedNotes(notes) };
    },
    async write(change) {
      const update = stateUpdateOf(change, files);
      return Object.keys(update).length > 0 ? { update, notes: [] } : { notes: [] };
    },
  };
}

async function settle<T>(value: unknown): Promise<T> {
  return (await value) as T;
}

function errorOf(result: unknown): string | undefined {
  const e = (result as { error?: unknown } | null)?.error;
  return typeof e === "string" && e ? e : undefined;
}

/** Files in a deepagents backend. `runtime` is what a backend factory receives. */
export function backendFileSource(option: FilesBackendOption, runtime: unknown, caps: FileCaps): FileSource {
  let resolved: Promise<FilesBackend> | undefined;
  const backend = () => (resolved ??= Promise.resolve(typeof option === "function" ? option(runtime) : option));
  return {
    async read() {
      const b = await backend();
      const notes: string[] = [];
      const listed = await settle<{ files?: { path: string; is_dir?: boolean; size?: number }[]; error?: string }>(b.glob("**", "/"));
      if (errorOf(listed) && !listed.files) return { files: new Map(), notes: [`the backend's files could not be listed: ${errorOf(listed)!.slice(0, 200)}`] };
      const entries = (listed.files ?? []).filter((f) => !f.is_dir && typeof f.path === "string").sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      const wanted: string[] = [];
      let total = 0;
      const seen = new Set<string>();
      for (const entry of entries) {
        const path = entry.path.startsWith("/") ? entry.path : `/${entry.path}`;
        const skip = (why: string) => notes.push(`the backend's file ${path.slice(0, 200)} is not visible to code: ${why}`);
        const bad = invalidThreadPath(path);
        if (bad) {
          skip(bad);
          continue;
        }
        if (ancestorIn(path, seen)) {
          skip("a file holds its directory's name");
          continue;
        }
        // Sizes from the listing keep a large backend's files from ever being read.
        const size = typeof entry.size === "number" ? entry.size : 0;
        if (size > caps.maxFileBytes || total + threadFileCost(path, size) > caps.maxThreadFilesBytes || wanted.length + 1 > caps.maxThreadFiles) {
          skip(`it is over code mode's file caps (${formatBytes(size)}; maxFileBytes, maxThreadFilesBytes, maxThreadFiles)`);
          continue;
        }
        total += threadFileCost(path, size);
        seen.add(path);
        wanted.push(path);
      }
      const files = new Map<string, Uint8Array>();
      let bytesRead = 0;
      const keep = (path: string, bytes: Uint8Array | undefined) => {
        if (!bytes) return notes.push(`the backend's file ${path.slice(0, 200)} could not be read`);
        bytesRead += threadFileCost(path, bytes.byteLength);
        // A backend's listing may understate sizes: the caps hold on what was read.
        if (bytes.byteLength > caps.maxFileBytes || bytesRead > caps.maxThreadFilesBytes) return notes.push(`the backend's file ${path.slice(0, 200)} is not visible to code: it is over code mode's file caps`);
        files.set(path, bytes);
      };
      if (b.downloadFiles) {
        const got = await settle<{ path: string; content: Uint8Array | null }[]>(b.downloadFiles(wanted));
        const byPath = new Map((got ?? []).map((r) => [r.path, r.content]));
        for (const path of wanted) keep(path, byPath.get(path) ?? undefined);
      } else {
        for (const path of wanted) {
          const raw = await settle<{ data?: unknown }>(b.readRaw(path));
          keep(path, raw?.data === undefined ? undefined : fileBytes(raw.data));
        }
      }
      return { files, notes: boundedNotes(notes) };
    },
    async write(change) {
      const b = await backend();
      const notes: string[] = [];
      let update: ThreadFilesUpdate | undefined;
      const collect = (result: unknown) => {
        // A backend built with a runtime (deepagents' legacy mode) returns its state update instead of sending it.
        const u = (result as { filesUpdate?: unknown } | null)?.filesUpdate;
        if (u && typeof u === "object") update = { ...update, ...(u as ThreadFilesUpdate) };
      };
      for (const path of change.deleted) {
        if (!b.delete) {
          notes.push(`${path} was deleted by the code but the backend cannot delete files: it is still there`);
          continue;
        }
        const r = await settle<unknown>(b.delete(path));
        if (errorOf(r)) notes.push(`${path} could not be deleted from the backend: ${errorOf(r)!.slice(0, 200)}`);
        collect(r);
      }
      const written = [...change.written];
      if (written.length > 0 && b.uploadFiles) {
        const r = await settle<{ path: string; error: string | null }[]>(b.uploadFiles(written));
        for (const item of r ?? []) if (item.error) notes.push(`${item.path} could not be written to the backend: ${String(item.error).slice(0, 200)}`);
        collect(r);
      } else {
        for (const [path, bytes] of written) {
          const r = await settle<unknown>(b.write(path, Buffer.from(bytes).toString("utf8")));
          if (errorOf(r)) notes.push(`${path} could not be written to the backend: ${errorOf(r)!.slice(0, 200)}`);
          collect(r);
        }
      }
      return update ? { update, notes } : { notes };
    },
  };
}

/** Whether `value` can serve as a files backend (or a factory of one). */
export function isFilesBackendOption(value: unknown): value is FilesBackendOption {
  if (typeof value === "function") return true;
  const b = value as Partial<FilesBackend> | null;
  return b !== null && typeof b === "object" && typeof b.glob === "function" && typeof b.readRaw === "function" && typeof b.write === "function";
}
