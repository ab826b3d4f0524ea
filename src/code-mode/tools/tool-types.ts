/**
 * The types shared by code mode's tool layer and its state: a tool code may call, and one
 * recorded call (the replay log's unit, kept in the graph state).
 */
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { JsonValue } from "../../sandbox/types.js";

/** A LangChain tool that code may call: anything made with `tool()` or a `StructuredTool`. */
export type CodeModeTool = Pick<StructuredToolInterface, "name" | "description" | "schema" | "invoke">;

/**
 * One tool call a cell made, with what it returned (or the error the guest saw): exactly what
 * the guest received, never more. An input larger than a result may be is kept as its SHA-256
 * (`input` is then `null`); a replay matches it by that hash.
 */
export interface RecordedToolCall {
  name: string;
  input: JsonValue;
  /** Hex SHA-256 of the input's JSON, when the input itself was too large to keep. */
  inputSha256?: string;
  output?: JsonValue;
  error?: { name: string; message: string };
}
