/**
 * A node of Emscripten's in-memory file system (MEMFS) as the worker reads it: the fingerprint
 * (tests) and session images walk the same nodes. Runs inside the Deno worker.
 */
export interface MemfsNode {
  /** Inode number. */
  id: number;
  name: string;
  mode: number;
  rdev?: number;
  timestamp?: number;
  atime?: number;
  mtime?: number;
  ctime?: number;
  /** A file's bytes (a typed array) or a directory's entries (an object). */
  contents?: unknown;
  usedBytes?: number;
  link?: string;
  mounted?: { root: MemfsNode } | null;
}
