/**
 * Reads the Deno runner's stdout without trusting it. The runner's messages are lines that start
 * with a secret token; everything else on the stream is bytes a guest wrote by reaching its
 * realm. Those are counted and dropped (never kept), and a message line longer than its bound
 * is reported instead of buffered, so the host holds at most the current bound plus one chunk.
 */

/** What the reader found in a chunk. */
export type ReaderEvent =
  | { kind: "message"; json: string }
  /** A message line passed `lineLimitBytes`; the rest of the stream cannot be trusted. */
  | { kind: "overflow"; bytes: number };

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into token-prefixed lines; bytes outside them count as `guestBytes`.
 *
 * @example
 * const reader = new TokenLineReader(Buffer.from("abc "), 1024);
 * reader.push(Buffer.from('junk abc {"type":"ready"}\n')); // [{ kind: "message", json: '{"type":"ready"}' }]
 * reader.guestBytes; // 5
 */
export class TokenLineReader {
  readonly #token: Buffer;
  /** Longest message line accepted (bytes after the token); callers raise it for big replies. */
  lineLimitBytes: number;
  /** Bytes seen outside message lines since the last `resetGuestBytes()`. */
  guestBytes = 0;
  #inMessage = false;
  #parts: Buffer[] = [];
  #partBytes = 0;
  /** End of the previous junk chunk, in case the token straddles two chunks (< token length). */
  #carry: Buffer = Buffer.alloc(0);
  #broken = false;

  constructor(token: Buffer, lineLimitBytes: number) {
    this.#token = token;
    this.lineLimitBytes = lineLimitBytes;
  }

  resetGuestBytes(): void {
    this.guestBytes = 0;
  }

  /** Consumes one chunk; never throws. After an overflow the reader ignores everything. */
  push(chunk: Buffer): ReaderEvent[] {
    const events: ReaderEvent[] = [];
    if (this.#broken) return events;
    let rest = chunk;
    while (rest.length > 0) {
      if (!this.#inMessage) {
        const joined = this.#carry.length > 0 ? Buffer.concat([this.#carry, rest]) : rest;
        const at = joined.indexOf(this.#token);
        if (at < 0) {
          this.guestBytes += rest.length;
          const keep = Math.min(joined.length, this.#token.length - 1);
          this.#carry = Buffer.from(joined.subarray(joined.length - keep));
          return events;
        }
        // Bytes before the token that were not already counted as part of the carry.
        this.guestBytes += Math.max(0, at - this.#carry.length);
        rest = joined.subarray(at + this.#token.length);
        this.#carry = Buffer.alloc(0);
        this.#inMessage = true;
        this.#parts = [];
        this.#partBytes = 0;
        continue;
      }
      const newline = rest.indexOf(NEWLINE);
      const piece = newline < 0 ? rest : rest.subarray(0, newline);
      if (this.#partBytes + piece.length > this.lineLimitBytes) {
        this.#broken = true;
        this.#parts = [];
        events.push({ kind: "overflow", bytes: this.#partBytes + piece.length });
        return events;
      }
      // Copy: the stream may reuse its chunk buffers.
      this.#parts.push(Buffer.from(piece));
      this.#partBytes += piece.length;
      if (newline < 0) return events;
      const json = Buffer.concat(this.#parts, this.#partBytes).toString("utf8");
      this.#parts = [];
      this.#partBytes = 0;
      this.#inMessage = false;
      events.push({ kind: "message", json });
      rest = rest.subarray(newline + 1);
    }
    return events;
  }
}
