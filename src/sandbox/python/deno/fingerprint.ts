/**
 * A fingerprint of everything a run can observe in an interpreter, for the differential test of
 * the pool reset (test/sandbox/python/reset-differential.test.ts): the reused interpreter after a
 * hostile run must fingerprint exactly like the same interpreter when it was fresh. Only served
 * when the host started the runner with `introspection` (tests); it reads, never writes: file
 * contents come from the in-memory nodes, not through streams.
 *
 * Sections: the WebAssembly memory (every Python object, module table, builtins, random state,
 * os.environ and cwd as Python sees them live there), the mutable globals and tables, the file
 * tree with content hashes, the descriptor table, Emscripten's environment and cwd, and
 * every JavaScript property reachable from the objects the fingerprint is given as roots (the
 * `js` module, Pyodide's API and module, the worker's global object).
 *
 * Runs inside the Deno worker.
 */

import type { MemfsNode as FsNode } from "./memfs-node.js";

/** What the fingerprint reads. */
export interface FingerprintSources {
  heap: () => Uint8Array;
  globals: () => number[];
  tableLength: () => number;
  hiwire: () => string;
  fs: {
    root: FsNode;
    streams: Array<Record<string, unknown> | null | undefined>;
    cwd(): string;
    isDir(mode: number): boolean;
    isFile(mode: number): boolean;
    isLink(mode: number): boolean;
  };
  env: Record<string, unknown>;
  /** Roots of the JavaScript graph Python can reach. */
  roots: Record<string, unknown>;
  /** Proxies are not walked: their traps would run code (Python, for Pyodide's proxies). */
  isProxy: (value: unknown) => boolean;
}

