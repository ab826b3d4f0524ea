/**
 * One tool call from code, made the way LangGraph's ToolNode makes it (the tool gets a tool call
 * with an id, the state and the config), but with the tool's own return value kept: LangChain
 * turns a tool's output into a `ToolMessage` whenever the call has an id, which would make every
 * JSON value a string. What comes back is what the guest should get, or a `Command` to apply.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { BaseMessage } from "@langchain/core/messages";
import { isCommand, type Command } from "@langchain/langgraph";
import type { CodeModeTool } from "./tool-types.js";

/** What a tool answered: a value for the guest, or a `Command` (state update) to apply. */
export type ToolAnswer = { kind: "value"; value: unknown } | { kind: "command"; command: Command } | { kind: "error_message"; text: string };

type Callable = (input: unknown, runManager: unknown, config: unknown) => unknown;

/**
 * Invokes `tool` with `input` and `config` (which holds the call's `toolCall`) and returns its
 * own answer. StructuredTool subclasses (everything `tool()` makes) have `_call`; a view of the
 * tool whose `_call` keeps the raw value lets `invoke` run as usual (schema validation,
 * callbacks, signal) while the value is not stringified into a message.
 */
export async function invokeForCode(tool: CodeModeTool, input: unknown, config: RunnableConfig): Promise<ToolAnswer> {
  const original = (tool as unknown as { _call?: Callable })._call;
  let raw: unknown;
  let captured = false;
  let returned: unknown;
  if (typeof original === "function") {
    const view = Object.create(tool) as CodeModeTool & { _call: Callable };
    view._call = async function (this: unknown, arg: unknown, runManager: unknown, cfg: unknown) {
      const value = await original.call(this, arg, runManager, cfg);
      raw = value;
      captured = true;
      return value;
    };
    returned = await view.invoke(input as never, config);
  } else {
    returned = await tool.invoke(input as never, config);
  }
  const value = captured ? raw : returned;
  return classify(value, (tool as { responseFormat?: unknown }).responseFormat === "content_and_artifact");
}

/** A message's content as code wants it: text blocks joined into one string, other content as it is. */
function textOf(content: unknown): unknown {
  if (!Array.isArray(content) || content.length === 0) return content;
  const allText = content.every((b) => b !== null && typeof b === "object" && (b as { type?: unknown }).type === "text" && typeof (b as { text?: unknown }).text === "string");
  return allText ? content.map((b) => (b as { text: string }).text).join("") : content;
}

function classify(value: unknown, contentAndArtifact: boolean): ToolAnswer {
  if (isCommand(value)) return { kind: "command", command: value };
  if (contentAndArtifact && Array.isArray(value) && value.length === 2) return { kind: "value", value: textOf(value[0]) };
  if (BaseMessage.isInstance(value)) {
    const status = (value as { status?: unknown }).status;
    const content = textOf(value.content);
    if (status === "error") return { kind: "error_message", text: typeof content === "string" ? content : JSON.stringify(content) };
    return { kind: "value", value: content };
  }
  // A tool that returns content blocks (as deepagents' read_file does) gives its text.
  return { kind: "value", value: textOf(value) };
}

/** The guest's value of a message a Command carried as the tool's answer. */
export function answerOfMessage(message: BaseMessage): Exclude<ToolAnswer, { kind: "command" }> {
  const answer = classify(message, false);
  return answer.kind === "command" ? { kind: "value", value: null } : answer;
}
