/**
 * Tools callable from code: each LangChain tool becomes a host function `__tool_<name>`, and a
 * small setup snippet gives the guest a `tools` namespace over them. Calls run on the host with
 * the caller's RunnableConfig; their results are recorded so a thread's cells can be replayed
 * later without calling the tools again.
 */
import { ToolInputParsingException, type StructuredToolInterface } from "@langchain/core/tools";
import type { RunnableConfig } from "@langchain/core/runnables";
import { InvalidOptionError } from "../errors.js";
import { currentHostCall } from "../sandbox/host-call-context.js";
import type { ExecutionResult, HostFunction, JsonValue, Language, RunOptions, Sandbox } from "../sandbox/types.js";

/** A LangChain tool that code may call: anything made with `tool()` or a `StructuredTool`. */
export type CodeModeTool = Pick<StructuredToolInterface, "name" | "description" | "schema" | "invoke">;

/** One tool call a cell made, with what it returned (or the error the guest saw). */
export interface RecordedToolCall {
  name: string;
  input: JsonValue;
  output?: JsonValue;
  error?: { name: string; message: string };
}

const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HOST_PREFIX = "__tool_";

/** Checks tool names (they become `tools.<name>` in the guest) and returns the tools by name. */
export function indexTools(tools: readonly CodeModeTool[] | undefined, option = "tools"): Map<string, CodeModeTool> {
  const byName = new Map<string, CodeModeTool>();
  if (tools === undefined) return byName;
  if (!Array.isArray(tools)) throw new InvalidOptionError(option, tools, "an array of LangChain tools (made with tool() or StructuredTool)");
  for (const t of tools) {
    if (!t || typeof t.invoke !== "function" || typeof t.name !== "string") {
      throw new InvalidOptionError(option, t, "LangChain tools (made with tool() or StructuredTool)");
    }
    if (!TOOL_NAME.test(t.name)) {
      throw new InvalidOptionError(`${option}[].name`, t.name, "a tool name that is an identifier (letters, digits, _), so code can call tools.<name>");
    }
    if (byName.has(t.name)) throw new InvalidOptionError(option, t.name, "tools with distinct names");
    byName.set(t.name, t);
  }
  return byName;
}

/** An error the guest sees: a name and a message, never a host stack. */
export class GuestToolError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
    // The engine copies name and message only; an empty stack keeps host paths out of any log.
    this.stack = `${name}: ${message}`;
  }
}

/** Raised during a replay when a cell asks for a tool call that the recording does not have. */
export class ReplayMismatchError extends GuestToolError {
  constructor(message: string) {
    super("RestoreError", message);
  }
}

function toJson(value: unknown, toolName: string): JsonValue {
  if (value === undefined) return null;
  if (typeof value === "string") return value;
  // A message-like result (a tool that returned a ToolMessage) gives its content.
  if (value !== null && typeof value === "object" && "content" in value && "lc_kwargs" in value) {
    return toJson((value as { content: unknown }).content, toolName);
  }
  try {
    const text = JSON.stringify(value);
    return text === undefined ? null : (JSON.parse(text) as JsonValue);
  } catch (error) {
    throw new GuestToolError("ToolOutputError", `tool ${toolName} returned a value that is not JSON (${(error as Error).message})`);
  }
}

/** Config for a nested tool call: the caller's callbacks, tags, metadata and signal, no tool call id. */
function childConfig(config: RunnableConfig | undefined, signal: AbortSignal | undefined): RunnableConfig {
  const out: RunnableConfig = {};
  if (config?.callbacks !== undefined) out.callbacks = config.callbacks;
  if (config?.tags !== undefined) out.tags = config.tags;
  if (config?.metadata !== undefined) out.metadata = config.metadata;
  if (config?.configurable !== undefined) out.configurable = config.configurable;
  if (signal !== undefined) out.signal = signal;
  return out;
}

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
  const e = error as { name?: unknown; message?: unknown } | null;
  const name = typeof e?.name === "string" && e.name ? e.name : "ToolError";
  const message = typeof e?.message === "string" ? e.message : String(error);
  return { name, message: message.length > 2000 ? `${message.slice(0, 2000)}...` : message };
}

/** What a set of host functions for one run needs. */
export interface ToolHostOptions {
  /** The config of the code tool's own call (callbacks → child runs; signal → stop). */
  config?: RunnableConfig;
  /** Extra signal that ends every call (the run's). */
  signal?: AbortSignal;
  /** Calls recorded here, in order. */
  record: RecordedToolCall[];
  /** When set, answer from this recording instead of calling the tools (replay). */
  replay?: RecordedToolCall[];
}

/**
 * Host functions `__tool_<name>` for `tools`: input validated by the tool's schema, the tool run
 * with the caller's config, output returned as JSON, errors as name + message only.
 */
export function toolHostFunctions(tools: Map<string, CodeModeTool>, options: ToolHostOptions): Record<string, HostFunction> {
  const functions: Record<string, HostFunction> = {};
  const used = new Set<number>();
  for (const [name, t] of tools) {
    functions[`${HOST_PREFIX}${name}`] = async (...args: JsonValue[]) => {
      const input = args[0] ?? {};
      if (options.replay) {
        // The first unused recorded call with the same name and input: calls made in parallel
        // may be asked for in another order than they were recorded.
        const key = JSON.stringify(input);
        const index = options.replay.findIndex((r, i) => !used.has(i) && r.name === name && JSON.stringify(r.input) === key);
        const recorded = index < 0 ? undefined : options.replay[index];
        if (!recorded) {
          throw new ReplayMismatchError(
            `the replayed cell called tools.${name} with an input the recording does not have (the cell is not deterministic)`,
          );
        }
        used.add(index);
        if (recorded.error) throw new GuestToolError(recorded.error.name, recorded.error.message);
        return recorded.output ?? null;
      }
      const signal = combinedSignal([options.config?.signal, options.signal, currentHostCall()?.signal]);
      // Recorded in the order the guest made the calls; filled in when each one settles.
      const entry: RecordedToolCall = { name, input };
      options.record.push(entry);
      try {
        signal?.throwIfAborted();
        const raw: unknown = await t.invoke(input as never, childConfig(options.config, signal));
        if (raw !== null && typeof raw === "object" && "lg_name" in raw && (raw as { lg_name: unknown }).lg_name === "Command") {
          throw new GuestToolError("ToolError", `tool ${name} returns a LangGraph Command (a state update) and cannot be called from code`);
        }
        const output = toJson(raw, name);
        entry.output = output;
        return output;
      } catch (error) {
        const described = describe(error);
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
