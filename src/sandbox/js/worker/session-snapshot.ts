/**
 * Snapshots of a session's engine between runs: the QuickJS module's whole linear memory (its
 * non-zero pages) and the worker-side state beside it (`GuestContext.snapshotState`). A
 * session worker starts the same way every time (the same module, warm-up and session
 * opening), so a fresh session's worker-side objects point at the same heap addresses as the
 * one a snapshot was taken in; that is checked (`layout`), and only then is the heap written
 * over and the rest of the state taken. Whatever is refused is refused before anything is
 * written.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { QuickJSWASMModule } from "quickjs-emscripten-core";
import type { ContextState, GuestContext } from "./guest-context.js";
import { emscriptenOf, enginePackageFile } from "./engine-internals.js";
import { RESTORABLE_KINDS } from "./host-function-kinds.js";
import { GUEST_LIBRARY_SOURCE, GUEST_PRELUDE_SOURCE } from "./guest-prelude.js";
import { FILES_SHIM_SOURCE } from "./guest-files.js";
import { INTL_NAMESPACE_SOURCE, INTL_SHIM_SOURCE } from "./intl-shim.js";
import { UNGRANTED_BUILT_INS } from "./guest-runtime.js";
import type { EngineSnapshot } from "../../types.js";

/** Bytes of a page of a snapshot (pages of zeros are left out). */
export const SNAPSHOT_PAGE_BYTES = 4096;
/** Version of the snapshot format: part of the engine build. */
const FORMAT = 1;
/** WebAssembly's 32-bit address space (Emscripten's own maximum is lower). */
const MAX_MEMORY_BYTES = 4 * 1024 * 1024 * 1024;

let build: string | undefined;

/**
 * What a snapshot is valid for: this format, the QuickJS WebAssembly and its JavaScript,
 * quickjs-emscripten's version, the prelude's sources and the built-ins removed from every context
 * (a snapshot of a context that still had one would bring it back). A snapshot of another build is refused.
 */
export function engineBuild(): string {
  if (build !== undefined) return build;
  const hash = createHash("sha256");
  hash.update(`codegen-sandbox snapshot ${FORMAT}\0`);
  hash.update(readFileSync(enginePackageFile("@jitl/quickjs-wasmfile-release-sync/wasm")));
  // The engine's JavaScript too (this worker is CommonJS, so `require`'s file is the one it
  // runs): the ES module build of the same engine lays its memory out differently.
  hash.update(readFileSync(enginePackageFile("@jitl/quickjs-wasmfile-release-sync/emscripten-module")));
  // The package's exports do not include its package.json: read it beside the resolved entry.
  const core = enginePackageFile("quickjs-emscripten-core");
  const version = (JSON.parse(readFileSync(join(core.slice(0, core.lastIndexOf("quickjs-emscripten-core") + "quickjs-emscripten-core".length), "package.json"), "utf8")) as { version: string }).version;
  hash.update(`\0${version}\0${GUEST_PRELUDE_SOURCE}\0${GUEST_LIBRARY_SOURCE}\0${FILES_SHIM_SOURCE}\0${INTL_SHIM_SOURCE}\0${INTL_NAMESPACE_SOURCE}\0${UNGRANTED_BUILT_INS}`);
  build = `quickjs-${version}-${hash.digest("hex").slice(0, 32)}`;
  return build;
}

const ZERO_PAGE = Buffer.alloc(SNAPSHOT_PAGE_BYTES);
/** Pages compared at once first: most of the memory (above the heap's top) is zero, and one comparison per page costs more than the comparison itself. */
const SPAN_PAGES = 16;
const ZERO_SPAN = Buffer.alloc(SPAN_PAGES * SNAPSHOT_PAGE_BYTES);

/** Calls `onPage` with the number of every page of `memory` that is not all zeros, ascending. */
function nonZeroPages(memory: Buffer, onPage: (page: number) => void): void {
  const spanBytes = ZERO_SPAN.byteLength;
  for (let span = 0; span < memory.byteLength; span += spanBytes) {
    const end = Math.min(span + spanBytes, memory.byteLength);
    if (end - span === spanBytes && memory.subarray(span, end).equals(ZERO_SPAN)) continue;
    for (let offset = span; offset < end; offset += SNAPSHOT_PAGE_BYTES) {
      if (!memory.subarray(offset, offset + SNAPSHOT_PAGE_BYTES).equals(ZERO_PAGE)) onPage(offset / SNAPSHOT_PAGE_BYTES);
    }
  }
}

/** The session's snapshot, or why it cannot be taken now. */
export function takeSnapshot(module: QuickJSWASMModule, session: GuestContext): EngineSnapshot | string {
  const state = session.snapshotState();
  if (typeof state === "string") return state;
  const heap = emscriptenOf(module).HEAPU8;
  const memoryBytes = heap.byteLength;
  const memory = Buffer.from(heap.buffer, heap.byteOffset, memoryBytes);
  const index: number[] = [];
  nonZeroPages(memory, (page) => index.push(page));
  const pages = new Uint8Array(index.length * SNAPSHOT_PAGE_BYTES);
  index.forEach((page, i) => pages.set(memory.subarray(page * SNAPSHOT_PAGE_BYTES, (page + 1) * SNAPSHOT_PAGE_BYTES), i * SNAPSHOT_PAGE_BYTES));
  return { engine: engineBuild(), memoryBytes, pageIndex: Uint32Array.from(index), pages, state: JSON.stringify(state) };
}

