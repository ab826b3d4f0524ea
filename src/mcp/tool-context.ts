/**
 * What every tool handler of one server shares: its options, its sandbox, its code sessions and
 * its run limiter; and the two shapes of result a tool returns.
 */
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { ExecutionResult, Sandbox } from "../sandbox/types.js";
import type { ResolvedMcpOptions } from "./options.js";
import type { RunLimiter } from "./run-limiter.js";
import type { SessionRegistry } from "./sessions.js";

/** The server state a tool call works with. */
export interface ToolContext {
  readonly options: ResolvedMcpOptions;
  readonly sandbox: Sandbox;
  readonly sessions: SessionRegistry;
  readonly limiter: RunLimiter;
}

/** What the SDK gives a tool handler besides its arguments (signal, progress token, notifications). */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * A tool result the caller must act on (bad arguments, an unknown session, a busy server):
 * `isError` with one text that says what to send instead.
 *
 * @example
 * ```ts
 * errorResult('Invalid option "language": got "ruby"; expected one of "javascript", "typescript", "python".');
 * ```
 */
export function errorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** The second block of a one-line text (see {@link textResult}). */
export const DETAILS_NOTE = "(the details, as JSON, are the result's structuredContent)";

/**
 * A normal tool result: the text for the model and the structured value (the tool's `outputSchema`).
 * The text is two content blocks, its first line (the outcome) and the rest: a client built on
 * `@langchain/mcp-adapters` then gives the model the blocks and keeps `structuredContent` as the
 * message's artifact, where one block alone would be merged with the whole `structuredContent`
 * JSON into the text the model reads (the same facts twice). A one-line text's second block is
 * {@link DETAILS_NOTE}.
 *
 * @example
 * ```ts
 * textResult("status: success\nresult: 2", { status: "success", result: 2 });
 * // content: [{ type: "text", text: "status: success" }, { type: "text", text: "result: 2" }]
 * ```
 */
export function textResult(text: string, structuredContent: Record<string, unknown>): CallToolResult {
  const newline = text.indexOf("\n");
  const head = newline < 0 ? text : text.slice(0, newline);
  const rest = newline < 0 ? "" : text.slice(newline + 1);
  const second = rest.trim() === "" ? DETAILS_NOTE : rest;
  return { content: [{ type: "text", text: head }, { type: "text", text: second }], structuredContent };
}

/**
 * An `ExecutionResult` as JSON for `structuredContent`, with exactly the keys of the output
 * schema (a client checks it against that schema; `files` as bytes is not JSON and is added by
 * `run_code` in its own form).
 *
 * @example
 * ```ts
 * structuredExecution(await runCode("1 + 1")); // { status: "success", stdout: "", ..., result: 2 }
 * ```
 */
export function structuredExecution(result: ExecutionResult): Record<string, unknown> {
  const out: Record<string, unknown> = {
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    outputTruncated: result.outputTruncated,
    durationMs: result.durationMs,
    language: result.language,
  };
  if (result.result !== undefined) out.result = result.result;
  if (result.error !== undefined) {
    const { name, message, line, column, stack } = result.error;
    out.error = { name, message, ...(line === undefined ? {} : { line }), ...(column === undefined ? {} : { column }), ...(stack === undefined ? {} : { stack }) };
  }
  if (result.hostCalls !== undefined) out.hostCalls = result.hostCalls;
  return out;
}
