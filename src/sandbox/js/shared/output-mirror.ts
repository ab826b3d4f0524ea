/**
 * A shared-memory copy of the output a worker has not yet sent to the host. The worker appends
 * each console write to it; when the host kills a worker stuck in a built-in that never polls
 * the interrupt handler, it reads the output from here instead of losing it. This replaces a
 * message per run (which cost throughput) with a memory copy.
 *
 * Layout: Int32 at byte 0 = bytes of chunks committed; Int32 at byte 4 = id of the run the
 * worker has begun (for the host's watchdog); chunks from byte 8, each
 * [1 byte stream: 1 stdout, 2 stderr][4 bytes length, little-endian][UTF-8 bytes].
 */

const HEADER_BYTES = 8;
const CHUNK_HEADER_BYTES = 5;

/** Default size of a mirror: writes that do not fit are sent as messages instead. */
export const OUTPUT_MIRROR_BYTES = 64 * 1024;

/** Creates the shared buffer a worker and its host both hold. */
export function createOutputMirrorBuffer(bytes = OUTPUT_MIRROR_BYTES): SharedArrayBuffer {
  return new SharedArrayBuffer(HEADER_BYTES + bytes);
}

/**
 * One side of a mirror: the worker appends and clears; the host reads after a kill.
 *
 * @example
 * const mirror = new OutputMirror(createOutputMirrorBuffer());
 * mirror.append("stdout", "hi\n"); // true
 * mirror.read(); // { stdout: "hi\n", stderr: "" }
 */
export class OutputMirror {
  private readonly used: Int32Array;
  private readonly started: Int32Array;
  private readonly data: Buffer;

  constructor(buffer: SharedArrayBuffer) {
    this.used = new Int32Array(buffer, 0, 1);
    this.started = new Int32Array(buffer, 4, 1);
    this.data = Buffer.from(buffer, HEADER_BYTES);
  }

  /** Appends a write; false when it does not fit (the caller then sends output as a message). */
  append(stream: "stdout" | "stderr", text: string): boolean {
    const at = Atomics.load(this.used, 0);
    const bytes = Buffer.byteLength(text);
    if (at + CHUNK_HEADER_BYTES + bytes > this.data.length) return false;
    this.data[at] = stream === "stdout" ? 1 : 2;
    this.data.writeUInt32LE(bytes, at + 1);
    this.data.write(text, at + CHUNK_HEADER_BYTES, "utf8");
    // Published only after the bytes are in place, so a reader never sees a partial chunk.
    Atomics.store(this.used, 0, at + CHUNK_HEADER_BYTES + bytes);
    return true;
  }

  /**
   * Records that the worker has begun run `runId` (its own deadline counts from now), emptied
   * first: what the mirror holds from then on is this run's (a previous run's output left in it
   * was read by the host as the output of a run killed before its code started).
   */
  markStarted(runId: number): void {
    Atomics.store(this.used, 0, 0);
    Atomics.store(this.started, 0, runId);
  }

  /** The id of the run the worker last began. */
  startedRunId(): number {
    return Atomics.load(this.started, 0);
  }

  /** Forgets everything (the output was sent, or a new run starts). */
  clear(): void {
    Atomics.store(this.used, 0, 0);
  }

  /** The committed output, split by stream. */
  read(): { stdout: string; stderr: string } {
    const end = Atomics.load(this.used, 0);
    let stdout = "";
    let stderr = "";
    for (let at = 0; at + CHUNK_HEADER_BYTES <= end; ) {
      const stream = this.data[at];
      const length = this.data.readUInt32LE(at + 1);
      const text = this.data.toString("utf8", at + CHUNK_HEADER_BYTES, at + CHUNK_HEADER_BYTES + length);
      if (stream === 1) stdout += text;
      else stderr += text;
      at += CHUNK_HEADER_BYTES + length;
    }
    return { stdout, stderr };
  }
}
