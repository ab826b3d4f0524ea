/**
 * Pure-Python wheels from the caller's disk, checked and unpacked on the host (never fetched:
 * there is no network anywhere in the Python engine). A wheel is a zip archive with one
 * `<name>-<version>.dist-info/` holding `WHEEL`; we accept only `Root-Is-Purelib: true` wheels
 * whose every tag has the platform `any`. Their files go into the interpreter's site-packages
 * before the memory snapshot is made, and the snapshot's file name carries a hash of the set.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename } from "node:path";
import { InvalidOptionError } from "../../../errors.js";

// node:crypto and node:zlib load with the first wheel: the sandbox front imports this module,
// and loading both cost several milliseconds of every root import (docs/performance.md).
const require = createRequire(import.meta.url);
const crypto = () => require("node:crypto") as typeof import("node:crypto");
const zlib = () => require("node:zlib") as typeof import("node:zlib");

/** Pure-Python packages to install: files relative to site-packages, and importable top-level names. */
export interface PackageSet {
  /** Hex SHA-256 of the wheels' bytes, in order (for the snapshot's file name). */
  hash: string;
  files: Record<string, Uint8Array>;
  /** Top-level modules and packages the wheels provide, sorted. */
  topLevel: string[];
  /** `name==version` of each wheel, for messages. */
  distributions: string[];
  /**
   * Packages of the lock with native code (shared libraries), in load order: files in the
   * package cache that the interpreter loads with Pyodide's own loader (their WebAssembly
   * libraries cannot be held by a memory snapshot). Deno may read these files and no others.
   */
  native?: Array<{ name: string; path: string }>;
  /** Import name → package name of every package in the lock, for the refusal of an unconfigured one. */
  lockImports?: Record<string, string>;
}

/** Largest unpacked size of all wheels together (a zip bomb stops here). */
export const MAX_UNPACKED_WHEEL_BYTES = 256 * 1024 * 1024;
const MAX_ENTRIES = 20_000;

/**
 * Reads, checks and unpacks wheels.
 *
 * @throws InvalidOptionError naming `python.wheels[i]`, for a file that cannot be read, is not
 *   a wheel, or is not pure Python.
 * @example
 * const set = loadWheels(["/tmp/wheels/tinyjson-1.0-py3-none-any.whl"]);
 * set.topLevel; // ["tinyjson"]
 */
export function loadWheels(paths: readonly string[]): PackageSet {
  if (!Array.isArray(paths) || paths.some((p) => typeof p !== "string")) {
    throw new InvalidOptionError("python.wheels", paths, "an array of paths to .whl files on this machine");
  }
  return unpackWheels(
    paths.map((path, index) => {
      const option = `python.wheels[${index}]`;
      try {
        return { option, label: path, fileName: basename(path), bytes: readFileSync(path) };
      } catch (error) {
        throw new InvalidOptionError(option, path, `a pure-Python wheel (.whl: a zip with a .dist-info/WHEEL saying Root-Is-Purelib: true, platform tag any); the file cannot be read (${(error as Error).message})`);
      }
    }),
  );
}

/** One wheel's bytes and what to name in a refusal. */
export interface WheelSource {
  /** The option a refusal names (`python.wheels[0]`, `python.packages`). */
  option: string;
  /** The value a refusal shows (a path, a package name). */
  label: string;
  /** The wheel's file name (its tags are checked). */
  fileName: string;
  bytes: Uint8Array;
}

/**
 * Checks and unpacks wheels given as bytes (from the caller's disk or the package index).
 *
 * @throws InvalidOptionError naming each source's `option`, for a file that is not a pure-Python wheel.
 * @example
 * const set = unpackWheels([{ option: "python.wheels[0]", label: path, fileName: "a-1.0-py3-none-any.whl", bytes }]);
 */
