/**
 * `run_code`: runs a program in the sandbox (fresh, or in a session by its handle) and answers
 * with the text the `execute_code` tool writes plus the `ExecutionResult` as structured content.
 * A failed run is a normal result; bad arguments and unknown sessions are `isError` results.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { InvalidOptionError } from "../errors.js";
import { formatExecutionForModel } from "../feedback/tool-text.js";
import type { ExecutionResult, RunOptions } from "../sandbox/types.js";
import { decodeFiles, describeFileChanges, fileChanges } from "./files.js";
import type { RunCodeArgs } from "./schemas.js";
import type { Lookup } from "./sessions.js";
import { errorResult, structuredExecution, textResult, type ToolContext } from "./tool-context.js";

/** Runs one `run_code` call. */
export async function runCodeTool(context: ToolContext, args: RunCodeArgs, signal: AbortSignal): Promise<CallToolResult> {
  const { options } = context;
  let given: Record<string, Uint8Array> | undefined;
  try {
    given = args.files === undefined ? undefined : decodeFiles(args.files);
  } catch (error) {
    if (error instanceof InvalidOptionError) return errorResult(error.message);
    throw error;
  }
  const runOptions: Omit<RunOptions, "language"> = {
    timeoutMs: args.timeoutMs ?? options.timeoutMs,
    maxOutputBytes: options.maxOutputBytes,
    maxFileBytes: options.maxFileBytes,
    maxTotalFileBytes: options.maxTotalFileBytes,
    signal,
    ...(given === undefined ? {} : { files: given }),
  };

  let outcome: Lookup<Lookup<ExecutionResult>>;
  try {
    outcome = await context.limiter.run(signal, async (): Promise<Lookup<ExecutionResult>> => {
      if (args.session === undefined) {
        const result = await context.sandbox.run(args.code, { ...runOptions, language: args.language, memoryLimitBytes: options.memoryLimitBytes });
        return { ok: true, value: result };
      }
      const inSession = await context.sessions.use(args.session, async (session): Promise<Lookup<ExecutionResult>> => {
        if (session.language !== args.language) {
          return {
            ok: false,
            message: `Session "${args.session}" runs ${session.language}, not ${args.language}: send language "${session.language}" with it, or open a ${args.language} session with open_session.`,
          };
        }
        return { ok: true, value: await session.run(args.code, runOptions) };
      });
      return inSession.ok ? inSession.value : inSession;
    }, given === undefined ? 0 : Object.values(given).reduce((sum, bytes) => sum + bytes.byteLength, 0));
  } catch (error) {
    // The sandbox's own checks (file paths, file caps) name the argument and what to send.
    if (error instanceof InvalidOptionError) return errorResult(error.message);
    throw error;
  }
  if (!outcome.ok) return errorResult(outcome.message);
  if (!outcome.value.ok) return errorResult(outcome.value.message);
  const result = outcome.value.value;

  const structured = structuredExecution(result);
  let filesText = "";
  if (given !== undefined && result.files !== undefined) {
    const changes = fileChanges(given, result.files);
    structured.files = changes.written;
    if (changes.deleted.length > 0) structured.deletedFiles = changes.deleted;
    filesText = describeFileChanges(changes);
  }
  if (args.session !== undefined) structured.session = args.session;
  const body = formatExecutionForModel(result, args.code, { maxChars: Math.max(500, options.maxContentChars - filesText.length - 1) });
  return textResult(filesText === "" ? body : `${body}\n${filesText}`, structured);
}
