/**
 * Tools callable from code: each LangChain tool becomes a host function `__tool_<name>`, and a
 * small setup snippet gives the guest a `tools` namespace over them. A call is validated by the
 * tool's schema and made as LangGraph's ToolNode makes it (a child run of the code tool, with the
 * state and the caller's signal); its answer is capped, a `Command` is applied to the graph task,
 * an interrupt is refused, and the call is recorded with exactly what the guest received.
 */
import { ToolInputParsingException } from "@langchain/core/tools";
import type { CodeModeTool, RecordedToolCall } from "./tool-types.js";
import { isGraphBubbleUp, isGraphInterrupt } from "@langchain/langgraph";
import { InvalidOptionError } from "../../errors.js";
import { currentHostCall, describeHostFailure } from "../../sandbox/host-call-context.js";
import { CellToolCalls, type ToolHostOptions } from "./cell-tool-calls.js";
import { codeDepth } from "./graph-task.js";
import { GuestToolError, INTERRUPT_ERROR } from "./tool-errors.js";
import { invokeForCode } from "./tool-invocation.js";
import type { ExecutionResult, HostFunction, JsonValue, Language, RunOptions, Sandbox } from "../../sandbox/types.js";

export type { CodeModeTool, RecordedToolCall } from "./tool-types.js";
export type { ToolHostOptions } from "./cell-tool-calls.js";

const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HOST_PREFIX = "__tool_";

/**
 * Checks that `name` can be `tools.<name>` in every language: an identifier, not starting with
 * `__` (Python's special names such as `__init__` would break the namespace, and `__proto__`
 * would be JavaScript's prototype).
 */
export function checkToolName(name: string, option: string): void {
  if (!TOOL_NAME.test(name) || name.startsWith("__")) {
    throw new InvalidOptionError(option, name, "a tool name that is an identifier (letters, digits, _) not starting with __, so code can call tools.<name>");
  }
}

/** Checks tool names (they become `tools.<name>` in the guest) and returns the tools by name. */
export function indexTools(tools: readonly CodeModeTool[] | undefined, option = "tools"): Map<string, CodeModeTool> {
  const byName = new Map<string, CodeModeTool>();
  if (tools === undefined) return byName;
  if (!Array.isArray(tools)) throw new InvalidOptionError(option, tools, "an array of LangChain tools (made with tool() or StructuredTool)");
  for (const t of tools) {
    if (!t || typeof t.invoke !== "function" || typeof t.name !== "string") {
      throw new InvalidOptionError(option, t, "LangChain tools (made with tool() or StructuredTool)");
    }
    checkToolName(t.name, `${option}[].name`);
    if (byName.has(t.name)) throw new InvalidOptionError(option, t.name, "tools with distinct names");
    byName.set(t.name, t);
  }
  return byName;
}

/** How deep code → tool → code may nest before tool calls from code are refused. */
export const MAX_CODE_NESTING = 4;

function combinedSignal(signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  if (present.length <= 1) return present[0];
  return AbortSignal.any(present);
}

function describe(error: unknown): { name: string; message: string } {
  if (error instanceof ToolInputParsingException) {
    return { name: "ToolInputError", message: error.message.replace(/\s+/g, " ").trim() };
  }
  if (error instanceof GuestToolError) return { name: error.name, message: error.message };
  return describeHostFailure(error);
}

function interruptSummary(error: unknown): string {
  const interrupts = (error as { interrupts?: { value?: unknown }[] }).interrupts;
  const value = Array.isArray(interrupts) ? interrupts[0]?.value : undefined;
  if (value === undefined) return "";
  let text: string;
  try {
    text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  } catch {
    return "";
  }
  return text ? `: ${text.length > 200 ? `${text.slice(0, 197)}...` : text}` : "";
}

/**
 * Host functions `__tool_<name>` for `tools`: input validated by the tool's schema, the tool run
 * as LangGraph's ToolNode runs it (a child run of the code tool, with its own tool call id, the
 * state and the caller's signal), its answer capped and returned as JSON, a `Command` applied to
 * the graph task, interrupts refused, errors as name + message only. Every call is recorded with
 * exactly what the guest received.
 */
