/**
 * What a tool called from code sees of the LangGraph task that runs the code tool, and how its
 * state updates reach that task. LangGraph applies a node's returned `Command` by sending its
 * writes through the task's `__pregel_send`, and reads a channel with the task's own pending
 * writes applied through `__pregel_read(channel, true)` (deepagents' `StateBackend` uses both the
 * same way). The keys are LangGraph's own (`CONFIG_KEY_SEND`, `CONFIG_KEY_READ`,
 * `CONFIG_KEY_SCRATCHPAD`); they are read in this one file, each feature-detected, and
 * `test/code-mode/graph-task.test.ts` fails if a LangGraph release changes them.
 */
import type { RunnableConfig } from "@langchain/core/runnables";

const SEND = "__pregel_send";
const READ = "__pregel_read";
const SCRATCHPAD = "__pregel_scratchpad";
const CHECKPOINT_NS = "checkpoint_ns";
/** How deep code → tool → code … may nest, counted in the child config. */
export const CODE_DEPTH_KEY = "codegen-sandbox_code_depth";

type Configurable = Record<string, unknown>;
type Send = (writes: [string, unknown][]) => void;
type Read = (select: string | string[], fresh?: boolean) => unknown;

function configurable(config: RunnableConfig | undefined): Configurable | undefined {
  const c = config?.configurable;
  return c !== null && typeof c === "object" ? (c as Configurable) : undefined;
}

/** True when `config` belongs to a LangGraph task whose writes can be sent. */
export function canSendWrites(config: RunnableConfig | undefined): boolean {
  return typeof configurable(config)?.[SEND] === "function";
}

/**
 * Sends state writes as the task's own (they are applied when the task ends, through each
 * channel's reducer, like the writes of a `Command` the node returned).
 */
export function sendWrites(config: RunnableConfig | undefined, writes: [string, unknown][]): void {
  const send = configurable(config)?.[SEND];
  if (typeof send !== "function") throw new Error("not inside a LangGraph task");
  (send as Send)(writes);
}

/**
 * The task's input state with `channels` read fresh (the task's pending writes applied through
 * their reducers), for the next tool call of the same cell: a file `write_file` wrote is there
 * for `read_file`.
 */
export function freshState(config: RunnableConfig | undefined, base: Record<string, unknown>, channels: readonly string[]): Record<string, unknown> {
  const read = configurable(config)?.[READ];
  if (channels.length === 0 || typeof read !== "function") return base;
  const values = (read as Read)([...channels], true);
  if (values === null || typeof values !== "object") return base;
  return { ...base, ...(values as Record<string, unknown>) };
}

/** The state the task started from (LangGraph's `getCurrentTaskInput()`), or `undefined` outside a task. */
export function taskInput(config: RunnableConfig | undefined): Record<string, unknown> | undefined {
  const scratchpad = configurable(config)?.[SCRATCHPAD] as { currentTaskInput?: unknown } | undefined;
  const input = scratchpad?.currentTaskInput;
  return input !== null && typeof input === "object" ? (input as Record<string, unknown>) : undefined;
}

/**
 * A scratchpad for one tool call from code: it shares the task's counters of subgraphs and
 * calls (so nested graphs get distinct checkpoint namespaces) and shows `state` as the task's
 * input, but has its own interrupt counter and no resume values. A tool that calls `interrupt()`
 * therefore always raises a fresh `GraphInterrupt` (which the bridge refuses), and never takes
 * or shifts a resume value meant for another interrupt of the task.
 */
function isolatedScratchpad(real: Record<string, unknown>, state: Record<string, unknown>): Record<string, unknown> {
  const shared = (key: string): PropertyDescriptor => ({
    get: () => real[key],
    set: (value: unknown) => {
      real[key] = value;
    },
    enumerable: true,
  });
  return Object.create(real, {
    subgraphCounter: shared("subgraphCounter"),
    callCounter: shared("callCounter"),
    interruptCounter: { value: -1, writable: true, enumerable: true },
    resume: { value: [], writable: true, enumerable: true },
    nullResume: { value: undefined, writable: true, enumerable: true },
    consumeNullResume: { value: () => undefined, enumerable: true },
    currentTaskInput: { value: state, writable: true, enumerable: true },
  }) as Record<string, unknown>;
}

/** What the child config of one tool call from code is made from. */
export interface ChildCallContext {
  /** The id of this call (a tool that answers with a `ToolMessage` or `Command` uses it). */
  toolCallId: string;
  name: string;
  args: unknown;
  /** The state the tool sees (`runtime.state`, `getCurrentTaskInput()`). */
  state: Record<string, unknown> | undefined;
  signal: AbortSignal | undefined;
}

/**
 * The config of one tool call from code: the code tool's own config (callbacks, so the call is a
 * child run of the code tool; tags, metadata, configurable, store, writer, context) with the
 * call's own tool call, state and signal, the way LangGraph's ToolNode calls a tool.
 */
export function childToolConfig(parent: RunnableConfig | undefined, call: ChildCallContext): RunnableConfig {
  const {
    runId: _runId,
    runName: _runName,
    toolCall: _toolCall,
    toolCallId: _toolCallId,
    state: _state,
    config: _config,
    signal: _signal,
    ...rest
  } = (parent ?? {}) as RunnableConfig & Record<string, unknown>;
  const out: Record<string, unknown> = { ...rest };
  const parentConfigurable = configurable(parent);
  if (parentConfigurable) {
    const child: Configurable = { ...parentConfigurable, [CODE_DEPTH_KEY]: codeDepth(parent) + 1 };
    const real = parentConfigurable[SCRATCHPAD];
    if (real !== null && typeof real === "object" && typeof (real as { interruptCounter?: unknown }).interruptCounter === "number") {
      child[SCRATCHPAD] = isolatedScratchpad(real as Record<string, unknown>, call.state ?? {});
    }
    out.configurable = child;
  } else {
    out.configurable = { [CODE_DEPTH_KEY]: 1 };
  }
  out.toolCall = { id: call.toolCallId, name: call.name, args: call.args, type: "tool_call" };
  out.toolCallId = call.toolCallId;
  if (call.state !== undefined) out.state = call.state;
  if (call.signal !== undefined) out.signal = call.signal;
  return out as RunnableConfig;
}

/** How many tool calls from code enclose this config (0 for the agent's own call). */
export function codeDepth(config: RunnableConfig | undefined): number {
  const depth = configurable(config)?.[CODE_DEPTH_KEY];
  return typeof depth === "number" && Number.isSafeInteger(depth) && depth > 0 ? depth : 0;
}

/**
 * Which graph run a config belongs to: its checkpoint namespace without the last segment (the
 * node's own task). The agent at the top is `""`; a subagent called from one of its tools is
 * `"tools:<task id>"`, distinct per run. `undefined` outside a graph.
 */
export function graphScope(config: RunnableConfig | undefined): string | undefined {
  const ns = configurable(config)?.[CHECKPOINT_NS];
  if (typeof ns !== "string") return undefined;
  const cut = ns.lastIndexOf("|");
  return cut < 0 ? "" : ns.slice(0, cut);
}
