/**
 * `open_session` and `close_session`: code sessions as explicit handles. A handle goes back to
 * the client in `structuredContent.session` and comes in as `run_code`'s `session` argument.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Language } from "../sandbox/types.js";
import { errorResult, textResult, type ToolContext } from "./tool-context.js";

/** Runs one `open_session` call. */
export async function openSessionTool(context: ToolContext, args: { language: Language }, signal: AbortSignal): Promise<CallToolResult> {
  const opened = await context.sessions.open(args.language);
  if (!opened.ok) return errorResult(opened.message);
  const { handle } = opened.value;
  // Nobody will ever learn a handle opened for a cancelled call: close it rather than let it idle.
  if (signal.aborted) {
    await context.sessions.close(handle);
    return errorResult("The call was cancelled; the session it opened is closed again.");
  }
  const idleMs = context.options.sessionIdleMs;
  return textResult(
    `session: ${handle}\nPass it as "session" to run_code (with language "${args.language}"): functions, variables and imports defined in one call stay defined for the next. Close it with close_session when done; it closes by itself after ${Math.round(idleMs / 1000)} s without use.`,
    { session: handle, language: args.language, idleTimeoutMs: idleMs },
  );
}

/** Runs one `close_session` call. */
export async function closeSessionTool(context: ToolContext, args: { session: string }): Promise<CallToolResult> {
  const closed = await context.sessions.close(args.session);
  if (!closed.ok) return errorResult(closed.message);
  return textResult(`closed session ${args.session} (${closed.value.language}).`, { session: args.session, closed: true });
}