export function toolHostFunctions(tools: Map<string, CodeModeTool>, options: ToolHostOptions): Record<string, HostFunction> {
  const functions: Record<string, HostFunction> = {};
  const run = new CellToolCalls(options);
  for (const [name, t] of tools) {
    functions[`${HOST_PREFIX}${name}`] = async (...args: JsonValue[]) => {
      const input = args[0] ?? {};
      const hostCall = currentHostCall();
      const signal = combinedSignal([options.config?.signal, options.signal, hostCall?.signal]);
      // Recorded in the order the guest made the calls; filled in when each one settles.
      const entry: RecordedToolCall = { name, input: null };
      options.record.push(entry);
      try {
        run.admitInput(name, input, entry);
        signal?.throwIfAborted();
        if (codeDepth(options.config) >= MAX_CODE_NESTING) {
          throw new GuestToolError("ToolError", `tools.${name} was not called: code calling tools that run code is nested ${MAX_CODE_NESTING} levels deep, the most code mode allows`);
        }
        const call = run.nextCall(name, input, signal);
        const raw = await invokeForCode(t, input, call.config);
        const answer = raw.kind === "command" ? (run.applyCommand(name, raw.command, call.toolCallId) ?? { kind: "value" as const, value: null }) : raw;
        if (answer.kind === "error_message") throw new GuestToolError("ToolError", answer.text.length > 2000 ? `${answer.text.slice(0, 2000)}...` : answer.text);
        // The run ended while the tool ran: the guest never gets this answer, so none is kept
        // (the entry says only that the call was made).
        if (hostCall?.signal.aborted) return null;
        const output = run.admitOutput(name, answer.value);
        entry.output = output;
        return output;
      } catch (error) {
        if (hostCall?.signal.aborted) throw error;
        let described = describe(error);
        if (isGraphInterrupt(error)) {
          described = {
            name: INTERRUPT_ERROR,
            message: `tools.${name} asked to pause the graph for input (a LangGraph interrupt${interruptSummary(error)}); interrupts are not supported from code, because a resumed graph runs the whole cell again and would repeat the tool calls made before it. Call ${name} as a normal tool call, outside code.`,
          };
        } else if (isGraphBubbleUp(error)) {
          described = { name: "ToolError", message: `tools.${name} tried to send a Command to a parent graph, which code cannot do; call ${name} directly instead` };
        }
        entry.error = described;
        throw new GuestToolError(described.name, described.message);
      }
    };
  }
  return functions;
}

/**
 * Guest code that defines the `tools` namespace over the host functions, on ONE line (so it can
 * precede the user's first line without moving line numbers).
 */
export function toolsSetupCode(toolNames: readonly string[], language: Language): string {
  if (language === "python") {
    // Each lambda looks its host function up when called, so it works in every later run.
    const members = toolNames.map((n) => `${JSON.stringify(n)}: staticmethod(lambda **kw: ${HOST_PREFIX}${n}(kw))`).join(", ");
    return `tools = type("tools", (), {${members}})()`;
  }
  const members = toolNames.map((n) => `${n}: (input) => ${HOST_PREFIX}${n}(input === undefined ? {} : input)`).join(", ");
  return `globalThis.tools = Object.freeze({ ${members} });`;
}

/** Shifts Python line numbers back by the one setup line put before the program. */
function withoutSetupLine(result: ExecutionResult): ExecutionResult {
  if (!result.error) return result;
  const error = { ...result.error };
  if (error.line !== undefined) error.line = Math.max(1, error.line - 1);
  if (error.stack) error.stack = error.stack.replace(/(File "<[^>]+>", line )(\d+)/g, (_m, head: string, n: string) => `${head}${Math.max(1, Number(n) - 1)}`);
  return { ...result, error };
}

/**
 * Runs `code` once with the `tools` namespace defined over `options.hostFunctions` (which must
 * hold the tools' host functions): the one way a one-shot program gets its tools, in every
 * language. JavaScript/TypeScript put the setup on the program's first line; Python puts it on a
 * line of its own and the result's line numbers are moved back, so every line number is the
 * program's own.
 */
export async function runWithTools(
  runner: Pick<Sandbox, "run">,
  code: string,
  toolNames: readonly string[],
  options: RunOptions & { language: Language },
): Promise<ExecutionResult> {
  if (toolNames.length === 0) return runner.run(code, options);
  if (options.language === "python") return withoutSetupLine(await runner.run(`${toolsSetupCode(toolNames, "python")}\n${code}`, options));
  return runner.run(`${toolsSetupCode(toolNames, options.language)} ${code}`, options);
}