/**
 * Writes `snapshot` into a session that has run nothing yet. Returns why it was refused
 * (nothing was touched then), or undefined once the heap and state are the snapshot's.
 * Throws only once the engine was touched (the caller must end the thread then).
 */
export function restoreSnapshot(module: QuickJSWASMModule, session: GuestContext, snapshot: EngineSnapshot, memoryLimitBytes: number): string | undefined {
  const refusal = checkSnapshot(session, snapshot);
  if (typeof refusal === "string") return refusal;
  const state = refusal;
  const emscripten = emscriptenOf(module);
  // Grown through the module's own allocator, which also renews Emscripten's views of the memory.
  if (emscripten.HEAPU8.byteLength < snapshot.memoryBytes) {
    const pointer = emscripten._malloc(snapshot.memoryBytes - emscripten.HEAPU8.byteLength + SNAPSHOT_PAGE_BYTES);
    if (pointer !== 0) emscripten._free(pointer);
    // The allocator was used: the session is not the fresh one any more (the caller ends the thread).
    if (emscripten.HEAPU8.byteLength < snapshot.memoryBytes) throw new Error(`the engine's memory could not grow to ${snapshot.memoryBytes} bytes`);
  }
  const heap = emscripten.HEAPU8;
  const memory = Buffer.from(heap.buffer, heap.byteOffset, heap.byteLength);
  // Every page is the snapshot's or zero: the pages that are not zero now are zeroed (zeroing all
  // of the memory would touch, and so map, every page of it), then the snapshot's are written.
  nonZeroPages(memory, (page) => heap.fill(0, page * SNAPSHOT_PAGE_BYTES, (page + 1) * SNAPSHOT_PAGE_BYTES));
  snapshot.pageIndex.forEach((page, i) => heap.set(snapshot.pages.subarray(i * SNAPSHOT_PAGE_BYTES, (i + 1) * SNAPSHOT_PAGE_BYTES), page * SNAPSHOT_PAGE_BYTES));
  session.adoptState(state);
  session.setMemoryLimitBytes(memoryLimitBytes);
  return undefined;
}

/** The snapshot's state when it fits this session exactly, else why not. */
function checkSnapshot(session: GuestContext, snapshot: EngineSnapshot): ContextState | string {
  if (snapshot.engine !== engineBuild()) return `it was taken by another engine build (${String(snapshot.engine).slice(0, 80)}, this is ${engineBuild()})`;
  const { memoryBytes, pageIndex, pages } = snapshot;
  if (!Number.isInteger(memoryBytes) || memoryBytes <= 0 || memoryBytes > MAX_MEMORY_BYTES || memoryBytes % SNAPSHOT_PAGE_BYTES !== 0) return "its memory size is not valid";
  if (!(pageIndex instanceof Uint32Array) || !(pages instanceof Uint8Array) || pages.byteLength !== pageIndex.length * SNAPSHOT_PAGE_BYTES) return "its pages do not match their index";
  for (let i = 0; i < pageIndex.length; i++) {
    if (pageIndex[i]! * SNAPSHOT_PAGE_BYTES >= memoryBytes || (i > 0 && pageIndex[i]! <= pageIndex[i - 1]!)) return "its page index is not valid";
  }
  const now = session.snapshotState();
  if (typeof now === "string") return `this session cannot take it (${now})`;
  let state: ContextState;
  try {
    state = JSON.parse(snapshot.state) as ContextState;
  } catch {
    return "its state is not valid JSON";
  }
  if (!validState(state)) return "its state is not valid";
  if (state.layout !== now.layout) return "this session's engine is laid out differently from the one it was taken in";
  return state;
}

function validState(s: ContextState): boolean {
  const int = (n: unknown): boolean => Number.isSafeInteger(n);
  return (
    typeof s === "object" &&
    s !== null &&
    typeof s.layout === "string" &&
    typeof s.filesInstalled === "boolean" &&
    int(s.consolePointer) &&
    Array.isArray(s.hostFunctionNames) &&
    s.hostFunctionNames.every((n) => typeof n === "string") &&
    typeof s.hostRefs === "object" &&
    s.hostRefs !== null &&
    int(s.hostRefs.nextId) &&
    Array.isArray(s.hostRefs.freelist) &&
    s.hostRefs.freelist.every(int) &&
    Array.isArray(s.hostRefs.refs) &&
    s.hostRefs.refs.every((r) => Array.isArray(r) && int(r[0]) && typeof r[1] === "string" && RESTORABLE_KINDS.has(r[1]))
  );
}
