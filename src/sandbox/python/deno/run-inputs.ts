/**
 * The clock and the entropy of a run given `inputs` (see `RunInputs`), inside the Pyodide
 * worker: Emscripten takes the time from this realm's `Date.now()` (realtime) and
 * `performance.now()` (monotonic), and its entropy (`os.urandom`, and through it `random`,
 * `uuid4`, `secrets`) from `crypto.getRandomValues`; `Math.random` serves libc's `random()`.
 * They are replaced once, before Pyodide loads, by functions that read the active run's clock
 * and seeded generator (the real ones outside such a run).
 *
 * This realm is the guest's: a program can undo all of this, but what it changes only changes
 * its own thread's recording, and the host checks and bounds the readings it receives.
 */
import { MAX_CLOCK_READS } from "../shared/bounds.js";

/** One run's clock (in whole microseconds, so readings survive JSON exactly) and generator. */
class RunInputsState {
  private index = 0;
  private last: number | undefined;
  private readonly readings: number[] = [];
  private s0 = 0;
  private s1 = 0;
  private s2 = 0;
  private s3 = 0;

  constructor(seed: string, private readonly given: readonly number[] | undefined, private readonly realMs: () => number) {
    this.s0 = parseInt(seed.slice(0, 8), 16) | 0;
    this.s1 = parseInt(seed.slice(8, 16), 16) | 0;
    this.s2 = parseInt(seed.slice(16, 24), 16) | 0;
    this.s3 = parseInt(seed.slice(24, 32), 16) | 0;
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** The next reading (epoch ms, a whole number of microseconds), never below the one before. */
  read(): number {
    const i = this.index++;
    let value: number;
    if (this.given && i < this.given.length) value = this.given[i]!;
    else if (!this.given && i < MAX_CLOCK_READS) {
      value = Math.max(this.last ?? -Infinity, Math.round(this.realMs() * 1000) / 1000);
      this.readings.push(value);
    } else value = (this.last ?? Math.round(this.realMs() * 1000) / 1000) + 1;
    this.last = value;
    return value;
  }

  recorded(): number[] | undefined {
    return this.given ? undefined : this.readings;
  }

  /** xoshiro128**: the next 32 random bits. */
  next32(): number {
    const rotl = (x: number, k: number) => (x << k) | (x >>> (32 - k));
    const r = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return r;
  }

  fill(view: ArrayBufferView): void {
    const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    for (let i = 0; i < bytes.length; i += 4) {
      const word = this.next32();
      for (let k = 0; k < 4 && i + k < bytes.length; k++) bytes[i + k] = (word >>> (8 * k)) & 0xff;
    }
  }
}

/**
 * Installs the replacements (call once, before Pyodide loads) and returns the switch of the
 * run in progress.
 *
 * @example
 * const inputs = installRunInputs();
 * inputs.begin({ seed: "00112233445566778899aabbccddeeff" });
 * // ... run Python ...
 * const clockReads = inputs.end();
 */
export function installRunInputs(nodeCrypto?: { randomFillSync(view: ArrayBufferView): unknown }) {
  const realDateNow = Date.now;
  const realPerformanceNow = performance.now.bind(performance);
  const timeOrigin = performance.timeOrigin;
  const realFill = crypto.getRandomValues.bind(crypto);
  const realRandom = Math.random;
  const realMs = () => timeOrigin + realPerformanceNow();
  let active: RunInputsState | undefined;

  Date.now = function now(): number {
    return active ? Math.floor(active.read()) : realDateNow();
  };
  // Monotonic readings come from the same virtual clock: deterministic across processes.
  Object.defineProperty(performance, "now", { value: function now(): number { return active ? active.read() : realPerformanceNow(); }, writable: true, configurable: true });
  Object.defineProperty(crypto, "getRandomValues", {
    value: function getRandomValues<T extends ArrayBufferView | null>(view: T): T {
      if (active && view) active.fill(view);
      else realFill(view as never);
      return view;
    },
    writable: true,
    configurable: true,
  });
  // Under Deno, Emscripten believes it runs in Node and fills entropy with node:crypto.
  if (nodeCrypto) {
    const realNodeFill = nodeCrypto.randomFillSync.bind(nodeCrypto);
    nodeCrypto.randomFillSync = function randomFillSync(view: ArrayBufferView): ArrayBufferView {
      if (active) active.fill(view);
      else realNodeFill(view);
      return view;
    };
  }
  Math.random = function random(): number {
    return active ? ((active.next32() >>> 5) * 67108864 + (active.next32() >>> 6)) / 9007199254740992 : realRandom();
  };

  // /dev/urandom (how Python's os.urandom gets its bytes here) as Emscripten makes it keeps a
  // 1 KiB buffer across runs; this one draws each byte from the run's generator instead.
  const spare = new Uint8Array(1024);
  let spareLeft = 0;
  const randomByte = (): number => {
    if (active) return active.next32() & 0xff;
    if (spareLeft === 0) {
      realFill(spare);
      spareLeft = spare.length;
    }
    return spare[--spareLeft]!;
  };

  return {
    /**
     * Replaces Emscripten's `/dev/random` and `/dev/urandom` with devices that read the run's
     * generator (call once, right after the interpreter loads).
     */
    replaceEntropyDevices(fs: { unlink(path: string): void; createDevice(parent: string, name: string, input: () => number): unknown }): void {
      for (const name of ["random", "urandom"]) {
        fs.unlink(`/dev/${name}`);
        fs.createDevice("/dev", name, randomByte);
      }
    },
    /** From now on the guest reads this run's clock and entropy (`undefined`: the real ones). */
    begin(inputs: { seed: string; clockReads?: number[] } | undefined): void {
      active = inputs ? new RunInputsState(inputs.seed, inputs.clockReads, realMs) : undefined;
    },
    /** Four 32-bit words from the run's generator (the seed of Python's `random`), or real ones. */
    words(): Uint32Array {
      const out = new Uint32Array(4);
      if (active) for (let i = 0; i < 4; i++) out[i] = active.next32();
      else realFill(out);
      return out;
    },
    /** Ends the run's inputs; the readings it recorded (undefined when it was given them). */
    end(): number[] | undefined {
      const readings = active?.recorded();
      active = undefined;
      return readings;
    },
  };
}
