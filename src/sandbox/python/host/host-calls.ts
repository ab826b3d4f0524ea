/**
 * The host's end of Python host calls, one broker per run: it is where the budgets live
 * (calls in flight, calls per run), where each call gets its `AbortSignal`, and where every
 * call's arguments and value are checked. The guest only asks; the broker decides.
 */
import { describeHostFailure, withHostCall } from "../../host-call-context.js";
import { hostCallLimitError } from "../../limit-errors.js";
import type { HostFunction, JsonValue } from "../../types.js";
import { MAX_HOST_ARGS_CHARS } from "../shared/bounds.js";
import type { HostReply } from "../shared/protocol.js";

/** Limits of one run's host calls. */
export interface HostCallLimits {
  maxHostCallsInFlight: number;
  maxHostCalls: number;
  /** Bytes of a host function's JSON value the guest may receive. */
  maxResultBytes: number;
}

/**
 * Serves the host calls of one run.
 *
 * @example
 * const broker = new HostCallBroker({ add: (a, b) => Number(a) + Number(b) }, limits, (callId, reply) => write(reply));
 * broker.handle(1, "add", "[1,2]");
 * broker.end(); // aborts the signal of every call still running; later replies are dropped
 */
export class HostCallBroker {
  readonly #functions: Record<string, HostFunction>;
  readonly #limits: HostCallLimits;
  readonly #reply: (callId: number, reply: HostReply) => void;
  readonly #controller = new AbortController();
  #started = 0;
  #inFlight = 0;
  #ended = false;

  constructor(functions: Record<string, HostFunction>, limits: HostCallLimits, reply: (callId: number, reply: HostReply) => void) {
    this.#functions = functions;
    this.#limits = limits;
    this.#reply = reply;
  }

  /** Host calls the run started (refused calls are not counted). */
  get started(): number {
    return this.#started;
  }

  /** Handles one call message from the runner; every field is checked. */
  handle(callId: unknown, name: unknown, argsJson: unknown): void {
    if (this.#ended || typeof callId !== "number" || !Number.isSafeInteger(callId)) return;
    const refuse = (errorName: string, message: string) => this.#reply(callId, { ok: false, name: errorName, message });
    if (typeof name !== "string" || !Object.hasOwn(this.#functions, name)) {
      return refuse("HostCallError", `no host function named ${String(name).slice(0, 80)} was given to this run`);
    }
    if (typeof argsJson !== "string" || argsJson.length > MAX_HOST_ARGS_CHARS) {
      return refuse("HostCallError", `the arguments of ${name}() must be JSON text of at most ${MAX_HOST_ARGS_CHARS} characters`);
    }
    let args: unknown;
    try {
      args = JSON.parse(argsJson);
    } catch {
      args = undefined;
    }
    if (!Array.isArray(args)) return refuse("HostCallError", `the arguments of ${name}() must be a JSON array`);
    const overLimit = hostCallLimitError(name, this.#inFlight, this.#started, this.#limits);
    if (overLimit) return refuse(overLimit.name, overLimit.message);
    this.#started += 1;
    this.#inFlight += 1;
    void this.#call(callId, name, args as JsonValue[]);
  }

  /** The run ended: abort the calls still running and drop their replies. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#controller.abort(new Error("the run that made this host call ended"));
  }

  async #call(callId: number, name: string, args: JsonValue[]): Promise<void> {
    let reply: HostReply;
    try {
      const fn = this.#functions[name]!;
      const value: unknown = await withHostCall({ signal: this.#controller.signal, name }, () => fn(...args));
      reply = encodeValue(name, value, this.#limits.maxResultBytes);
    } catch (error) {
      reply = { ok: false, ...describeHostFailure(error) };
    } finally {
      this.#inFlight -= 1;
    }
    if (!this.#ended) this.#reply(callId, reply);
  }
}

function encodeValue(name: string, value: unknown, maxBytes: number): HostReply {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    return { ok: false, name: "TypeError", message: `the value of ${name}() is not JSON (${describeHostFailure(error).message})` };
  }
  if (json === undefined) return { ok: true };
  const bytes = Buffer.byteLength(json);
  if (bytes > maxBytes) {
    return { ok: false, name: "HostCallError", message: `the value of ${name}() is ${bytes} bytes of JSON, over the ${maxBytes}-byte maxResultBytes limit` };
  }
  return { ok: true, valueJson: json };
}

