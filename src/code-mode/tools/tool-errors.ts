/**
 * The errors a guest sees from its tool calls: a name and a message only. Code mode's own
 * refusals have names of their own, so the tool result can say what to try.
 */

/** An error the guest sees: a name and a message, never a host stack. */
export class GuestToolError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
    // The engine copies name and message only; an empty stack keeps host paths out of any log.
    this.stack = `${name}: ${message}`;
  }
}

/** Error names the guest sees for the refusals of code mode (the outcome text explains them). */
export const INTERRUPT_ERROR = "InterruptNotSupportedError";
/** Past one of the caps on tool results. */
export const RESULT_LIMIT_ERROR = "HostResultLimitError";
/** A name given to the middleware that the agent has no tool for. */
export const NOT_AVAILABLE_ERROR = "ToolNotAvailableError";
