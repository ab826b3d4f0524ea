/**
 * Snapshots of a thread's session (JavaScript, TypeScript or Python), so that a restore does not replay the
 * whole log: the engine's state after the first N cells (`SandboxSession.snapshot`) and the
 * files the session held then, kept in a store outside the checkpoint under the hash of those
 * N cells (content-addressed: any thread, fork or checkpoint whose log starts with the same
 * cells can use it). Snapshots are taken every `every` cells of a language; a restore takes
 * the latest one its log has and replays the cells after it.
 *
 * A snapshot is never trusted blindly: each record is signed (HMAC-SHA-256) with a secret of
 * the host's, which the guest never sees, and names the cells it stands for, its language and
 * its engine build; a record that is not signed by that secret, stands for other cells, or was
 * taken by another engine is refused, and the log is replayed instead.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import { deflateRaw, inflateRawSync } from "node:zlib";
import type { BaseStore } from "@langchain/langgraph";
import { InvalidOptionError } from "../../errors.js";
import type { EngineSnapshot, Language } from "../../sandbox/types.js";
import type { CodeCell } from "./cell-log.js";

/** Where snapshots are kept: any key-value store of bytes (see `snapshotStoreFromBaseStore`). */
export interface SnapshotStore {
  get(key: string): Promise<Uint8Array | undefined>;
  put(key: string, value: Uint8Array): Promise<void>;
}

/** How a runner keeps snapshots of its threads' sessions. */
export interface SnapshotOptions {
  store: SnapshotStore;
  /**
   * The key that signs and checks snapshots (at least 16 bytes). Give every process that
   * shares the store the same secret (e.g. from an environment variable). Default: a random
   * key per process, so that snapshots serve only the process that took them.
   */
  secret?: string | Uint8Array;
  /** Cells of a language between snapshots (default 16): a restore replays fewer than this many. */
  every?: number;
  /** Snapshots larger than this many bytes (compressed) are not kept (default 32 MiB). */
  maxBytes?: number;
}

/** Cells of a language between snapshots by default. */
export const DEFAULT_SNAPSHOT_EVERY = 16;
const DEFAULT_MAX_SNAPSHOT_BYTES = 32 * 1024 * 1024;
/** Snapshots looked up on a restore: the latest positions of the log, newest first. */
const LOOKUPS = 3;
const MAGIC = Buffer.from("CGSNAP1\0", "latin1");
const MAC_BYTES = 32;
const PAGE_BYTES = 4096;
const deflate = promisify(deflateRaw);

/** What a snapshot record holds, besides the engine's state. */
interface RecordHeader {
  language: Language;
  /** Hash of the cells it stands for, and their number. */
  prefix: string;
  position: number;
  engine: string;
  memoryBytes: number;
  pageCount: number;
  state: string;
  /** The session's files after those cells: engine path and size, in the body's order. */
  files: [string, number][];
}

/** A snapshot that was found and checked. */
export interface FoundSnapshot {
  /** Cells it stands for (the first `position` cells of the log). */
  position: number;
  snapshot: EngineSnapshot;
  files: Record<string, Uint8Array>;
}

/** The snapshots of one runner. */
export class ThreadSnapshots {
  readonly every: number;
  private readonly store: SnapshotStore;
  private readonly secret: Buffer;
  private readonly maxBytes: number;

  constructor(options: SnapshotOptions) {
    if (typeof options !== "object" || options === null || typeof options.store?.get !== "function" || typeof options.store?.put !== "function") {
      throw new InvalidOptionError("snapshots.store", options?.store, "an object with get(key) and put(key, bytes) (e.g. snapshotStoreFromBaseStore(store))");
    }
    const every = options.every ?? DEFAULT_SNAPSHOT_EVERY;
    if (!Number.isInteger(every) || every < 1) throw new InvalidOptionError("snapshots.every", options.every, "a whole number of cells, 1 or more");
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_SNAPSHOT_BYTES;
    if (!Number.isInteger(maxBytes) || maxBytes < 1) throw new InvalidOptionError("snapshots.maxBytes", options.maxBytes, "a whole number of bytes, 1 or more");
    const secret = options.secret === undefined ? randomBytes(32) : typeof options.secret === "string" ? Buffer.from(options.secret, "utf8") : Buffer.from(options.secret);
    if (secret.byteLength < 16) throw new InvalidOptionError("snapshots.secret", "(hidden)", "a secret of at least 16 bytes (or leave it out for a random one per process)");
    this.store = options.store;
    this.every = every;
    this.maxBytes = maxBytes;
    this.secret = secret;
  }

  /** True when a snapshot is due after the first `position` cells of a language. */
  due(position: number): boolean {
    return position > 0 && position % this.every === 0;
  }

  /** The latest checked snapshot of `cells` (one language's log), or undefined. */
  async find(language: Language, cells: readonly CodeCell[]): Promise<FoundSnapshot | undefined> {
    const positions: number[] = [];
    for (let p = cells.length - (cells.length % this.every); p > 0 && positions.length < LOOKUPS; p -= this.every) positions.push(p);
    if (positions.length === 0) return undefined;
    const hashes = prefixHashes(language, cells, positions[0]!);
    // Newest first; an older one only when the newer is missing or refused (a lost write, a restart).
    for (const position of positions) {
      const record = await this.store.get(storeKey(language, hashes[position - 1]!)).catch(() => undefined);
      const found = record && this.open(record, language, hashes[position - 1]!, position);
      if (found) return found;
    }
    return undefined;
  }