export function unpackWheels(sources: readonly WheelSource[]): PackageSet {
  const hash = crypto().createHash("sha256");
  const files: Record<string, Uint8Array> = {};
  const owner: Record<string, string> = {};
  const topLevel = new Set<string>();
  const distributions: string[] = [];
  let unpacked = 0;
  sources.forEach(({ option, label: path, fileName, bytes: raw }) => {
    const refuse = (why: string): never => {
      throw new InvalidOptionError(option, path, `a pure-Python wheel (.whl: a zip with a .dist-info/WHEEL saying Root-Is-Purelib: true, platform tag any); ${why}`);
    };
    const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    hash.update(bytes);
    const fileTag = fileName.match(/^[^-]+-[^-]+(?:-\d[^-]*)?-[^-]+-[^-]+-([^-]+)\.whl$/);
    if (fileTag && fileTag[1] !== "any") refuse(`its file name says platform ${fileTag[1]}, which is native code`);
    let entries: Map<string, Uint8Array>;
    try {
      entries = readZip(bytes, MAX_UNPACKED_WHEEL_BYTES - unpacked);
    } catch (error) {
      return refuse(`it is not a readable zip archive (${(error as Error).message})`);
    }
    const distInfo = [...new Set([...entries.keys()].map((name) => name.split("/")[0]!).filter((top) => top.endsWith(".dist-info")))];
    if (distInfo.length !== 1) refuse(`it has ${distInfo.length} .dist-info directories (expected one)`);
    const wheelFile = entries.get(`${distInfo[0]}/WHEEL`);
    if (!wheelFile) refuse(`${distInfo[0]}/WHEEL is missing`);
    const metadata = parseWheelMetadata(new TextDecoder().decode(wheelFile));
    if ((metadata.get("root-is-purelib")?.[0] ?? "").toLowerCase() !== "true") refuse("its WHEEL does not say Root-Is-Purelib: true (it holds native code)");
    const tags = metadata.get("tag") ?? [];
    if (tags.length === 0) refuse("its WHEEL lists no Tag");
    const native = tags.find((tag) => tag.split("-")[2] !== "any");
    if (native) refuse(`its WHEEL has tag ${native}, which is not for every platform`);
    distributions.push(distInfo[0]!.replace(/\.dist-info$/, "").replace("-", "=="));
    const dataDir = distInfo[0]!.replace(/\.dist-info$/, ".data");
    const ownTop = new Set<string>();
    for (const [name, content] of entries) {
      let target = name;
      if (name.startsWith(`${dataDir}/`)) {
        const rest = name.slice(dataDir.length + 1);
        const kind = rest.split("/")[0];
        if (kind !== "purelib" && kind !== "platlib") continue; // scripts, headers, data: nothing to run here
        target = rest.slice(kind.length + 1);
      }
      if (target === "" || target.endsWith("/")) continue;
      if (owner[target] !== undefined && owner[target] !== path) refuse(`it holds ${target}, which ${owner[target]} holds too`);
      owner[target] = path;
      files[target] = content;
      unpacked += content.length;
      const top = target.split("/")[0]!;
      if (top.endsWith(".dist-info") || top === "__pycache__") continue;
      const module = top.endsWith(".py") ? top.slice(0, -3) : target.includes("/") && target.endsWith(".py") ? top : undefined;
      if (module && /^[A-Za-z_][A-Za-z0-9_]*$/.test(module)) ownTop.add(module);
    }
    const declared = entries.get(`${distInfo[0]}/top_level.txt`);
    if (declared) {
      for (const line of new TextDecoder().decode(declared).split(/\r?\n/)) {
        const name = line.trim().split("/")[0]!;
        if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) ownTop.add(name);
      }
    }
    if (ownTop.size === 0) refuse("it provides no importable module");
    for (const name of ownTop) topLevel.add(name);
  });
  return { hash: hash.digest("hex"), files, topLevel: [...topLevel].sort(), distributions };
}

function parseWheelMetadata(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    // Compressed tag sets (py2.py3-none-any) expand to one tag per combination.
    const values = key === "tag" ? expandTag(value) : [value];
    out.set(key, [...(out.get(key) ?? []), ...values]);
  }
  return out;
}

function expandTag(tag: string): string[] {
  const [py = "", abi = "", plat = ""] = tag.split("-");
  const out: string[] = [];
  for (const a of py.split(".")) for (const b of abi.split(".")) for (const c of plat.split(".")) out.push(`${a}-${b}-${c}`);
  return out;
}

/**
 * Entries of a zip archive (files only), inflated. Refuses ZIP64, encryption, methods other
 * than stored/deflate, unsafe names and more than `maxBytes` unpacked.
 */
function readZip(zip: Buffer, maxBytes: number): Map<string, Uint8Array> {
  const eocd = findEndOfCentralDirectory(zip);
  const count = zip.readUInt16LE(eocd + 10);
  const size = zip.readUInt32LE(eocd + 12);
  const offset = zip.readUInt32LE(eocd + 16);
  if (count === 0xffff || offset === 0xffffffff) throw new Error("ZIP64 archives are not supported");
  if (count > MAX_ENTRIES) throw new Error(`more than ${MAX_ENTRIES} entries`);
  if (offset + size > zip.length) throw new Error("the central directory lies outside the file");
  const entries = new Map<string, Uint8Array>();
  let total = 0;
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== 0x02014b50) throw new Error("a central directory entry is damaged");
    const flags = zip.readUInt16LE(at + 8);
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const uncompressed = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    at += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith("/")) continue;
    if (flags & 1) throw new Error(`${name} is encrypted`);
    if (name.startsWith("/") || name.includes("\\") || name.split("/").some((part) => part === ".." || part === "." || part === "")) {
      throw new Error(`unsafe entry name ${JSON.stringify(name.slice(0, 200))}`);
    }
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== 0x04034b50) throw new Error(`the entry ${name} is damaged`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    if (start + compressed > zip.length) throw new Error(`the entry ${name} is cut short`);
    total += uncompressed;
    if (total > maxBytes) throw new Error(`it unpacks to more than ${MAX_UNPACKED_WHEEL_BYTES} bytes`);
    const raw = zip.subarray(start, start + compressed);
    let content: Buffer;
    if (method === 0) content = Buffer.from(raw);
    else if (method === 8) content = zlib().inflateRawSync(raw, { maxOutputLength: Math.max(1, uncompressed) });
    else throw new Error(`the entry ${name} uses compression method ${method}`);
    if (content.length !== uncompressed) throw new Error(`the entry ${name} does not unpack to its stated size`);
    entries.set(name, new Uint8Array(content));
  }
  return entries;
}

function findEndOfCentralDirectory(zip: Buffer): number {
  const lowest = Math.max(0, zip.length - 22 - 0xffff);
  for (let at = zip.length - 22; at >= lowest; at--) {
    if (zip.readUInt32LE(at) === 0x06054b50) return at;
  }
  throw new Error("no end-of-central-directory record");
}

/**
 * The snapshot file for this package set (the plain one without packages).
 *
 * @example
 * snapshotFileFor("/cache/pyodide-314.snapshot", set); // "/cache/pyodide-314-wheels-0123456789ab.snapshot"
 */
export function snapshotFileFor(snapshotFile: string, packages: PackageSet | undefined): string {
  if (!packages) return snapshotFile;
  return snapshotFile.replace(/(\.snapshot)?$/, `-wheels-${packages.hash.slice(0, 16)}.snapshot`);
}
