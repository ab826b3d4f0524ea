/**
 * Snapshots of a Python session between runs (code mode's `snapshots`), taken and restored in
 * place. A session is (a) its WebAssembly instance — the linear memory, the mutable globals, the
 * function table, Pyodide's JavaScript reference table (hiwire) — and (b) JavaScript objects:
 * the in-memory file system (Emscripten MEMFS: nodes, descriptors, cwd) and whatever else
 * Python reached. An image carries all of (a) and the file system, and refuses everything else:
 *
 * - memory: the pages that differ from the fresh interpreter's (a session interpreter starts on a
 *   fixed clock and seed, so every fresh one of a build is the same, byte for byte: its digest is
 *   checked); a restore writes them over a fresh interpreter, so the restored memory is the live
 *   one byte for byte;
 * - globals: the stack pointer, stack limits and `tempRet0` are carried; the GOT globals and the
 *   function table must be those of a fresh interpreter (a loaded extension module refuses);
 * - hiwire: every slot Python holds must be a fresh interpreter's own slot, a named capability
 *   (the host bridge, the timers) or a primitive; any other JavaScript object refuses;
 * - files: every node but the read-only `/lib` and the devices is carried (ids, modes, times,
 *   contents, entry order) and rebuilt with the same inode numbers; no descriptor beyond 0–2 may
 *   be open;
 * - the rest of JavaScript: every object reachable as properties from the module, Pyodide's API,
 *   the `js` globals and the realm is hashed (files and a few listed scalars left out); a restore
 *   refuses an image whose hash is not a fresh interpreter's.
 *
 * This realm is the guest's after its first run: every function used here was captured at load.
 * Runs inside the Deno worker.
 */
import { Buffer } from "node:buffer";
import nodeCrypto from "node:crypto";
import type { BaselineModule } from "./interpreter-baseline.js";
import type { MemfsNode as FsNode } from "./memfs-node.js";
import { byteLengthGetter as byteLengthOf, defineProperty, getOwnPropertyDescriptor, getPrototypeOf, isArray, isExtensible, isView, ownKeys, ReflectApply, TypedArraySet, TypedArraySubarray, Uint8ArrayCtor } from "./primordials.js";

const MapCtor = Map;
const MapGet = Map.prototype.get;
const MapSet = Map.prototype.set;
const MapHas = Map.prototype.has;
const MapClear = Map.prototype.clear;
const SetCtor = Set;
const SetHas = Set.prototype.has;
const SetAdd = Set.prototype.add;
const StringSlice = String.prototype.slice;
const StringIncludes = String.prototype.includes;
const symbolDescription = Object.getOwnPropertyDescriptor(Symbol.prototype, "description")!.get!;
const BufferFrom = Buffer.from;
const BufferCompare = Buffer.compare;
const Uint32ArrayCtor = Uint32Array;
const createHash = nodeCrypto.createHash;
const hashProto = Object.getPrototypeOf(createHash("sha256")) as { update: (data: string | Uint8Array) => unknown; digest: (encoding: string) => string };
const HashUpdate = hashProto.update;
const HashDigest = hashProto.digest;
const HashDigestBytes = hashProto.digest as unknown as () => Uint8Array;
const NumberIsSafeInteger = Number.isSafeInteger;
const ObjectCreate = Object.create;
const ObjectIs = Object.is;

/**
 * Intrinsics no property path from the realm's global reaches (iterator and function-kind
 * prototypes): Python reaches them through an instance (`to_js([1]).values()`), so the walk
 * starts from them too. Taken at load, before any guest code.
 */
const HIDDEN_INTRINSICS: readonly unknown[] = (() => {
  const proto = Object.getPrototypeOf;
  return [
    proto([][Symbol.iterator]()),
    proto(new Map().entries()),
    proto(new Set().values()),
    proto(""[Symbol.iterator]()),
    proto(/a/[Symbol.matchAll]("")),
    proto(function* () {}),
    proto(async function () {}),
    proto(async function* () {}),
  ];
})();

/** Appends as an own data property: no setter the guest put on a prototype runs. */
function append<T>(list: T[], value: T): void {
  defineProperty(list, list.length, { value, writable: true, enumerable: true, configurable: true });
}

/** A record without a prototype, so assignments cannot reach a setter the guest defined. */
function bare<T extends object>(): T {
  return ObjectCreate(null) as T;
}

/** A primitive as JSON keeps it (NaN, infinities, -0 and undefined included). */
export type EncodedPrimitive = ["u"] | ["n"] | ["b", boolean] | ["d", string] | ["s", string];
function encodePrimitive(value: unknown): EncodedPrimitive | undefined {
  if (value === undefined) return ["u"];
  if (value === null) return ["n"];
  if (typeof value === "boolean") return ["b", value];
  if (typeof value === "number") return ["d", ObjectIs(value, -0) ? "-0" : String(value)];
  if (typeof value === "string") return ["s", value];
  return undefined;
}
function decodePrimitive(encoded: unknown): { value: unknown } | undefined {
  if (!Array.isArray(encoded)) return undefined;
  switch (encoded[0]) {
    case "u":
      return { value: undefined };
    case "n":
      return { value: null };
    case "b":
      return typeof encoded[1] === "boolean" ? { value: encoded[1] } : undefined;
    case "d":
      return typeof encoded[1] === "string" && (encoded[1] === "NaN" || !Number.isNaN(Number(encoded[1]))) ? { value: encoded[1] === "-0" ? -0 : Number(encoded[1]) } : undefined;
    case "s":
      return typeof encoded[1] === "string" ? { value: encoded[1] } : undefined;
    default:
      return undefined;
  }
}

