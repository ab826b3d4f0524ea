/**
 * Splits a byte stream into newline-terminated lines before the MCP SDK's stdio reader sees
 * them, in linear time. The SDK's reader concatenates its whole buffer with every chunk and
 * searches it again for a newline, so one long line costs quadratic time: a `run_code` call
 * carrying a 20 MiB file was read in seconds, not milliseconds, and a line that never ends held
 * the event loop for minutes before its size cap closed the connection. Here a
 * chunk is searched once, a line is joined once, and a line over `maxLineBytes` ends the stream
 * as soon as it passes the cap.
 */
import { Transform, type TransformCallback } from "node:stream";

const NEWLINE = 0x0a;

/** A Transform that emits one chunk per complete line (with its newline). */
export class LineFramer extends Transform {
  #parts: Buffer[] = [];
  #partBytes = 0;
  /** Set once a line passed the cap: what follows is dropped. */
  #overflowed = false;

  /**
   * @param maxLineBytes Longest line passed on, newline excluded.
   * @param onOverflow Called once when a line passes the cap; the stream then ends without it.
   */
  constructor(
    private readonly maxLineBytes: number,
    private readonly onOverflow: (bytes: number) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.#overflowed) return callback();
    let start = 0;
    for (let newline = chunk.indexOf(NEWLINE); newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, newline + 1);
      if (this.#partBytes + piece.length - 1 > this.maxLineBytes) return this.#overflow(callback);
      this.push(this.#parts.length === 0 ? piece : Buffer.concat([...this.#parts, piece]));
      this.#parts = [];
      this.#partBytes = 0;
      start = newline + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.#parts.push(rest);
      this.#partBytes += rest.length;
      if (this.#partBytes > this.maxLineBytes) return this.#overflow(callback);
    }
    callback();
  }

  override _flush(callback: TransformCallback): void {
    if (this.#overflowed) return callback();
    // A last line without a newline is passed on as it is (the reader waits for its newline).
    if (this.#parts.length > 0) this.push(Buffer.concat(this.#parts));
    this.#parts = [];
    callback();
  }

  #overflow(callback: TransformCallback): void {
    const bytes = this.#partBytes;
    this.#overflowed = true;
    this.#parts = [];
    this.#partBytes = 0;
    this.onOverflow(bytes);
    this.push(null);
    callback();
  }
}
