/**
 * Serving MCP over stdio. The process's stdout IS the protocol stream, so nothing else may
 * write there: while the server runs, every other write to `process.stdout` (a library's
 * `console.log`, a worker thread's output) is sent to stderr instead, and only the transport
 * writes to the real stdout. Guest programs never reach either: their output is data in results.
 */
import { checkOptions, integerRule, objectRule, type OptionRules } from "../options/index.js";
import { Writable, type Readable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { isJSONRPCNotification, isJSONRPCRequest, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { LineFramer } from "./line-framer.js";
import { maxRequestBytesFor, requestBudgetOf, type ByteBudget } from "./run-limiter.js";
import type { SandboxMcpServer } from "./server.js";

/** Options of `serveStdio`. */
export interface StdioServeOptions {
  /** Where requests come from. Default `process.stdin`. */
  input?: Readable;
  /**
   * Where the protocol goes. Default `process.stdout`, guarded: other writes to
   * `process.stdout` go to stderr while the server runs.
   */
  output?: Writable;
  /**
   * Largest JSON-RPC message read, in bytes. Default: room for `maxTotalFileBytes` of files as
   * base64 plus 8 MiB. A longer message closes the connection as soon as it passes the cap.
   */
  maxMessageBytes?: number;
}

/**
 * Bytes a parsed message holds, as its JSON text would count them: the length of its strings
 * and keys plus a few bytes per other value. A walk of what is already parsed (no copy).
 */
export function messageBytes(value: unknown): number {
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") bytes += v.length + 2;
    else if (Array.isArray(v)) {
      bytes += 2;
      for (const item of v) stack.push(item);
    } else if (typeof v === "object" && v !== null) {
      bytes += 2;
      for (const [key, item] of Object.entries(v)) {
        bytes += key.length + 4;
        stack.push(item);
      }
    } else bytes += 8;
  }
  return bytes;
}

/**
 * Holds each request's bytes in the server's budget (run-limiter.ts) from its arrival to its
 * answer (or its cancellation); a request that does not fit is answered "busy" at once and
 * never reaches a tool.
 */
function budgetRequests(transport: StdioServerTransport, budget: ByteBudget): void {
  const deliver = transport.onmessage;
  const send = transport.send.bind(transport);
  if (deliver === undefined) return;
  const held = new Map<RequestId, () => void>();
  transport.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message)) {
      const bytes = messageBytes(message.params);
      const release = budget.reserve(bytes);
      if (release === undefined) {
        void send({ jsonrpc: "2.0", id: message.id, error: { code: -32000, message: `The server is busy: requests in progress hold ${budget.heldBytes} bytes of its ${budget.maxBytes}-byte budget, and this one holds ${bytes}. Try again in a moment.` } });
        return;
      }
      held.get(message.id)?.();
      held.set(message.id, release);
    } else if (isJSONRPCNotification(message) && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (id !== undefined) {
        held.get(id)?.();
        held.delete(id);
      }
    }
    deliver(message);
  };
  transport.send = (message: JSONRPCMessage) => {
    if ("id" in message && message.id !== undefined && ("result" in message || "error" in message)) {
      held.get(message.id)?.();
      held.delete(message.id);
    }
    return send(message);
  };
  const closed = transport.onclose;
  transport.onclose = () => {
    for (const release of held.values()) release();
    held.clear();
    closed?.();
  };
}

/**
 * A stream that writes to the real stdout, and `process.stdout.write` pointed at stderr until
 * `restore()`.
 */
function guardProcessStdout(): { protocol: Writable; restore(): void } {
  const stdout = process.stdout;
  const originalWrite = stdout.write;
  const protocol = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      (originalWrite as (chunk: Buffer, callback: (error?: Error | null) => void) => boolean).call(stdout, chunk, callback);
    },
  });
  const toStderr = ((chunk: string | Uint8Array, ...rest: unknown[]) =>
    (process.stderr.write as (...args: unknown[]) => boolean)(chunk, ...rest)) as typeof stdout.write;
  stdout.write = toStderr;
  return {
    protocol,
    restore() {
      if (stdout.write === toStderr) stdout.write = originalWrite;
    },
  };
}

const STDIO_OPTION_RULES = {
  input: objectRule("a readable stream", (v) => typeof v.on === "function"),
  output: objectRule("a writable stream", (v) => typeof v.write === "function"),
  maxMessageBytes: integerRule({ min: 1024, max: 1024 ** 3, unit: "bytes" }),
} satisfies OptionRules<StdioServeOptions>;

/**
 * Serves `server` over stdio until the client disconnects (its end of stdin closes) or the
 * server closes. It does not close `server`: the caller decides (the CLI closes it, and the
 * process then exits by itself).
 *
 * @example
 * ```ts
 * const server = createMcpServer();
 * await serveStdio(server); // returns when the client goes away
 * await server.close();
 * ```
 */
export async function serveStdio(server: SandboxMcpServer, given: StdioServeOptions = {}): Promise<void> {
  const options = checkOptions<StdioServeOptions>(given, STDIO_OPTION_RULES, "serveStdio");
  const input = options.input ?? process.stdin;
  const guard = options.output === undefined ? guardProcessStdout() : undefined;
  const output = options.output ?? guard!.protocol;
  const maxMessageBytes = options.maxMessageBytes ?? maxRequestBytesFor(server.options.maxTotalFileBytes);
  let transport: StdioServerTransport | undefined;
  const disconnect = () => void transport?.close();
  // Lines reach the SDK's reader whole, one chunk each (see line-framer.ts): its own cap then
  // only needs room for one line and its newline.
  const framer = new LineFramer(maxMessageBytes, (bytes) => {
    process.stderr.write(`codegen-sandbox mcp: a message passed ${maxMessageBytes} bytes (${bytes} so far); closing the connection\n`);
    disconnect();
  });
  const lines = input.pipe(framer);
  // Held until every wrapper of the transport's messages is in place (the budget below): a
  // 'data' listener does not start a stream that was paused explicitly.
  lines.pause();
  transport = new StdioServerTransport(lines, output, { maxBufferSize: maxMessageBytes + 2 });
  const ended = new Promise<void>((resolve) => {
    transport!.onclose = resolve;
  });
  // A client that goes away closes our stdin; a broken stdout (EPIPE) means the same.
  input.once("end", disconnect);
  input.once("close", disconnect);
  output.once("error", disconnect);
  const stdoutError = () => disconnect();
  if (guard !== undefined) process.stdout.once("error", stdoutError);
  try {
    await server.connect(transport);
    budgetRequests(transport, requestBudgetOf(server));
    lines.resume();
    await ended;
  } finally {
    input.unpipe(framer);
    framer.destroy();
    input.off("end", disconnect);
    input.off("close", disconnect);
    output.off("error", disconnect);
    process.stdout.off("error", stdoutError);
    guard?.restore();
  }
}
