/**
 * Code calls that one AI message makes in parallel (LangGraph runs them as concurrent tasks of
 * one step, each with the state from before the step) run one after another, in the order of
 * the message's tool calls, each seeing what the ones before it did: their log cells and their
 * file changes, which are not in the state yet.
 */
import type { ThreadFilesUpdate } from "../thread/files.js";
import type { CodeCell } from "../replay/cell-log.js";

/** What a finished call leaves to the calls after it in the same message. */
export interface StepContribution {
  cell?: CodeCell;
  files?: ThreadFilesUpdate;
}

/** How long a call waits for an earlier call of its message that has not started (it may never: e.g. refused by a human-in-the-loop middleware). */
export const EARLIER_CALL_GRACE_MS = 250;

interface Slot {
  done: Promise<StepContribution>;
  finish(c: StepContribution): void;
}

interface Step {
  slots: Map<string, Slot>;
  /** Calls waiting for a call to start, by its id. */
  arrived: Map<string, (() => void)[]>;
  users: number;
}

/** The calls of one message of one thread, by tool call id. */
export class StepOrder {
  private readonly steps = new Map<string, Step>();

  /**
   * Waits for the calls before `callId` in `order` (the message's code calls, in order) and
   * returns what they left, and the function to call with what this call leaves.
   */
  async enter(stepKey: string, order: readonly string[], callId: string): Promise<{ before: StepContribution[]; finish(c: StepContribution): void }> {
    const index = order.indexOf(callId);
    if (index < 0) return { before: [], finish: () => undefined };
    let step = this.steps.get(stepKey);
    if (!step) {
      step = { slots: new Map(), arrived: new Map(), users: 0 };
      this.steps.set(stepKey, step);
    }
    const current = step;
    current.users++;
    const mine = this.slot(current, callId);
    for (const wake of current.arrived.get(callId) ?? []) wake();
    current.arrived.delete(callId);
    const before: StepContribution[] = [];
    for (const earlier of order.slice(0, index)) {
      const slot = current.slots.get(earlier) ?? (await this.arrival(current, earlier));
      if (slot) before.push(await slot.done);
    }
    return {
      before,
      finish: (c) => {
        mine.finish(c);
        if (--current.users === 0) {
          // Kept a little longer: a late call of the same message still finds what came before it.
          setTimeout(() => {
            if (current.users === 0 && this.steps.get(stepKey) === current) this.steps.delete(stepKey);
          }, EARLIER_CALL_GRACE_MS * 4).unref?.();
        }
      },
    };
  }

  private slot(step: Step, callId: string): Slot {
    let slot = step.slots.get(callId);
    if (!slot) {
      let finish!: (c: StepContribution) => void;
      const done = new Promise<StepContribution>((resolve) => (finish = resolve));
      slot = { done, finish };
      step.slots.set(callId, slot);
    }
    return slot;
  }

  /** The slot of an earlier call once it starts, or undefined if it does not start in time. */
  private arrival(step: Step, callId: string): Promise<Slot | undefined> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve(step.slots.get(callId));
      };
      const timer = setTimeout(() => {
        const waiting = step.arrived.get(callId) ?? [];
        step.arrived.set(callId, waiting.filter((w) => w !== wake));
        resolve(undefined);
      }, EARLIER_CALL_GRACE_MS);
      step.arrived.set(callId, [...(step.arrived.get(callId) ?? []), wake]);
    });
  }
}