/** Bytes of a page of an image. */
export const IMAGE_PAGE_BYTES = 4096;
/** Most file-system nodes an image carries, and most bytes of file contents. */
const MAX_NODES = 10_000;
const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Hiwire slots and interned values looked at at most (the slot table grows by 1,024). */
const MAX_SLOTS = 1 << 20;

/** The parts of Pyodide's Emscripten module an image needs: the pool baseline's, the interned values and the file system. */
export interface ImageModule extends Omit<BaselineModule, "FS" | "SYSCALLS"> {
  __hiwire_immortal_get(index: number): unknown;
  __hiwire_immortal_add(value: unknown): number;
  FS: ImageFs;
}

/** The part of Emscripten's FS an image reads and rebuilds. */
export interface ImageFs {
  root: FsNode;
  nextInode: number;
  currentPath: string;
  streams: Array<Record<string, unknown> | null | undefined>;
  nameTable: unknown;
  mounts: unknown;
  isDir(mode: number): boolean;
  isFile(mode: number): boolean;
  isLink(mode: number): boolean;
  lookupPath(path: string, options?: object): { node: FsNode };
  mknod(path: string, mode: number, dev: number): FsNode;
  mkdir(path: string, mode: number): FsNode;
  symlink(target: string, path: string): FsNode;
}

/** One file-system node of an image, in walk order (parents before children). */
interface ImageNode {
  /** Path from the root. */
  path: string;
  id: number;
  mode: number;
  times: [number, number, number];
  /** A fresh interpreter's own node (kept, not rebuilt: its mode and times are carried). */
  fresh?: true;
  /** A directory's entry names, in their order. */
  entries?: string[];
  /** A file's contents: offset and length in the image's file bytes. */
  bytes?: [number, number];
  link?: string;
}

/** The worker-side part of an image (`state`, JSON made by the runner). */
export interface ImageState {
  format: 1;
  /** Digest of the fresh interpreter's memory the pages are taken against. */
  fresh: string;
  javascript: string;
  stack: [number, number, number, number];
  /** Occupied hiwire slots: a fresh interpreter's own, a named capability, or a primitive. */
  slots: Array<[number, "fresh"] | [number, "capability", string] | [number, "value", EncodedPrimitive]>;
  /** Interned values past a fresh interpreter's. */
  immortals: EncodedPrimitive[];
  nodes: ImageNode[];
  nextInode: number;
  cwd: string;
  /** Scalars of descriptors 0–2 and their shared records. */
  streams: Array<Array<[string, EncodedPrimitive]>>;
  /** The files' contents one after another, base64 (added by the runner from `fileBytes`). */
  files?: string;
}

/** An image as the worker posts it. */
export interface SessionImage {
  memoryBytes: number;
  pageIndex: Uint32Array;
  pages: Uint8Array;
  /** The files' contents, one after another (`ImageNode.bytes` are offsets in it). */
  fileBytes: Uint8Array;
  state: ImageState;
}

/** A fresh interpreter's state that images are taken against (captured before any user code). */
export interface FreshInterpreter {
  /** SHA-256 (first 16 bytes) of each page of the fresh memory, and a digest of them all. */
  pageHashes: Uint8Array;
  hashedPages: number;
  digest: string;
  tableEntries: unknown[];
  got: unknown[];
  slots: Map<number, unknown>;
  immortals: unknown[];
  /** Path → node of the fresh file system, and the paths in walk order. */
  nodes: Map<string, FsNode>;
  paths: string[];
  streams: Array<Record<string, unknown> | null | undefined>;
  streamKeys: string[][];
  mountCount: number;
}

const isPrimitive = (value: unknown): boolean => encodePrimitive(value) !== undefined;

/** Top-level trees a fresh interpreter's nodes must stay in (only their modes and times are carried). */
const FIXED_TREES = ["/lib", "/dev", "/proc"];
function inFixedTree(path: string): boolean {
  for (let i = 0; i < FIXED_TREES.length; i++) {
    const tree = FIXED_TREES[i]!;
    if (path === tree || ReflectApply(StringSlice, path, [0, tree.length + 1]) === `${tree}/`) return true;
  }
  return false;
}

function childPath(path: string, name: string): string {
  return path === "/" ? `/${name}` : `${path}/${name}`;
}

/** Visits every node, parents first, each directory's entries in their order; `visit` says whether to go into a directory. */
function walkTree(fs: ImageFs, visit: (node: FsNode, path: string, depth: number) => boolean): void {
  const nodes: FsNode[] = [fs.root];
  const paths: string[] = ["/"];
  const depths: number[] = [0];
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    const path = paths[i]!;
    if (!visit(node, path, depths[i]!)) continue;
    const contents = node.contents;
    if (!fs.isDir(node.mode) || contents === null || typeof contents !== "object" || isView(contents)) continue;
    const names = ownKeys(contents as object);
    for (let k = 0; k < names.length; k++) {
      const name = names[k]!;
      if (typeof name !== "string") continue;
      append(nodes, (contents as Record<string, FsNode>)[name]!);
      append(paths, childPath(path, name));
      append(depths, depths[i]! + 1);
    }
  }
}

