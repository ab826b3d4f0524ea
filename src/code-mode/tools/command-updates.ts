/**
 * What a LangGraph `Command` returned by a tool called from code may do. Code runs inside one
 * tool call of the agent, so a Command from code can update state (its writes join the code
 * tool's own task, through each channel's reducer), but cannot move the graph (`goto`, `graph`,
 * `resume`) or add messages to the conversation (only the tool's own `ToolMessage`, which is the
 * answer the code gets). Code mode's own channels are written by code mode only.
 */
import { ToolMessage } from "@langchain/core/messages";
import type { Command } from "@langchain/langgraph";

/** A Command's state writes (in order) and the tool's own answer, or why it cannot be applied. */
export type CommandPlan =
  | { ok: true; writes: [string, unknown][]; answer: ToolMessage | undefined; ignored: string[] }
  | { ok: false; reason: string };

function updateTuples(update: unknown): [string, unknown][] | undefined {
  if (update === undefined || update === null) return [];
  if (Array.isArray(update)) {
    return update.every((t) => Array.isArray(t) && t.length === 2 && typeof t[0] === "string") ? (update as [string, unknown][]) : undefined;
  }
  if (typeof update === "object") return Object.entries(update as Record<string, unknown>);
  return undefined;
}

function hasGoto(goto: unknown): boolean {
  if (goto === undefined || goto === null) return false;
  return Array.isArray(goto) ? goto.length > 0 : true;
}

/**
 * Plans how `command`, returned by the tool call `ownToolCallId`, is applied from code.
 *
 * @example
 * ```ts
 * const plan = planCommand(new Command({ update: { files: { "/a": data }, messages: [reply] } }), "c1", new Set(["codeCells"]));
 * // { ok: true, writes: [["files", { "/a": data }]], answer: reply, ignored: [] }
 * ```
 */
export function planCommand(command: Command, ownToolCallId: string, ownedChannels: ReadonlySet<string>): CommandPlan {
  if (hasGoto(command.goto)) return { ok: false, reason: "it moves the graph to another node (goto), which code cannot do" };
  if (command.graph !== undefined && command.graph !== null) return { ok: false, reason: `it is addressed to another graph (graph: ${String(command.graph).slice(0, 40)}), which code cannot do` };
  if (command.resume !== undefined) return { ok: false, reason: "it resumes an interrupt, which code cannot do" };
  const tuples = updateTuples(command.update);
  if (tuples === undefined) return { ok: false, reason: "its update is not a map of state keys" };
  const writes: [string, unknown][] = [];
  const ignored: string[] = [];
  let answer: ToolMessage | undefined;
  for (const [key, value] of tuples) {
    if (key === "messages") {
      for (const message of Array.isArray(value) ? value : [value]) {
        if (ToolMessage.isInstance(message) && message.tool_call_id === ownToolCallId) answer = message;
        else return { ok: false, reason: "it adds messages to the conversation, which code cannot do (only the tool's own answer may be in messages)" };
      }
    } else if (key === "__root__") {
      return { ok: false, reason: "its update is not a map of state keys" };
    } else if (ownedChannels.has(key)) {
      if (!ignored.includes(key)) ignored.push(key);
    } else {
      writes.push([key, value]);
    }
  }
  return { ok: true, writes, answer, ignored };
}
