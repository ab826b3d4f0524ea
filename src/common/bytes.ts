/**
 * Bytes, compared and shown the same way everywhere in the package.
 */

/**
 * Byte equality by the runtime's own comparison (a JavaScript loop took 0.4 s of host thread per
 * 28 MiB). An absent `a` equals nothing.
 */
export function sameBytes(a: Uint8Array | undefined, b: Uint8Array): boolean {
  return a !== undefined && a.byteLength === b.byteLength && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/**
 * A byte count as every message of the package writes it.
 *
 * @example
 * formatBytes(1536); // "1.5 KiB"
 */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}
