/**
 * `solve`: the whole code-generation graph in one tool call, with the model from the
 * environment (or the server's `model` option), as the CLI's `solve` runs it. Each step of the
 * graph becomes a progress notification when the client asked for progress. LangChain and the
 * graph load on the first call, so a server that never solves never loads them.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { InvalidOptionError, MissingPeerError } from "../errors.js";
import { requirePeers } from "../peers.js";
import { inferLanguage, restoreRunResult, type CodeGenEvent, type codeGenRunContext, type CodeGenGraph, type CodeGenInput, type CodeGenStateType } from "../graph/shared.js";
import { ModelConfigurationError } from "../models/errors.js";
import type { SolveArgs } from "./schemas.js";
import { errorResult, structuredExecution, textResult, type ToolContext, type ToolExtra } from "./tool-context.js";

interface Solver {
  graph: CodeGenGraph;
  runContext: typeof codeGenRunContext;
}

const solvers = new WeakMap<ToolContext, Promise<Solver>>();

/** The server's graph, built on the first `solve` (its runs use the server's sandbox and limits). */
function solverFor(context: ToolContext): Promise<Solver> {
  let solver = solvers.get(context);
  if (solver === undefined) {
    const { options } = context;
    solver = import("../graph/index.js").then(({ createCodeGenGraph, codeGenRunContext }) => ({
      runContext: codeGenRunContext,
      graph: createCodeGenGraph({
        sandbox: context.sandbox,
        timeoutMs: options.timeoutMs,
        memoryLimitBytes: options.memoryLimitBytes,
        maxOutputBytes: options.maxOutputBytes,
        ...(options.model === undefined ? {} : { model: options.model }),
        ...(options.env === undefined ? {} : { env: options.env }),
      }),
    }));
    solvers.set(context, solver);
    // A failed build must not stick.
    solver.catch(() => solvers.delete(context));
  }
  return solver;
}

/** One line of progress for a graph step: `[attempt 2] execute: runtime_error (3.1 ms) - ReferenceError: ...`. */
function progressMessage(event: CodeGenEvent): string {
  const duration = event.durationMs === undefined ? "" : ` (${event.durationMs.toFixed(1)} ms)`;
  const detail = event.message === undefined || event.node === "finalize" ? "" : ` - ${event.message.split("\n")[0]!.slice(0, 300)}`;
  return `[attempt ${event.attempt}] ${event.node}: ${event.status}${duration}${detail}`;
}

/** Runs one `solve` call. */
export async function solveTool(context: ToolContext, args: SolveArgs, extra: ToolExtra): Promise<CallToolResult> {
  const input: CodeGenInput = { task: args.task };
  // The task's own words choose when `language` is not given, as the CLI's `solve` does.
  const language = args.language ?? inferLanguage(args.task)?.language;
  if (language !== undefined) input.language = language;
  if (args.details !== undefined) input.details = args.details;
  if (args.tests !== undefined) input.tests = args.tests;
  const progressToken = extra._meta?.progressToken;
  let step = 0;

  let final: CodeGenStateType | undefined;
  const outcome = await context.limiter.run(extra.signal, async () => {
    try {
      requirePeers("codegen-sandbox mcp solve");
      const { graph, runContext } = await solverFor(context);
      const stream = await graph.stream(input, {
        streamMode: ["custom", "values"],
        signal: extra.signal,
        context: runContext(args.maxRetries === undefined ? {} : { maxRetries: args.maxRetries }),
      });
      for await (const [mode, chunk] of stream) {
        if (mode === "values") final = chunk as CodeGenStateType;
        else if (progressToken !== undefined) {
          step++;
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken, progress: step, message: progressMessage(chunk as CodeGenEvent) },
          });
        }
      }
      return undefined;
    } catch (error) {
      // No model configured, or a bad setting: one message naming what to set.
      if (error instanceof ModelConfigurationError || error instanceof InvalidOptionError || error instanceof MissingPeerError) return error.message;
      throw error;
    }
  });
  if (!outcome.ok) return errorResult(outcome.message);
  if (outcome.value !== undefined) return errorResult(outcome.value);
  if (final?.status === undefined) throw new Error("the code-generation graph ended without a final status");

  const { formatSolutionForModel } = await import("../tools/code-gen-tool.js");
  const text = formatSolutionForModel(final, { maxChars: context.options.maxContentChars });
  const structured: Record<string, unknown> = {
    status: final.status,
    attempts: final.attempts,
  };
  if (final.language !== undefined) structured.language = final.language;
  if (final.code !== undefined) structured.code = final.code;
  if (final.result !== undefined) structured.run = structuredExecution(restoreRunResult(final.result));
  if (final.explanation !== undefined) structured.explanation = final.explanation;
  return textResult(text, structured);
}
