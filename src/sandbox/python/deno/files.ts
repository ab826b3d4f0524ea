/**
 * The run's files in the interpreter's in-memory file system (Emscripten MEMFS; nothing here
 * touches a disk): `WORK_DIR` is emptied and filled before the program and is the working
 * directory of every run; afterwards its regular files are read back, bounded. The runner
 * checks the caps again on receipt (this code runs in the guest's realm).
 */

import { INTERPRETER_DIRECTORIES } from "../shared/bounds.js";

/** The working directory of every run (Pyodide's own default, empty in a fresh interpreter). */
export const WORK_DIR = "/home/pyodide";

/**
 * Where a run's files live: `WORK_DIR`, or with `filesAtRoot` the root `/`, whose interpreter
 * directories (`/lib`, `/tmp`, ...) are not files of the run.
 */
export interface FilesPlace {
  dir: string;
  /** Top-level names under `dir` that are not the run's. */
  skip: ReadonlySet<string>;
}

/** The place of a run's files. */
export function filesPlace(atRoot: boolean): FilesPlace {
  return atRoot ? { dir: "/", skip: new Set(INTERPRETER_DIRECTORIES) } : { dir: WORK_DIR, skip: new Set() };
}

const join = (dir: string, name: string) => (dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`);
/** Most files (and directories) read back from one run. */
export const MAX_FILE_COUNT = 10_000;
/** Deepest directory nesting read back. */
const MAX_DEPTH = 32;

/** The part of Emscripten's FS used here. */
export interface EmscriptenFs {
  mkdirTree(path: string): void;
  readdir(path: string): string[];
  lstat(path: string): { mode: number; size: number };
  isDir(mode: number): boolean;
  isFile(mode: number): boolean;
  unlink(path: string): void;
  rmdir(path: string): void;
  writeFile(path: string, data: Uint8Array): void;
  readFile(path: string): Uint8Array;
  chdir(path: string): void;
}

/**
 * Makes the place's directory the working directory; empties it when `clear`, then writes
 * `files` (a file under an interpreter directory is not written).
 *
 * @example
 * prepareWorkDir(py.FS, true, { "data/in.txt": bytes });
 */
export function prepareWorkDir(fs: EmscriptenFs, clear: boolean, files: Record<string, Uint8Array> | undefined, place: FilesPlace = filesPlace(false)): void {
  fs.mkdirTree(WORK_DIR);
  if (clear) removeContents(fs, place.dir, 0, place.skip);
  for (const [path, bytes] of Object.entries(files ?? {})) {
    if (place.skip.has(path.split("/")[0]!)) continue;
    const full = join(place.dir, path);
    const slash = full.lastIndexOf("/");
    if (slash > place.dir.length) fs.mkdirTree(full.slice(0, slash));
    fs.writeFile(full, bytes);
  }
  fs.chdir(place.dir);
}

function removeContents(fs: EmscriptenFs, dir: string, depth: number, skip: ReadonlySet<string> = new Set()): void {
  for (const name of fs.readdir(dir)) {
    if (name === "." || name === ".." || (depth === 0 && skip.has(name))) continue;
    const path = join(dir, name);
    const { mode } = fs.lstat(path);
    if (fs.isDir(mode) && depth < MAX_DEPTH * 4) {
      removeContents(fs, path, depth + 1);
      fs.rmdir(path);
    } else {
      fs.unlink(path);
    }
  }
}

/**
 * Reads back every regular file under `WORK_DIR` (symbolic links and other kinds are skipped),
 * or says why the set is over a cap.
 */
export function collectWorkDir(
  fs: EmscriptenFs,
  maxFileBytes: number,
  maxTotalFileBytes: number,
  place: FilesPlace = filesPlace(false),
): { files: Array<[string, Uint8Array]> } | { error: string } {
  const files: Array<[string, Uint8Array]> = [];
  let total = 0;
  let seen = 0;
  const walk = (dir: string, prefix: string, depth: number): string | undefined => {
    for (const name of fs.readdir(dir)) {
      if (name === "." || name === ".." || (depth === 0 && place.skip.has(name))) continue;
      if (++seen > MAX_FILE_COUNT) return `the program left more than ${MAX_FILE_COUNT} files and directories`;
      const path = join(dir, name);
      const relative = prefix ? `${prefix}/${name}` : name;
      const { mode, size } = fs.lstat(path);
      if (fs.isDir(mode)) {
        if (depth >= MAX_DEPTH) return `the program nested directories deeper than ${MAX_DEPTH} levels`;
        const problem = walk(path, relative, depth + 1);
        if (problem) return problem;
      } else if (fs.isFile(mode)) {
        if (size > maxFileBytes) return `file ${relative.slice(0, 200)} is ${size} bytes, over the ${maxFileBytes}-byte maxFileBytes limit`;
        total += size;
        if (total > maxTotalFileBytes) return `the files add up to more than the ${maxTotalFileBytes}-byte maxTotalFileBytes limit`;
        files.push([relative, fs.readFile(path)]);
      }
    }
    return undefined;
  };
  try {
    fs.mkdirTree(place.dir);
    const problem = walk(place.dir, "", 0);
    return problem ? { error: problem } : { files };
  } catch (error) {
    return { error: `the files could not be read back (${String(error).slice(0, 200)})` };
  }
}

interface MemfsNode {
  mode: number;
  contents?: unknown;
  mounted?: { root: MemfsNode } | null;
}

/**
 * Bytes the in-memory file system holds in file contents (the allocated size: MEMFS grows a
 * file's buffer ahead of its length). They live in JavaScript, outside the WebAssembly memory,
 * so a session's memory limit adds them to what it keeps.
 *
 * @example
 * fileSystemBytes(Module.FS.root, Module.FS); // 2545637 for the standard library alone
 */
export function fileSystemBytes(root: MemfsNode, fs: { isDir(mode: number): boolean; isFile(mode: number): boolean }): number {
  let total = 0;
  let visited = 0;
  const stack: Array<[MemfsNode, number]> = [[root, 0]];
  while (stack.length > 0 && visited < 1_000_000) {
    const [entry, depth] = stack.pop()!;
    visited += 1;
    const node = entry.mounted?.root ?? entry;
    const contents = node.contents;
    if (fs.isFile(node.mode)) {
      // Any typed array: MEMFS may keep a view it was handed (Int8Array of the heap, say).
      if (ArrayBuffer.isView(contents)) total += contents.byteLength;
      else if (Array.isArray(contents)) total += contents.length;
    } else if (fs.isDir(node.mode) && contents && typeof contents === "object" && depth < 256) {
      for (const child of Object.values(contents as Record<string, MemfsNode>)) stack.push([child, depth + 1]);
    }
  }
  return total;
}
