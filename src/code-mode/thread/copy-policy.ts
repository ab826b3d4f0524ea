/**
 * When code mode's delta channels store a full copy of their value: once the writes since the
 * last copy add up to the value's size (in bytes), or after `MAX_UPDATES_BETWEEN_COPIES`
 * updates, whichever comes first. A copy then costs at most what was written since the one
 * before, so checkpoint bytes per call follow what the calls wrote, not the thread's size; and a
 * read (which starts at the last copy and replays the writes after it) reads at most about
 * twice the value's size, in a bounded number of checkpoints.
 *
 * LangGraph's `DeltaValue` knows only a count (`snapshotFrequency`: a copy every N updates),
 * which makes a copy cost the value's size every N calls whatever they wrote. LangGraph runs a
 * delta channel's reducer as a method of the channel and reads the channel's
 * `snapshotFrequency` when it decides, at each checkpoint, whether to copy; so the reducer made
 * here sets that number on the channel it runs on: 1 when a copy is due (this step's
 * checkpoint copies), `MAX_UPDATES_BETWEEN_COPIES` otherwise. Outside a channel (called as a
 * plain function) it is the plain reducer. Tested against the pinned LangGraph version
 * (test/code-mode/copy-policy*.test.ts, MemorySaver and PostgreSQL): if LangGraph stops calling
 * reducers this way, those tests fail.
 */

/**
 * At most this many updates of a channel between two full copies: bounds a read's walk over
 * checkpoints (PostgresSaver reads each with a `getTuple`), at the price of the value's size per
 * this many updates when the updates are small (docs/code-mode.md, "Costs", has the numbers).
 */
export const MAX_UPDATES_BETWEEN_COPIES = 100;

/** How a channel's value and its writes are measured, in (about) the bytes they serialize to. */
export interface CopyMeasure<V, W> {
  valueBytes(value: V): number;
  writeBytes(write: W): number;
}

/** The fields of LangGraph's `DeltaChannel` that the policy reads and sets. */
interface DeltaChannelLike {
  lc_graph_name: "DeltaChannel";
  snapshotFrequency: number;
}

function isDeltaChannel(value: unknown): value is DeltaChannelLike {
  return typeof value === "object" && value !== null && (value as { lc_graph_name?: unknown }).lc_graph_name === "DeltaChannel" && typeof (value as { snapshotFrequency?: unknown }).snapshotFrequency === "number";
}

/**
 * `reduce` with the copy policy above: on each call as a channel's reducer it adds the bytes of
 * `writes` to what the channel has taken since its last copy and sets the channel's
 * `snapshotFrequency` for this step's checkpoint.
 */
export function withCopyPolicy<V, W>(reduce: (current: V, writes: W[]) => V, measure: CopyMeasure<V, W>): (current: V, writes: W[]) => V {
  // Bytes written since the last copy, per channel object. A channel loaded from a checkpoint
  // gets the writes since its last copy in one call (its replay), so it starts right.
  const since = new WeakMap<object, number>();
  return function reduceAndDecide(this: unknown, current: V, writes: W[]): V {
    const next = reduce(current, writes);
    if (isDeltaChannel(this)) {
      let written = since.get(this) ?? 0;
      for (const write of writes) written += write === undefined || write === null ? 0 : measure.writeBytes(write);
      const due = written >= measure.valueBytes(next);
      this.snapshotFrequency = due ? 1 : MAX_UPDATES_BETWEEN_COPIES;
      since.set(this, due ? 0 : written);
    }
    return next;
  };
}
