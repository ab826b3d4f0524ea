/**
 * Makes a directory tree of the in-memory file system read-only at the file-system level: the
 * standard library (`/lib/python314.zip`), site-packages and lib-dynload. Write bits are removed
 * (so `open` for writing, `O_TRUNC` and writable shared `mmap` fail with EACCES: Emscripten checks
 * the mode), and every operation that would change a node or a directory's entries (chmod,
 * utime, truncate, rename, unlink, rmdir, mknod, symlink, write, msync) fails with EROFS. A pool
 * interpreter is replaced after any such attempt anyway (they are not pure imports); this keeps a
 * session's own interpreter, and every later import from it, intact.
 *
 * Runs inside the Deno worker, before any user code.
 */

/** The part of Emscripten's FS used here. */
export interface ReadOnlyFs {
  lookupPath(path: string): { node: ReadOnlyNode };
  isDir(mode: number): boolean;
  isFile(mode: number): boolean;
  ErrnoError: new (errno: number) => Error;
}
interface ReadOnlyNode {
  mode: number;
  contents?: unknown;
  node_ops: Record<string, unknown>;
  stream_ops: Record<string, unknown>;
}

const WRITE_BITS = 0o222;
const NODE_CHANGES = ["setattr", "mknod", "rename", "unlink", "rmdir", "symlink"];
const STREAM_CHANGES = ["write", "allocate", "msync"];

/**
 * Makes `path` and everything under it read-only; returns the number of nodes changed.
 *
 * @example
 * makeReadOnly(Module.FS, "/lib", Module.ERRNO_CODES.EROFS);
 */
export function makeReadOnly(fs: ReadOnlyFs, path: string, erofs: number): number {
  const refuse = () => {
    throw new fs.ErrnoError(erofs);
  };
  let count = 0;
  const visit = (node: ReadOnlyNode, depth: number) => {
    count += 1;
    node.mode &= ~WRITE_BITS;
    const nodeOps = { ...node.node_ops };
    for (const name of NODE_CHANGES) if (name in nodeOps) nodeOps[name] = refuse;
    node.node_ops = Object.freeze(nodeOps);
    const streamOps = { ...node.stream_ops };
    for (const name of STREAM_CHANGES) if (name in streamOps) streamOps[name] = refuse;
    node.stream_ops = Object.freeze(streamOps);
    if (fs.isDir(node.mode) && depth < 64 && node.contents && typeof node.contents === "object") {
      for (const child of Object.values(node.contents as Record<string, ReadOnlyNode>)) visit(child, depth + 1);
    }
  };
  visit(fs.lookupPath(path).node, 0);
  return count;
}
