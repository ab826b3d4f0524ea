/**
 * The runner's check of the files a worker sends back (the worker runs guest code): shape,
 * paths and the caps, then base64 for the JSON line to the host (which checks them again).
 */
import { isRelativePath } from "../shared/bounds.js";

/**
 * Base64 of each file, or why the set is refused.
 *
 * @example
 * encodeReturnedFiles([["out.txt", bytes]], 8 << 20, 32 << 20); // { files: { "out.txt": "aGk=" } }
 */
export function encodeReturnedFiles(value: unknown, maxFileBytes: number, maxTotalFileBytes: number): { files: Record<string, string> } | { error: string } {
  if (!Array.isArray(value)) return { error: "the interpreter sent back no file list" };
  const files: Record<string, string> = {};
  let total = 0;
  for (const entry of value as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 2) return { error: "the interpreter sent back a malformed file entry" };
    const [path, bytes] = entry as [unknown, unknown];
    if (typeof path !== "string" || !isRelativePath(path) || !(bytes instanceof Uint8Array)) return { error: "the interpreter sent back a malformed file entry" };
    if (bytes.length > maxFileBytes) return { error: `file ${path.slice(0, 200)} is ${bytes.length} bytes, over the ${maxFileBytes}-byte maxFileBytes limit` };
    total += bytes.length;
    if (total > maxTotalFileBytes) return { error: `the files add up to more than the ${maxTotalFileBytes}-byte maxTotalFileBytes limit` };
    files[path] = toBase64(bytes);
  }
  return { files };
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) binary += String.fromCharCode(...bytes.subarray(i, i + step));
  return btoa(binary);
}