function streamScalars(stream: Record<string, unknown> | null | undefined): Array<[string, EncodedPrimitive]> {
  const out: Array<[string, EncodedPrimitive]> = [];
  if (stream === null || typeof stream !== "object") return out;
  const targets = [stream, stream.shared];
  for (let t = 0; t < 2; t++) {
    const target = targets[t];
    if (target === null || typeof target !== "object") continue;
    const keys = ownKeys(target);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      if (typeof key !== "string") continue;
      const descriptor = getOwnPropertyDescriptor(target, key);
      const encoded = descriptor && "value" in descriptor ? encodePrimitive(descriptor.value) : undefined;
      if (encoded) append(out, [t === 0 ? key : `shared.${key}`, encoded]);
    }
  }
  return out;
}

function slotsOf(module: ImageModule, each: (index: number, value: unknown) => string | undefined): string | undefined {
  for (let i = 0; i < MAX_SLOTS; i++) {
    let value: unknown;
    try {
      if ((module.__hiwire_slot_info(i) & 1) !== 1) continue;
      value = module.__hiwire_get(i);
    } catch {
      return undefined; // past the table's end
    }
    const refusal = each(i, value);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

function immortalsOf(module: ImageModule, each: (index: number, value: unknown) => string | undefined): string | undefined {
  for (let i = 0; i < MAX_SLOTS; i++) {
    let value: unknown;
    try {
      value = module.__hiwire_immortal_get(i);
    } catch {
      return undefined;
    }
    const refusal = each(i, value);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

/** Bytes of a page hash. */
const HASH_BYTES = 16;

/** Writes the hash of `page` into `out` at `at`. */
function hashPage(page: Uint8Array, out: Uint8Array, at: number): void {
  const hash = createHash("sha256");
  ReflectApply(HashUpdate, hash, [page]);
  const digest = ReflectApply(HashDigestBytes, hash, []) as Uint8Array;
  ReflectApply(TypedArraySet, out, [ReflectApply(TypedArraySubarray, digest, [0, HASH_BYTES]), at]);
}

/**
 * Hashes the fresh memory's pages, `chunk` pages a call (a session hashes in the background
 * after it is ready, and finishes before any user code runs): true once done.
 */
export function hashFreshPages(source: { HEAPU8: Uint8Array }, fresh: FreshInterpreter, chunk: number): boolean {
  const heap = source.HEAPU8;
  const pages = fresh.pageHashes.length / HASH_BYTES;
  const start = fresh.hashedPages;
  const end = Math.min(pages, start + chunk);
  for (let page = start; page < end; page++) hashPage(heap.subarray(page * IMAGE_PAGE_BYTES, (page + 1) * IMAGE_PAGE_BYTES), fresh.pageHashes, page * HASH_BYTES);
  fresh.hashedPages = end;
  if (end < pages) return false;
  if (fresh.digest === "") {
    const hash = createHash("sha256");
    hash.update(`${heap.byteLength}\0`);
    hash.update(fresh.pageHashes);
    fresh.digest = hash.digest("hex");
  }
  return true;
}

/** Captures a fresh interpreter's state (at init, before any user code); its pages are hashed by `hashFreshPages`. */
export function captureFresh(module: ImageModule, got: ReadonlyArray<{ value: unknown }>): FreshInterpreter {
  const table = module.wasmTable;
  const tableEntries: unknown[] = [];
  for (let i = 0; i < table.length; i++) tableEntries.push(table.get(i));
  const slots = new Map<number, unknown>();
  slotsOf(module, (i, value) => void slots.set(i, value));
  const immortals: unknown[] = [];
  immortalsOf(module, (_i, value) => void immortals.push(value));
  const nodes = new Map<string, FsNode>();
  const paths: string[] = [];
  walkTree(module.FS, (node, path) => {
    nodes.set(path, node);
    paths.push(path);
    return true;
  });
  const streams = [...module.FS.streams];
  return {
    pageHashes: new Uint8Array((module.HEAPU8.byteLength / IMAGE_PAGE_BYTES) * HASH_BYTES),
    hashedPages: 0,
    digest: "",
    tableEntries,
    got: got.map((g) => g.value),
    slots,
    immortals,
    nodes,
    paths,
    streams,
    streamKeys: streams.filter((s) => s !== null && s !== undefined).map((s) => streamScalars(s).map(([key]) => key)),
    mountCount: isArray(module.FS.mounts) ? (module.FS.mounts as unknown[]).length : -1,
  };
}

/** A walk of the JavaScript graph that can stop and go on (a fresh session walks in the background). */
export interface GraphWalk {
  /** Walks up to `objects` more objects; true once the walk is done. */
  step(objects: number): boolean;
  /** The hash, once done ("" when the graph passed the walk's bounds: no image then). */
  digest(): string;
}

/** Objects and own keys a walk looks at at most (a fresh interpreter has ~31,000 and ~150,000): past them, no image. */
const MAX_WALK_OBJECTS = 400_000;
const MAX_WALK_KEYS = 4_000_000;

/**
 * Hashes the JavaScript objects reachable as properties from `roots` (their prototypes, own
 * keys, attributes and primitive values), leaving out the file system (carried apart), the
 * memory's views and a few listed scalars. Proxies are not entered (their traps would run
 * Python). Map and Set entries and closures are not seen: what Python can change there is what
 * it holds (hiwire, checked apart; the objects a fresh interpreter's Python holds are `held` roots). Runs in the guest's realm: captured functions only.
 */
export function walkJavascript(roots: { api: unknown; globals: unknown; js: unknown; module: object; pyodide: unknown; held: readonly unknown[] }, fs: ImageFs, isProxy: (value: unknown) => boolean): GraphWalk {
  const module = roots.module;
  const realmGlobal = roots.globals;
  const leftOut = new SetCtor<unknown>();
  ReflectApply(SetAdd, leftOut, [fs.root]);
  ReflectApply(SetAdd, leftOut, [fs.nameTable]);
  ReflectApply(SetAdd, leftOut, [fs.streams]);
  ReflectApply(SetAdd, leftOut, [fs.mounts]);
  // File-system nodes and descriptors, wherever they are reached from: carried apart.
  const fsClasses = fs as unknown as { FSNode?: { prototype: object }; FSStream?: { prototype: object } };
  const nodePrototype = fsClasses.FSNode?.prototype;
  const streamPrototype = fsClasses.FSStream?.prototype;
  const syscalls = (module as { SYSCALLS?: object }).SYSCALLS;
  const leftOutKey = (object: object, key: string | symbol): boolean => {
    if (object === fs) return key === "nextInode" || key === "currentPath";
    // A scratch pointer of the last system call with variable arguments.
    if (object === syscalls) return key === "varargs";
    // Deno deletes and defines this global again on its first internal use.
    if (object === realmGlobal) return key === "queueMicrotask";
    // The stack's top seen by the last await, the worker's own interrupt buffer, the memory's
    // views and a decoder Emscripten makes on first use: none is state of the session.
    if (object === module) return typeof key === "string" && (key === "stackStop" || key === "Py_EmscriptenSignalBuffer" || key === "wasmMemory" || key === "_asciiTextDecoder" || ReflectApply(StringSlice, key, [0, 4]) === "HEAP");
    return false;
  };
  const ids = new MapCtor<object, number>();
  let count = 0;
  const queue: object[] = [];
  const hash = createHash("sha256");
  const emit = (line: string) => void ReflectApply(HashUpdate, hash, [`${line}\n`]);
  const visit = (value: unknown): string => {
    if (value === null) return "null";
    const type = typeof value;
    if (type === "symbol") return `symbol:${String(ReflectApply(symbolDescription, value, []))}`;
    if (type !== "object" && type !== "function") return `${type}:${String(value)}`;
    const object = value as object;
    let id = ReflectApply(MapGet, ids, [object]) as number | undefined;
    if (id === undefined) {
      id = count++;
      ReflectApply(MapSet, ids, [object, id]);
      append(queue, object);
    }
    return `#${id}`;
  };
  emit(`roots ${visit(roots.api)} ${visit(roots.globals)} ${visit(roots.js)} ${visit(module)} ${visit(roots.pyodide)}`);
  // What a fresh interpreter's Python holds and the capabilities are roots too: an object only
  // Python reaches (Pyodide's loadedPackages, the host-call function) can be changed through
  // its handle, and a restore would bring back the fresh one (found by the red team).
  let heldLine = "held";
  for (let i = 0; i < HIDDEN_INTRINSICS.length; i++) heldLine += ` ${visit(HIDDEN_INTRINSICS[i])}`;
  for (let i = 0; i < roots.held.length; i++) heldLine += ` ${visit(roots.held[i])}`;
  emit(heldLine);
  let next = 0;
  let result = "";
  let done = false;
  let keysLeft = MAX_WALK_KEYS;
  const walkOne = (i: number) => {
    const object = queue[i]!;
    const prototype = getPrototypeOf(object);
    if (ReflectApply(SetHas, leftOut, [object]) || (prototype !== null && (prototype === nodePrototype || prototype === streamPrototype))) return emit(`#${i} left out`);
    if (isProxy(object)) return emit(`#${i} proxy`);
    if (isView(object)) return emit(`#${i} view`);
    let text = `#${i} proto ${visit(prototype)} ext ${isExtensible(object)}`;
    const keys = ownKeys(object);
    keysLeft -= keys.length;
    if (keysLeft < 0) return;
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      const descriptor = getOwnPropertyDescriptor(object, key);
      if (!descriptor || leftOutKey(object, key)) continue;
      const name = typeof key === "symbol" ? `@${String(ReflectApply(symbolDescription, key, []))}` : key;
      const flags = `${descriptor.enumerable ? "e" : ""}${descriptor.configurable ? "c" : ""}`;
      if ("value" in descriptor) text += ` ${name}=${visit(descriptor.value)}${descriptor.writable ? "w" : ""}${flags}`;
      else text += ` ${name}=get${visit(descriptor.get)}set${visit(descriptor.set)}${flags}`;
    }
    emit(text);
  };
  return {
    step(objects: number): boolean {
      if (done) return true;
      // The queue grows as the walk goes: its length is read at every object.
      const stop = next + objects;
      for (; next < queue.length && next < MAX_WALK_OBJECTS && next < stop && keysLeft >= 0; next++) {
        try {
          walkOne(next);
        } catch {
          // An object whose keys cannot be read (a module namespace before its bindings, say).
          emit(`#${next} unreadable`);
        }
      }
      if (keysLeft >= 0 && next < queue.length && next < MAX_WALK_OBJECTS) return false;
      done = true;
      result = keysLeft >= 0 && next >= queue.length ? (ReflectApply(HashDigest, hash, ["hex"]) as string) : "";
      // Only the hash is kept (a walk's maps hold ~31,000 objects).
      ReflectApply(MapClear, ids, []);
      queue.length = 0;
      return true;
    },
    digest: () => result,
  };
}

/** What `takeImage` needs besides the module. */
export interface TakeInputs {
  fresh: FreshInterpreter;
  got: ReadonlyArray<{ value: unknown }>;
  /** Named capabilities Python may hold (object → name). */
  capabilities: ReadonlyMap<unknown, string>;
  javascript: string;
}

/** The session's image, or why it cannot be taken now. Runs in the guest's realm: captured functions only. */
export function takeImage(module: ImageModule, inputs: TakeInputs): SessionImage | string {
  const { fresh, capabilities } = inputs;
  if (inputs.javascript === "") return "the JavaScript side is too large to check";
  const table = module.wasmTable;
  if (table.length !== fresh.tableEntries.length) return "the function table grew (an extension module was loaded)";
  for (let i = 0; i < fresh.tableEntries.length; i++) if (table.get(i) !== fresh.tableEntries[i]) return "the function table changed";
  for (let i = 0; i < inputs.got.length; i++) if (inputs.got[i]!.value !== fresh.got[i]) return "a dynamic-linking global changed";

  const slots: ImageState["slots"] = [];
  const slotRefusal = slotsOf(module, (i, value) => {
    if (ReflectApply(MapHas, fresh.slots, [i]) && ReflectApply(MapGet, fresh.slots, [i]) === value) append(slots, [i, "fresh"]);
    else if (ReflectApply(MapHas, capabilities, [value])) append(slots, [i, "capability", ReflectApply(MapGet, capabilities, [value]) as string]);
    else {
      const encoded = encodePrimitive(value);
      if (!encoded) return `Python holds a JavaScript ${typeof value} (reference ${i})`;
      append(slots, [i, "value", encoded]);
    }
    return undefined;
  });
  if (slotRefusal) return slotRefusal;
  const immortals: EncodedPrimitive[] = [];
  const immortalRefusal = immortalsOf(module, (i, value) => {
    if (i < fresh.immortals.length) return value === fresh.immortals[i] ? undefined : "an interned JavaScript value changed";
    const encoded = encodePrimitive(value);
    if (!encoded) return `Python interned a JavaScript ${typeof value}`;
    append(immortals, encoded);
    return undefined;
  });
  if (immortalRefusal) return immortalRefusal;

  const fs = module.FS;
  const streams: ImageState["streams"] = [];
  for (let fd = 0; fd < fs.streams.length; fd++) {
    const stream = fs.streams[fd];
    if (fd < fresh.streams.length && stream === fresh.streams[fd]) {
      if (stream !== null && stream !== undefined) append(streams, streamScalars(stream));
    } else if (stream !== null && stream !== undefined) return `file descriptor ${fd} is open`;
  }
  for (let fd = fs.streams.length; fd < fresh.streams.length; fd++) if (fresh.streams[fd]) return `file descriptor ${fd} was closed`;
  if ((isArray(fs.mounts) ? (fs.mounts as unknown[]).length : -1) !== fresh.mountCount) return "a file system was mounted or unmounted";

  const nodes: ImageNode[] = [];
  const fileParts: Uint8Array[] = [];
  const seen = new SetCtor<string>();
  let fileBytes = 0;
  let refusal = "";
  walkTree(fs, (node, path, depth) => {
    if (refusal) return false;
    if (nodes.length >= MAX_NODES || depth > 64) {
      refusal = "the file system has too many nodes";
      return false;
    }
    ReflectApply(SetAdd, seen, [path]);
    const freshNode = ReflectApply(MapGet, fresh.nodes, [path]) as FsNode | undefined;
    const fixed = inFixedTree(path);
    const entry = bare<ImageNode>();
    entry.path = path;
    entry.id = node.id;
    entry.mode = node.mode;
    entry.times = [Number(node.atime ?? 0), Number(node.mtime ?? 0), Number(node.ctime ?? 0)];
    if (freshNode === node) entry.fresh = true;
    else if (fixed || freshNode !== undefined) {
      refusal = `${path} was replaced or added`;
      return false;
    }
    append(nodes, entry);
    if (node.mounted) {
      if (!entry.fresh) refusal = `${path} is a mount point`;
      return false;
    }
    if (fs.isDir(node.mode)) {
      const contents = node.contents;
      if (contents === null || typeof contents !== "object" || isView(contents)) {
        if (!entry.fresh) refusal = `${path} is not a plain directory`;
        return false;
      }
      const names = ownKeys(contents as object);
      const entries: string[] = [];
      for (let k = 0; k < names.length; k++) {
        const name = names[k];
        if (typeof name !== "string") continue;
        // A name a restore would refuse (MEMFS takes names past 255 characters): refused here, not after a wasted restore.
        if (name.length === 0 || name.length > 255 || name === "." || name === ".." || ReflectApply(StringIncludes, name, ["/"]) || ReflectApply(StringIncludes, name, ["\0"])) {
          refusal = `${path} holds a name an image cannot carry`;
          return false;
        }
        append(entries, name);
      }
      entry.entries = entries;
      return true;
    }
    if (entry.fresh) {
      if (fs.isFile(node.mode) && !fixed) refusal = `${path} is a file of a fresh interpreter outside /lib`;
      return false;
    }
    if (fs.isFile(node.mode)) {
      const contents = node.contents;
      const used = Number(node.usedBytes ?? 0);
      const bytes = isView(contents) ? (ReflectApply(TypedArraySubarray, contents, [0, used]) as Uint8Array) : new Uint8ArrayCtor(0);
      const length = ReflectApply(byteLengthOf, bytes, []) as number;
      entry.bytes = [fileBytes, length];
      fileBytes += length;
      if (fileBytes > MAX_FILE_BYTES) refusal = "the file system holds too many bytes";
      append(fileParts, bytes);
    } else if (fs.isLink(node.mode)) entry.link = String(node.link);
    else refusal = `${path} is a device or a pipe`;
    return false;
  });
  if (refusal) return refusal;
  for (let i = 0; i < fresh.paths.length; i++) {
    const path = fresh.paths[i]!;
    if (!ReflectApply(SetHas, seen, [path]) && !inFixedTree(path)) return `${path} was removed`;
  }

  // Memory: the pages whose hash differs from the fresh page's, and the non-zero pages past it.
  const heap = module.HEAPU8;
  const memoryBytes = ReflectApply(byteLengthOf, heap, []) as number;
  const live = ReflectApply(BufferFrom, Buffer, [heap.buffer, heap.byteOffset, memoryBytes]) as Uint8Array;
  const freshPages = (ReflectApply(byteLengthOf, fresh.pageHashes, []) as number) / HASH_BYTES;
  const zero = new Uint8ArrayCtor(IMAGE_PAGE_BYTES);
  const now = new Uint8ArrayCtor(HASH_BYTES);
  const index: number[] = [];
  for (let page = 0; page * IMAGE_PAGE_BYTES < memoryBytes; page++) {
    const bytes = ReflectApply(TypedArraySubarray, live, [page * IMAGE_PAGE_BYTES, (page + 1) * IMAGE_PAGE_BYTES]) as Uint8Array;
    if (page < freshPages) {
      hashPage(bytes, now, 0);
      if (BufferCompare(now, ReflectApply(TypedArraySubarray, fresh.pageHashes, [page * HASH_BYTES, (page + 1) * HASH_BYTES])) !== 0) append(index, page);
    } else if (BufferCompare(bytes, zero) !== 0) append(index, page);
  }
  const pageIndex = new Uint32ArrayCtor(index.length);
  const pages = new Uint8ArrayCtor(index.length * IMAGE_PAGE_BYTES);
  const files = new Uint8ArrayCtor(fileBytes);
  for (let i = 0; i < index.length; i++) {
    pageIndex[i] = index[i]!;
    ReflectApply(TypedArraySet, pages, [ReflectApply(TypedArraySubarray, live, [index[i]! * IMAGE_PAGE_BYTES, (index[i]! + 1) * IMAGE_PAGE_BYTES]), i * IMAGE_PAGE_BYTES]);
  }
  let at = 0;
  for (let i = 0; i < fileParts.length; i++) {
    ReflectApply(TypedArraySet, files, [fileParts[i]!, at]);
    at += ReflectApply(byteLengthOf, fileParts[i]!, []) as number;
  }
  const state = bare<ImageState>();
  state.format = 1;
  state.fresh = fresh.digest;
  state.javascript = inputs.javascript;
  state.stack = [module.___stack_pointer.value, module._emscripten_stack_get_base(), module._emscripten_stack_get_end(), module._getTempRet0()];
  state.slots = slots;
  state.immortals = immortals;
  state.nodes = nodes;
  state.nextInode = Number(fs.nextInode);
  state.cwd = String(fs.currentPath);
  state.streams = streams;
  const image = bare<SessionImage>();
  image.memoryBytes = memoryBytes;
  image.pageIndex = pageIndex;
  image.pages = pages;
  image.fileBytes = files;
  image.state = state;
  return image;
}

/** What `restoreImage` needs besides the module. */
export interface RestoreInputs {
  fresh: FreshInterpreter;
  /** Capability name → this interpreter's object. */
  capabilities: ReadonlyMap<string, unknown>;
  javascript: string;
  /** Grows the memory to `bytes` (past the session's cap); false if it could not. */
  grow(bytes: number): boolean;
}

/** The refusal of an image whose JavaScript hash is not a fresh interpreter's. */
export const JAVASCRIPT_DIFFERS = "the JavaScript side of the session it was taken in differed from a fresh interpreter's";

const validName = (name: unknown): name is string => typeof name === "string" && name.length > 0 && name.length <= 255 && name !== "." && name !== ".." && !name.includes("/") && !name.includes("\0");
const int = (n: unknown): n is number => NumberIsSafeInteger(n);

/** The image's state when it is well formed and fits this interpreter, else why not. */
function checkImage(module: ImageModule, memoryBytes: number, pageIndex: Uint32Array, pages: Uint8Array, stateText: string, inputs: RestoreInputs): { state: ImageState; files: Uint8Array } | string {
  let state: ImageState;
  try {
    state = JSON.parse(stateText) as ImageState;
  } catch {
    return "its state is not valid JSON";
  }
  if (state === null || typeof state !== "object" || state.format !== 1) return "its format is not this one";
  if (inputs.fresh.digest === "" || state.fresh !== inputs.fresh.digest) return "it was taken against another fresh interpreter's memory";
  if (typeof state.javascript !== "string" || state.javascript === "" || state.javascript !== inputs.javascript) return JAVASCRIPT_DIFFERS;
  const pagesBytes = pageIndex.length * IMAGE_PAGE_BYTES;
  if (!int(memoryBytes) || memoryBytes % 65536 !== 0 || memoryBytes < module.HEAPU8.byteLength || memoryBytes > 4 * 1024 * 1024 * 1024) return "its memory size is not valid";
  if (!(pageIndex instanceof Uint32Array) || !(pages instanceof Uint8Array) || pages.byteLength !== pagesBytes) return "its pages do not match their index";
  if (state.files !== undefined && typeof state.files !== "string") return "its files are not valid";
  const files = new Uint8Array(Buffer.from(state.files ?? "", "base64"));
  for (let i = 0; i < pageIndex.length; i++) if (pageIndex[i]! * IMAGE_PAGE_BYTES >= memoryBytes || (i > 0 && pageIndex[i]! <= pageIndex[i - 1]!)) return "its page index is not valid";
  if (!isArray(state.stack) || state.stack.length !== 4 || !state.stack.every(int)) return "its stack is not valid";
  if (!isArray(state.slots) || !isArray(state.immortals) || !isArray(state.nodes) || !isArray(state.streams) || !int(state.nextInode) || typeof state.cwd !== "string") return "its state is not valid";
  const slotIndexes = new Set<number>();
  for (const slot of state.slots) {
    if (!isArray(slot) || !int(slot[0]) || slot[0] < 0 || slot[0] >= MAX_SLOTS || slotIndexes.has(slot[0])) return "a reference is not valid";
    slotIndexes.add(slot[0]);
    if (slot[1] === "fresh") {
      if (!inputs.fresh.slots.has(slot[0])) return `reference ${slot[0]} is not a fresh interpreter's`;
    } else if (slot[1] === "capability") {
      if (!inputs.capabilities.has(String(slot[2]))) return `capability ${String(slot[2]).slice(0, 40)} is not known`;
    } else if (slot[1] !== "value" || !decodePrimitive(slot[2])) return "a reference is not valid";
  }
  if (!state.immortals.every((v) => decodePrimitive(v) !== undefined)) return "an interned value is not valid";
  if (state.streams.length !== inputs.fresh.streamKeys.length) return "its descriptors are not a fresh interpreter's";
  for (let fd = 0; fd < state.streams.length; fd++) {
    const scalars = state.streams[fd]!;
    const keys = inputs.fresh.streamKeys[fd]!;
    if (!isArray(scalars) || scalars.length !== keys.length || !scalars.every((kv, k) => isArray(kv) && kv[0] === keys[k] && decodePrimitive(kv[1]) !== undefined)) return `descriptor ${fd} is not valid`;
  }
  const paths = new Set<string>();
  let fileEnd = 0;
  for (const node of state.nodes) {
    if (node === null || typeof node !== "object" || typeof node.path !== "string" || !int(node.id) || !int(node.mode) || !isArray(node.times) || node.times.length !== 3 || !node.times.every((t) => typeof t === "number" && Number.isFinite(t))) return "a file node is not valid";
    if (paths.has(node.path)) return "a file path repeats";
    if (node.path !== "/") {
      const slash = node.path.lastIndexOf("/");
      const parent = slash === 0 ? "/" : node.path.slice(0, slash);
      if (!node.path.startsWith("/") || !validName(node.path.slice(slash + 1)) || !paths.has(parent)) return "a file path is not valid";
    } else if (node.fresh !== true) return "the root is not a fresh interpreter's";
    if (node.fresh === true) {
      if (!inputs.fresh.nodes.has(node.path) || inputs.fresh.nodes.get(node.path)!.id !== node.id) return `${node.path.slice(0, 100)} is not a fresh interpreter's`;
    } else if (node.fresh !== undefined || inFixedTree(node.path) || inputs.fresh.nodes.has(node.path)) return "a file node is not valid";
    if (node.entries !== undefined && (!isArray(node.entries) || !node.entries.every(validName))) return "a directory's entries are not valid";
    if (node.bytes !== undefined) {
      if (node.fresh || !isArray(node.bytes) || !int(node.bytes[0]) || !int(node.bytes[1]) || node.bytes[0] !== fileEnd || node.bytes[1] < 0) return "a file's bytes are not valid";
      fileEnd += node.bytes[1];
    }
    if (node.link !== undefined && (node.fresh || typeof node.link !== "string" || node.link.length > 4096)) return "a link is not valid";
    if (!node.fresh && node.link === undefined && node.entries === undefined && node.bytes === undefined) return "a file node is not valid";
    paths.add(node.path);
  }
  if (fileEnd !== files.byteLength) return "its file bytes do not add up";
  if (!paths.has(state.cwd)) return "its working directory is not valid";
  for (const path of inputs.fresh.paths) if (!inFixedTree(path) && !paths.has(path)) return `${path} is missing`;
  return { state, files };
}

/**
 * Writes an image into a fresh interpreter (one that has run no user code). Returns why it was
 * refused (nothing was touched then), or undefined once the interpreter is the image's. Throws
 * only once it was touched (the caller must replace the interpreter then).
 */
export function restoreImage(module: ImageModule, image: { memoryBytes: number; pageIndex: Uint32Array; pages: Uint8Array; state: string }, inputs: RestoreInputs): string | undefined {
  const checked = checkImage(module, image.memoryBytes, image.pageIndex, image.pages, image.state, inputs);
  if (typeof checked === "string") return checked;
  const { state, files } = checked;
  const { fresh } = inputs;
  // Interned values first: their count lives in the memory written below.
  for (const encoded of state.immortals) module.__hiwire_immortal_add(decodePrimitive(encoded)!.value);
  if (module.HEAPU8.byteLength < image.memoryBytes && !inputs.grow(image.memoryBytes)) throw new Error(`the memory could not grow to ${image.memoryBytes} bytes`);
  const heap = module.HEAPU8;
  for (let i = 0; i < image.pageIndex.length; i++) heap.set(image.pages.subarray(i * IMAGE_PAGE_BYTES, (i + 1) * IMAGE_PAGE_BYTES), image.pageIndex[i]! * IMAGE_PAGE_BYTES);
  const [stackPointer, stackBase, stackEnd, tempRet] = state.stack;
  module._emscripten_stack_set_limits(stackBase, stackEnd);
  module.___stack_pointer.value = stackPointer;
  module._setTempRet0(tempRet);
  // Hiwire: the slots' values (their reference counts and free list are in the memory).
  for (const [index] of fresh.slots) if (!state.slots.some((slot) => slot[0] === index)) module.__hiwire_set(index, undefined);
  for (const slot of state.slots) {
    const value = slot[1] === "fresh" ? fresh.slots.get(slot[0]) : slot[1] === "capability" ? inputs.capabilities.get(slot[2]) : decodePrimitive(slot[2])!.value;
    module.__hiwire_set(slot[0], value);
  }
  const open = fresh.streams.filter((s): s is Record<string, unknown> => s !== null && s !== undefined);
  state.streams.forEach((scalars, fd) => {
    for (const [key, encoded] of scalars) {
      const shared = key.startsWith("shared.");
      const target = shared ? (open[fd]!.shared as Record<string, unknown>) : open[fd]!;
      target[shared ? key.slice(7) : key] = decodePrimitive(encoded)!.value;
    }
  });
  restoreFiles(module.FS, state, files, fresh);
  return undefined;
}

/** Rebuilds the image's nodes with their inode numbers, then puts entry order, modes and times back. */
function restoreFiles(fs: ImageFs, state: ImageState, fileBytes: Uint8Array, fresh: FreshInterpreter): void {
  const byPath = new Map<string, FsNode>();
  for (const node of state.nodes) {
    if (node.fresh) {
      byPath.set(node.path, fresh.nodes.get(node.path)!);
      continue;
    }
    fs.nextInode = node.id;
    if (node.link !== undefined) fs.symlink(node.link, node.path);
    else if (node.entries !== undefined) fs.mkdir(node.path, 0o777);
    else fs.mknod(node.path, 0o100666, 0);
    const made = fs.lookupPath(node.path, { follow: false }).node;
    if (made.id !== node.id) throw new Error(`${node.path} was made with inode ${made.id}, not ${node.id}`);
    if (node.bytes !== undefined) {
      made.contents = fileBytes.slice(node.bytes[0], node.bytes[0] + node.bytes[1]);
      made.usedBytes = node.bytes[1];
    }
    byPath.set(node.path, made);
  }
  fs.nextInode = state.nextInode;
  for (const node of state.nodes) {
    if (node.entries === undefined) continue;
    const contents = byPath.get(node.path)!.contents as Record<string, FsNode>;
    const children: Array<[string, FsNode | undefined]> = node.entries.map((name) => [name, contents[name]]);
    if (children.some(([, child]) => child === undefined) || Object.keys(contents).length !== children.length) throw new Error(`${node.path}'s entries were not rebuilt`);
    for (const [name] of children) delete contents[name];
    for (const [name, child] of children) contents[name] = child!;
  }
  for (const node of state.nodes) {
    const made = byPath.get(node.path)!;
    made.mode = node.mode;
    [made.atime, made.mtime, made.ctime] = node.times;
  }
  fs.currentPath = state.cwd;
}
