/**
 * Scripted agents for code-mode tests: a `fakeModel()` whose turns are code calls or a final
 * answer, each message with its own id (two fake models both number their messages from 0, and
 * the messages reducer would merge equal ids across processes).
 */
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import type { MemorySaver } from "@langchain/langgraph";
import type { ExecuteCodeArtifact } from "../../src/tools/code-interpreter-tool.js";
import { fakeModel } from "@langchain/core/testing";
import { randomUUID } from "node:crypto";

/** One model turn: run code, or answer. */
export type Turn = { code: string; language?: "javascript" | "typescript" | "python" } | string;

/** A scripted model that plays `turns` in order. */
export function scriptedCodeModel(...turns: Turn[]) {
  let model = fakeModel();
  for (const turn of turns) {
    const id = randomUUID();
    model =
      typeof turn === "string"
        ? model.respond(new AIMessage({ id, content: turn }))
        : model.respond(
            new AIMessage({
              id,
              content: "",
              tool_calls: [{ name: "execute_code", args: { language: turn.language ?? "javascript", code: turn.code }, id: `call-${id}`, type: "tool_call" }],
            }),
          );
  }
  return model;
}

/** A scripted model whose first turn is ONE AI message with several code calls (run in parallel by the agent). */
export function scriptedParallelModel(calls: { code: string; language?: "javascript" | "typescript" | "python" }[], ...rest: Turn[]) {
  const id = randomUUID();
  let model = fakeModel().respond(
    new AIMessage({
      id,
      content: "",
      tool_calls: calls.map((c, i) => ({ name: "execute_code", args: { language: c.language ?? "javascript", code: c.code }, id: `call-${id}-${i}`, type: "tool_call" as const })),
    }),
  );
  for (const turn of rest) {
    const next = randomUUID();
    model =
      typeof turn === "string"
        ? model.respond(new AIMessage({ id: next, content: turn }))
        : model.respond(new AIMessage({ id: next, content: "", tool_calls: [{ name: "execute_code", args: { language: turn.language ?? "javascript", code: turn.code }, id: `call-${next}`, type: "tool_call" }] }));
  }
  return model;
}

/** A graph input: one user message, plus any other channels (`files`, ...). */
export const ask = (content: string, extra: Record<string, unknown> = {}) => ({ messages: [{ role: "user", content }], ...extra });
/** The last tool message of a state. */
export const lastTool = (state: { messages: unknown[] }) => state.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).at(-1)!;
/** The code tool's artifact of the last tool message. */
export const artifact = (state: { messages: unknown[] }) => lastTool(state).artifact as ExecuteCodeArtifact;

/** Bytes a MemorySaver holds (checkpoints, metadata and pending writes); bench/code-mode-state.ts keeps its own copy (the bench cannot import tests). */
export function savedBytes(checkpointer: MemorySaver): number {
  let n = 0;
  const storage = (checkpointer as unknown as { storage: Record<string, Record<string, Record<string, [Uint8Array, Uint8Array]>>> }).storage;
  for (const ns of Object.values(storage)) for (const cps of Object.values(ns)) for (const [cp, md] of Object.values(cps)) n += cp.length + md.length;
  const writes = (checkpointer as unknown as { writes: Record<string, Record<string, [string, string, Uint8Array]>> }).writes;
  for (const w of Object.values(writes)) for (const r of Object.values(w)) n += r[2].length;
  return n;
}