function fnv(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function hashBytes(bytes: Uint8Array): string {
  let a = 0x811c9dc5;
  let b = 0x12345678;
  const words = Math.floor(bytes.length / 4);
  const view = new Uint32Array(bytes.buffer, bytes.byteOffset, words);
  for (let i = 0; i < words; i++) {
    a = Math.imul(a ^ view[i]!, 0x01000193) >>> 0;
    b = (b + view[i]! + (b << 5)) >>> 0;
  }
  for (let i = words * 4; i < bytes.length; i++) a = Math.imul(a ^ bytes[i]!, 0x01000193) >>> 0;
  return `${bytes.length}:${a.toString(16)}:${b.toString(16)}`;
}

function fileTree(fs: FingerprintSources["fs"]): string {
  const lines: string[] = [];
  const walk = (node: FsNode, path: string, depth: number) => {
    const target = node.mounted?.root ?? node;
    const mode = target.mode;
    let detail = "";
    if (fs.isFile(mode)) {
      const contents = target.contents;
      const used = target.usedBytes ?? 0;
      detail = ArrayBuffer.isView(contents) ? hashBytes(new Uint8Array(contents.buffer, contents.byteOffset, Math.min(used, contents.byteLength))) : `size ${used}`;
    } else if (fs.isLink(mode)) {
      detail = `-> ${target.link}`;
    }
    lines.push(`${path} ${mode.toString(8)} ${target.rdev ?? ""} ${target.timestamp ?? ""} ${target.mtime ?? ""} ${detail}`);
    if (fs.isDir(mode) && depth < 64 && target.contents && typeof target.contents === "object" && !(target.contents instanceof Uint8Array)) {
      for (const name of Object.keys(target.contents as Record<string, FsNode>).sort()) {
        walk((target.contents as Record<string, FsNode>)[name]!, `${path === "/" ? "" : path}/${name}`, depth + 1);
      }
    }
  };
  walk(fs.root, "/", 0);
  return lines.join("\n");
}

function streamTable(fs: FingerprintSources["fs"]): string {
  return fs.streams
    .map((stream, fd) => (stream ? `${fd} ${String(stream.path)} ${String(stream.flags)} ${String(stream.position)} ${String(stream.seekable)}` : `${fd} -`))
    .join("\n") + `\nlength ${fs.streams.length}`;
}

/**
 * Own properties of every object reachable from the roots: keys, primitive values, shape. Hashed
 * as it goes; `lines`, when given, keeps the text (to say what differs).
 */
function jsGraph(roots: Record<string, unknown>, isProxy: (value: unknown) => boolean, lines?: string[]): { hash: string; objects: number } {
  const ids = new Map<object, number>();
  const queue: object[] = [];
  let h1 = 0x811c9dc5;
  let h2 = 7;
  const emit = (text: string) => {
    h1 = fnv(text, h1);
    h2 = fnv(text, h2 ^ 0x5bd1e995);
    lines?.push(text);
  };
  const visit = (value: unknown): string => {
    if (value === null) return "null";
    const type = typeof value;
    if (type !== "object" && type !== "function") return `${type}:${type === "symbol" ? String((value as symbol).description) : String(value)}`;
    const object = value as object;
    let id = ids.get(object);
    if (id === undefined) {
      id = ids.size;
      ids.set(object, id);
      queue.push(object);
    }
    return `#${id}`;
  };
  for (const name of Object.keys(roots).sort()) emit(`root ${name} ${visit(roots[name])}`);
  const MAX_OBJECTS = 200_000;
  for (let i = 0; i < queue.length && i < MAX_OBJECTS; i++) {
    const object = queue[i]!;
    if (isProxy(object)) {
      emit(`#${i} proxy`);
      continue;
    }
    // Typed arrays and buffers: their length, not their elements (the heap is hashed apart).
    if (ArrayBuffer.isView(object) || object instanceof ArrayBuffer) {
      emit(`#${i} bytes ${(object as ArrayBuffer).byteLength}`);
      continue;
    }
    let keys: Array<string | symbol>;
    try {
      keys = Reflect.ownKeys(object);
    } catch {
      emit(`#${i} unreadable`);
      continue;
    }
    let text = `#${i} proto ${visit(Object.getPrototypeOf(object))} ext ${Object.isExtensible(object)}`;
    let deferred = "";
    for (const key of keys) {
      const descriptor = Reflect.getOwnPropertyDescriptor(object, key);
      if (!descriptor) continue;
      const name = typeof key === "symbol" ? `@${String(key.description)}` : key;
      // Deno's core deletes and redefines this global itself on first internal use (it moves
      // to the end; not a value a guest chose): only its presence and kind are recorded.
      if (object === globalThis && key === "queueMicrotask") {
        deferred = ` ${name}=${typeof descriptor.value}`;
        continue;
      }
      if ("value" in descriptor) text += ` ${name}=${visit(descriptor.value)}${descriptor.writable ? "w" : ""}`;
      else text += ` ${name}=get${visit(descriptor.get)}set${visit(descriptor.set)}`;
    }
    emit(text + deferred);
  }
  return { hash: `${h1.toString(16)}${h2.toString(16)}`, objects: ids.size };
}

/**
 * The fingerprint, section by section (each a short digest, so a test can say what differs).
 *
 * @example
 * const before = takeFingerprint(sources); // ...run... expect(takeFingerprint(sources)).toEqual(before)
 */
export function takeFingerprint(sources: FingerprintSources, reference?: { lines: string[] }): Record<string, string> {
  const tree = fileTree(sources.fs);
  const lines: string[] = [];
  const graph = jsGraph(sources.roots, sources.isProxy, lines);
  let firstDifference = "";
  if (reference) {
    if (reference.lines.length === 0) reference.lines = lines;
    else {
      for (let i = 0; i < Math.max(lines.length, reference.lines.length); i++) {
        if (lines[i] !== reference.lines[i]) {
          const was = reference.lines[i] ?? "";
          const now = lines[i] ?? "";
          let at = 0;
          while (at < was.length && was[at] === now[at]) at++;
          firstDifference = ` (line ${i}: ${was.slice(0, 40)} ... ${was.slice(Math.max(0, at - 60), at + 100)} -> ${now.slice(Math.max(0, at - 60), at + 100)})`;
          break;
        }
      }
    }
  }
  const env = Object.keys(sources.env).sort().map((k) => `${k}=${String(sources.env[k])}`).join("\n");
  return {
    memory: hashBytes(sources.heap()),
    globals: sources.globals().join(","),
    table: String(sources.tableLength()),
    hiwire: sources.hiwire(),
    files: `${tree.split("\n").length} entries ${fnv(tree).toString(16)}`,
    descriptors: streamTable(sources.fs),
    environment: `${fnv(env).toString(16)} cwd ${sources.fs.cwd()}`,
    javascript: `${graph.objects} objects ${graph.hash}${firstDifference}`,
  };
}

/**
 * Which of the realm's global values (and the global object itself) can be reached from
 * `roots` through own properties, prototypes and accessor functions: what Python can get hold
 * of through `js` (`pyodide_js` is unregistered: pyodide-api.ts). Names are "global", or the global's name, or
 * "AbortSignal.timeout"-style static members of reachable globals, or the name `secrets` gives a
 * value that must stay out of reach (the tests assert those names never show up).
 *
 * @example
 * reachableGlobals({ js: jsGlobals }, isProxy); // ["Function", "Object", ...]
 */
export function reachableGlobals(roots: Record<string, unknown>, isProxy: (value: unknown) => boolean, secrets: ReadonlyMap<unknown, string> = new Map()): string[] {
  const named = new Map<unknown, string>([...secrets, [globalThis, "global"]]);
  for (const key of Reflect.ownKeys(globalThis)) {
    const descriptor = Reflect.getOwnPropertyDescriptor(globalThis, key);
    const value = descriptor && "value" in descriptor ? descriptor.value : undefined;
    if ((typeof value === "object" && value !== null) || typeof value === "function") {
      if (!named.has(value)) named.set(value, String(key));
      for (const member of ["timeout", "any", "abort", "waitAsync", "compile", "instantiate", "compileStreaming", "instantiateStreaming"]) {
        const inner = (value as Record<string, unknown>)[member];
        if (typeof inner === "function" && !named.has(inner)) named.set(inner, `${String(key)}.${member}`);
      }
    }
  }
  const seen = new Set<unknown>();
  const queue: unknown[] = Object.values(roots);
  const found = new Set<string>();
  while (queue.length > 0 && seen.size < 300_000) {
    const value = queue.pop();
    if ((typeof value !== "object" || value === null) && typeof value !== "function") continue;
    if (seen.has(value)) continue;
    seen.add(value);
    const name = named.get(value);
    if (name !== undefined) found.add(name);
    if (isProxy(value)) continue;
    queue.push(Object.getPrototypeOf(value));
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) continue;
    for (const key of Reflect.ownKeys(value as object)) {
      const descriptor = Reflect.getOwnPropertyDescriptor(value as object, key);
      if (!descriptor) continue;
      if ("value" in descriptor) queue.push(descriptor.value);
      else queue.push(descriptor.get, descriptor.set);
    }
  }
  return [...found].sort();
}
