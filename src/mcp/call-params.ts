/**
 * A check of every `tools/call` request's params before the SDK sees them. The SDK parses them
 * with its own request schema and answers a mistake there (arguments that are an array, a
 * string or `null`; a tool name that is not a string) with a JSON-RPC "internal error" carrying
 * a raw schema dump. Here such a call gets the answer any other bad input gets: one `isError`
 * result whose text names the field and says what to send.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { InvalidOptionError } from "../errors.js";
import { errorResult } from "./tool-context.js";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Why a `tools/call` request's params cannot reach a tool, or `undefined` when they can (or the
 * message is something else).
 *
 * @example
 * ```ts
 * malformedCall({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "run_code", arguments: [] } });
 * // 'Invalid option "arguments": got []; expected an object of run_code\'s arguments, ...'
 * ```
 */
export function malformedCall(message: JSONRPCMessage): string | undefined {
  if (!("method" in message) || message.method !== "tools/call" || !("id" in message)) return undefined;
  const params: unknown = message.params;
  if (!isPlainObject(params)) return new InvalidOptionError("params", params, 'an object such as { "name": "run_code", "arguments": { ... } }').message;
  if (typeof params.name !== "string") return new InvalidOptionError("name", params.name, "the name of a tool, as a string (tools/list lists them)").message;
  const args = params.arguments;
  if (args !== undefined && !isPlainObject(args)) {
    return new InvalidOptionError("arguments", args, `an object of ${params.name}'s arguments, e.g. { "language": "javascript", "code": "1 + 1" } (tools/list gives each tool's input schema)`).message;
  }
  return undefined;
}

/**
 * Puts the check in front of a connected transport's message handler: a malformed call is
 * answered here and never delivered.
 */
export function refuseMalformedCalls(transport: Transport): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) return;
  transport.onmessage = (message, extra) => {
    const refusal = malformedCall(message);
    if (refusal === undefined) return deliver(message, extra);
    const id = (message as { id: string | number }).id;
    transport.send({ jsonrpc: "2.0", id, result: errorResult(refusal) }).catch(() => undefined);
  };
}