  /** Keeps `snapshot`, the state after `cells` (one language's log), with the session's `files`. */
  async save(language: Language, cells: readonly CodeCell[], snapshot: EngineSnapshot, files: Record<string, Uint8Array>): Promise<void> {
    const prefix = prefixHashes(language, cells, cells.length)[cells.length - 1]!;
    const paths = Object.keys(files).sort();
    const header: RecordHeader = {
      language,
      prefix,
      position: cells.length,
      engine: snapshot.engine,
      memoryBytes: snapshot.memoryBytes,
      pageCount: snapshot.pageIndex.length,
      state: snapshot.state,
      files: paths.map((p) => [p, files[p]!.byteLength]),
    };
    const index = Buffer.alloc(snapshot.pageIndex.length * 4);
    snapshot.pageIndex.forEach((page, i) => index.writeUInt32LE(page, i * 4));
    const body = await deflate(Buffer.concat([index, snapshot.pages, ...paths.map((p) => files[p]!)]), { level: 1 });
    const headerBytes = Buffer.from(JSON.stringify(header), "utf8");
    const length = Buffer.alloc(4);
    length.writeUInt32LE(headerBytes.byteLength);
    const signed = Buffer.concat([MAGIC, length, headerBytes, body]);
    if (signed.byteLength + MAC_BYTES > this.maxBytes) return;
    await this.store.put(storeKey(language, prefix), Buffer.concat([signed, this.mac(signed)]));
  }

  /** The record's snapshot when it is signed by this secret and stands for exactly these cells. */
  private open(record: Uint8Array, language: Language, prefix: string, position: number): FoundSnapshot | undefined {
    const bytes = Buffer.from(record.buffer, record.byteOffset, record.byteLength);
    if (bytes.byteLength < MAGIC.byteLength + 4 + MAC_BYTES || !bytes.subarray(0, MAGIC.byteLength).equals(MAGIC)) return undefined;
    const signed = bytes.subarray(0, bytes.byteLength - MAC_BYTES);
    if (!timingSafeEqual(this.mac(signed), bytes.subarray(bytes.byteLength - MAC_BYTES))) return undefined;
    try {
      const headerLength = signed.readUInt32LE(MAGIC.byteLength);
      const start = MAGIC.byteLength + 4;
      const header = JSON.parse(signed.subarray(start, start + headerLength).toString("utf8")) as RecordHeader;
      if (header.language !== language || header.prefix !== prefix || header.position !== position) return undefined;
      const fileBytes = header.files.reduce((n, [, size]) => n + size, 0);
      const expected = header.pageCount * (4 + PAGE_BYTES) + fileBytes;
      const body = inflateRawSync(signed.subarray(start + headerLength), { maxOutputLength: Math.max(1, expected) });
      if (body.byteLength !== expected) return undefined;
      const pageIndex = new Uint32Array(header.pageCount);
      for (let i = 0; i < header.pageCount; i++) pageIndex[i] = body.readUInt32LE(i * 4);
      let offset = header.pageCount * 4;
      const pages = new Uint8Array(body.subarray(offset, offset + header.pageCount * PAGE_BYTES));
      offset += header.pageCount * PAGE_BYTES;
      const files: Record<string, Uint8Array> = {};
      for (const [path, size] of header.files) {
        files[path] = new Uint8Array(body.subarray(offset, offset + size));
        offset += size;
      }
      return { position, snapshot: { engine: header.engine, memoryBytes: header.memoryBytes, pageIndex, pages, state: header.state }, files };
    } catch {
      return undefined;
    }
  }

  private mac(bytes: Uint8Array): Buffer {
    return createHmac("sha256", this.secret).update(bytes).digest();
  }
}

/** The store key of the snapshot after cells whose hash is `prefix`. */
function storeKey(language: Language, prefix: string): string {
  return `${language}-${prefix}`;
}

/**
 * Hashes of the first 1..`count` cells of a language's log, each over the one before and the
 * cell's whole content (canonical JSON: a checkpointer may reorder keys).
 */
export function prefixHashes(language: Language, cells: readonly CodeCell[], count: number): string[] {
  const out: string[] = [];
  let previous = createHash("sha256").update(`codegen-sandbox cells\0${language}`).digest("hex");
  for (let i = 0; i < count; i++) {
    previous = createHash("sha256").update(previous).update("\0").update(canonicalJson(cells[i])).digest("hex");
    out.push(previous);
  }
  return out;
}

/** JSON with object keys sorted (and undefined members left out, as JSON does). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined || typeof v === "function" ? "null" : canonicalJson(v))).join(",")}]`;
  const entries = Object.keys(value)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined && typeof (value as Record<string, unknown>)[k] !== "function")
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(",")}}`;
}

/**
 * A snapshot store over a LangGraph `BaseStore` (the graph's `store`, e.g. `InMemoryStore` or
 * `PostgresStore`): one item per snapshot under `namespace`, its bytes as base64 text.
 */
export function snapshotStoreFromBaseStore(store: BaseStore, namespace: string[] = ["codegen-sandbox", "snapshots"]): SnapshotStore {
  return {
    async get(key) {
      const item = await store.get(namespace, key);
      const data = (item?.value as { data?: unknown } | undefined)?.data;
      return typeof data === "string" ? Buffer.from(data, "base64") : undefined;
    },
    async put(key, value) {
      await store.put(namespace, key, { data: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") }, false);
    },
  };
}
