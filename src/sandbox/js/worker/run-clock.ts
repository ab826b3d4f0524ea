/**
 * The clock of a run given `inputs` (see `RunInputs`): the guest's `Date.now()` and
 * `new Date()` read it instead of the real clock. QuickJS takes the time from Emscripten's
 * `Date.now()` import of THIS worker's realm, so the worker's own `Date.now` is replaced once
 * and reads the clock of the run in progress (the real time when the run has none). The guest
 * cannot reach this realm, so it cannot change what it is given.
 */
import { MAX_RECORDED_CLOCK_READS } from "../../types.js";

/** Readings of one run: given ones first, then recorded ones, then +1 ms per reading. */
export class RunClock {
  private readonly readings: number[];
  private index = 0;
  private last: number | undefined;

  /** `given`: readings to repeat; without them the clock records real readings. */
  constructor(private readonly given: readonly number[] | undefined, private readonly realNow: () => number) {
    this.readings = [];
  }

  /** The next reading (epoch ms), never below the one before. */
  read(): number {
    const i = this.index++;
    let value: number;
    if (this.given && i < this.given.length) value = this.given[i]!;
    else if (!this.given && i < MAX_RECORDED_CLOCK_READS) {
      value = Math.max(this.last ?? -Infinity, this.realNow());
      this.readings.push(value);
    } else value = (this.last ?? this.realNow()) + 1;
    this.last = value;
    return value;
  }

  /** What a recording run read (undefined for a run that was given its readings). */
  recorded(): number[] | undefined {
    return this.given ? undefined : this.readings;
  }
}

const realDateNow = Date.now;
let active: RunClock | undefined;

/** Replaces this realm's `Date.now` (once per worker) so it reads the active run's clock. */
export function installRunClock(): void {
  const now = function now(): number {
    return active ? active.read() : realDateNow();
  };
  Object.defineProperty(Date, "now", { value: now, writable: true, configurable: true });
}

/** A clock for a run: replays `given`, or records. */
export function newRunClock(given: readonly number[] | undefined): RunClock {
  return new RunClock(given, realDateNow);
}

/** Makes `clock` the one guest code reads (undefined: the real clock). */
export function activateRunClock(clock: RunClock | undefined): void {
  active = clock;
}
