/**
 * What `solve` and `demo` share: building the code-generation graph from their flags, streaming
 * one task through it with progress on stderr, and printing the final state. LangChain is loaded
 * only when a graph is built, so `--help` and usage errors stay instant.
 */
import type { Language } from "../sandbox/types.js";
import type { StoredRunResult, CodeGenEvent, Attempt, CodeGenInput, CodeGenStatus, CodeGenGraph, RepairStrategy } from "../graph/shared.js";

/** What `solve` and `demo` read of the graph's final state. */
export interface FinalState {
  status?: CodeGenStatus;
  code?: string;
  language?: Language;
  result?: StoredRunResult;
  attempts: Attempt[];
  explanation?: string;
}

/** The graph settings both commands take from their flags. */
export interface GraphFlags {
  model?: string;
  maxRetries?: number;
  timeoutMs?: number;
  repair?: RepairStrategy;
}

/** One line of progress for a graph event. */
export function formatEvent(event: CodeGenEvent): string {
  const parts = [`[attempt ${event.attempt}] ${event.node}: ${event.status}`];
  const details: string[] = [];
  if (event.durationMs !== undefined) details.push(`${event.durationMs.toFixed(1)} ms`);
  if (event.inputTokens !== undefined || event.outputTokens !== undefined) details.push(`${event.inputTokens ?? 0} in / ${event.outputTokens ?? 0} out tokens`);
  if (details.length > 0) parts.push(`(${details.join(", ")})`);
  if (event.message !== undefined && event.node !== "finalize") parts.push(`- ${event.message.split("\n")[0]}`);
  return parts.join(" ");
}

/** The final state as text: code, output, result and status. */
export function formatFinal(state: FinalState): string {
  const lines: string[] = [];
  if (state.code !== undefined && state.code !== "") lines.push(`--- code (${state.language ?? "?"}) ---`, state.code);
  if (state.result !== undefined) {
    lines.push("--- output ---", state.result.stdout.replace(/\n$/, "") || "(nothing printed)");
    if (state.result.stderr.trim() !== "") lines.push("--- stderr ---", state.result.stderr.replace(/\n$/, ""));
    if (state.result.resultJson !== undefined) lines.push("--- result ---", state.result.resultJson);
  }
  const attempts = state.attempts.length;
  lines.push(`--- status: ${state.status ?? "unknown"} after ${attempts} attempt${attempts === 1 ? "" : "s"} ---`);
  if (state.explanation !== undefined) lines.push(state.explanation);
  return lines.join("\n");
}

/** The graph for the command line: settings from the flags, model retries reported on stderr. */
export async function createCliGraph(flags: GraphFlags): Promise<CodeGenGraph> {
  const { createCodeGenGraph } = await import("../graph/index.js");
  return createCodeGenGraph({
    ...(flags.model === undefined ? {} : { model: flags.model }),
    ...(flags.maxRetries === undefined ? {} : { maxRetries: flags.maxRetries }),
    ...(flags.timeoutMs === undefined ? {} : { timeoutMs: flags.timeoutMs }),
    ...(flags.repair === undefined ? {} : { repair: flags.repair }),
    modelRetry: { onRetry: ({ retry, delayMs, kind }) => process.stderr.write(`model call failed (${kind.kind}); retry ${retry} in ${delayMs} ms\n`) },
  });
}

/** Runs one task through the graph, writing each progress event to stderr; returns the final state. */
export async function streamTask(graph: CodeGenGraph, input: CodeGenInput): Promise<FinalState> {
  let final: FinalState | undefined;
  for await (const [mode, chunk] of await graph.stream(input, { streamMode: ["custom", "values"] })) {
    if (mode === "custom") process.stderr.write(formatEvent(chunk as CodeGenEvent) + "\n");
    else final = chunk as FinalState;
  }
  if (final === undefined) throw new Error("the graph ended without a state");
  return final;
}
