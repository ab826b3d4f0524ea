/**
 * Files in and out of `run_code` as JSON can carry them: UTF-8 text as a string, other bytes as
 * `{ base64 }`. Going in, both become bytes (the sandbox checks paths and caps); coming out, the
 * files a run created or changed are listed, as text when their bytes are UTF-8 and base64 when not.
 */
import { InvalidOptionError } from "../errors.js";
import { truncate } from "../feedback/truncate.js";
import { sameBytes } from "../common/bytes.js";

/** One file's content in a tool's arguments or result. */
export type McpFileContent = string | { base64: string };

/** What a run did to its files: created or changed (with content), and deleted. */
export interface FileChanges {
  written: Record<string, McpFileContent>;
  deleted: string[];
}

// Standard base64 with its padding (what Buffer.toString("base64") writes). Node's decoder
// skips characters it does not know, so a strict check comes first. One character class and a
// length check, not groups of four: V8 backtracks a repeated group on its stack, and that
// pattern threw "Maximum call stack size exceeded" on a 20 MiB file (27 MB of base64).
const BASE64_CHARS = /^[A-Za-z0-9+/]*={0,2}$/;
const isBase64 = (text: string): boolean => text.length % 4 === 0 && BASE64_CHARS.test(text);
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const MAX_LISTED_FILES = 20;

/**
 * Turns the `files` argument into bytes per path.
 *
 * @throws InvalidOptionError naming `files.PATH` for base64 that does not decode.
 * @example
 * ```ts
 * decodeFiles({ "a.txt": "hi", "b.bin": { base64: "AAE=" } }); // { "a.txt": Uint8Array [104, 105], "b.bin": Uint8Array [0, 1] }
 * ```
 */
export function decodeFiles(files: Record<string, McpFileContent>): Record<string, Uint8Array> {
  const out: [string, Uint8Array][] = [];
  for (const [path, content] of Object.entries(files)) {
    if (typeof content === "string") {
      out.push([path, new TextEncoder().encode(content)]);
      continue;
    }
    if (!isBase64(content.base64)) {
      throw new InvalidOptionError(`files.${path}.base64`, truncate(content.base64, 40), "standard base64 with padding (A-Z, a-z, 0-9, +, /, =), as Buffer.toString(\"base64\") writes it");
    }
    const bytes = Buffer.from(content.base64, "base64");
    out.push([path, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)]);
  }
  // fromEntries defines own properties: a file named like an Object.prototype member stays a file.
  return Object.fromEntries(out);
}

/**
 * A file's bytes as JSON: the text when they are valid UTF-8 (a byte-order mark is kept), else base64.
 *
 * @example
 * ```ts
 * encodeFile(new Uint8Array([104, 105])); // "hi"
 * encodeFile(new Uint8Array([255])); // { base64: "/w==" }
 * ```
 */
export function encodeFile(bytes: Uint8Array): McpFileContent {
  try {
    return utf8.decode(bytes);
  } catch {
    return { base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64") };
  }
}


/**
 * The files a run created or changed (compared with what it was given) and those it deleted.
 *
 * @example
 * ```ts
 * fileChanges({ "a.txt": bytesOf("1") }, { "a.txt": bytesOf("1"), "b.txt": bytesOf("2") }); // { written: { "b.txt": "2" }, deleted: [] }
 * ```
 */
export function fileChanges(given: Record<string, Uint8Array>, after: Record<string, Uint8Array>): FileChanges {
  // Own keys only: a file may be named "constructor", "toString" or "__proto__".
  const written = Object.fromEntries(
    Object.entries(after)
      .filter(([path, bytes]) => !Object.hasOwn(given, path) || !sameBytes(given[path]!, bytes))
      .map(([path, bytes]) => [path, encodeFile(bytes)]),
  );
  const deleted = Object.keys(given).filter((path) => !Object.hasOwn(after, path));
  return { written, deleted };
}

/**
 * Lines for the model about the files a run wrote and deleted (names and sizes; the contents
 * are in the structured result), bounded to the first few files.
 *
 * @example
 * ```ts
 * describeFileChanges({ written: { "out.txt": "hi" }, deleted: [] }); // "files written: out.txt (2 bytes)"
 * ```
 */
export function describeFileChanges(changes: FileChanges): string {
  const lines: string[] = [];
  const written = Object.entries(changes.written).map(([path, content]) =>
    typeof content === "string"
      ? `${path} (${Buffer.byteLength(content)} bytes)`
      : `${path} (${Buffer.byteLength(content.base64, "base64")} bytes, binary)`,
  );
  if (written.length > 0) lines.push(`files written: ${listed(written)}`);
  if (changes.deleted.length > 0) lines.push(`files deleted: ${listed(changes.deleted)}`);
  return truncate(lines.join("\n"), 2000);
}

function listed(items: string[]): string {
  const shown = items.slice(0, MAX_LISTED_FILES).join(", ");
  return items.length > MAX_LISTED_FILES ? `${shown} and ${items.length - MAX_LISTED_FILES} more` : shown;
}
