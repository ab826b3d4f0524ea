/**
 * The bookkeeping of one cell's tool calls: what the cell may still receive under the caps, the
 * id and config of each call, the state the next call sees, and how a tool's `Command` is
 * applied to the graph task that runs the code tool.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import type { Command } from "@langchain/langgraph";
import type { JsonValue } from "../../sandbox/types.js";
import { planCommand } from "./command-updates.js";
import { canSendWrites, childToolConfig, freshState, sendWrites, taskInput } from "./graph-task.js";
import { codeModeStateFields } from "../thread/state.js";
import { GuestToolError, RESULT_LIMIT_ERROR } from "./tool-errors.js";
import { answerOfMessage, type ToolAnswer } from "./tool-invocation.js";
import { decodeEncoded, defaultToolResultCaps, encodeBounded, inputDigest, type ToolResultCaps } from "./tool-results.js";
import { formatBytes } from "../../common/bytes.js";
import type { RecordedToolCall } from "./tool-types.js";

/** Code mode's own state channels: a tool's Command from code does not write them. */
function ownedChannels(): Set<string> {
  return new Set(Object.keys(codeModeStateFields).filter((key) => key !== "files"));
}

/** What a set of host functions for one run needs. */
export interface ToolHostOptions {
  /** The config of the code tool's own call (callbacks → child runs; signal → stop; the graph task). */
  config?: RunnableConfig;
  /** Extra signal that ends every call (the run's). */
  signal?: AbortSignal;
  /** Calls recorded here, in order. */
  record: RecordedToolCall[];
  /** Caps on what the guest receives. Default: code mode's (1 MiB per result, 8 MiB per cell). */
  caps?: ToolResultCaps;
  /** The state the code tool was called with (the tools see it; default: the graph task's input). */
  state?: Record<string, unknown>;
  /**
   * What a tool's `Command` does: `"apply"` (its writes join the code tool's graph task) or
   * `"refuse"` (the guest gets an error). Default: apply inside a LangGraph task, refuse outside.
   */
  commands?: "apply" | "refuse";
}

/** The tool calls of one run (one cell): its budget under the caps, the state its tools see. */
export class CellToolCalls {
  private usedBytes = 0;
  private calls = 0;
  private readonly written = new Set<string>();
  readonly caps: ToolResultCaps;
  private readonly owned = ownedChannels();
  private readonly parentId: string;

  constructor(private readonly options: ToolHostOptions) {
    this.caps = options.caps ?? defaultToolResultCaps();
    const config = options.config as (RunnableConfig & { toolCallId?: unknown; toolCall?: { id?: unknown } }) | undefined;
    const id = config?.toolCallId ?? config?.toolCall?.id;
    this.parentId = typeof id === "string" && id ? id : "code";
  }

  private refuseOverCell(name: string, adding: number): never {
    throw new GuestToolError(
      RESULT_LIMIT_ERROR,
      `this cell's tool calls would hold ${formatBytes(this.usedBytes + adding)} of inputs and results, over the ${formatBytes(this.caps.maxCellBytes)} cap per cell (${this.caps.cellOption}); tools.${name} was not given this. Ask the tools for less (a page, a filter, a summary), split the work over several cells, or raise ${this.caps.cellOption}.`,
    );
  }

  /**
   * Puts the call's input in its log entry and counts it against the cell's cap. An input larger
   * than a result may be is kept as its hash (a replay can still match it), and so is any input
   * of a call refused for the cap.
   */
  admitInput(name: string, input: JsonValue, entry: RecordedToolCall): void {
    const json = JSON.stringify(input) ?? "null";
    const bytes = Buffer.byteLength(json);
    const asDigest = () => {
      entry.input = null;
      entry.inputSha256 = inputDigest(json);
    };
    if (bytes > this.caps.maxResultBytes) asDigest();
    else entry.input = input;
    const storedBytes = entry.inputSha256 === undefined ? bytes : 64;
    if (this.usedBytes + storedBytes > this.caps.maxCellBytes) {
      asDigest();
      this.refuseOverCell(name, storedBytes);
    }
    this.usedBytes += storedBytes;
  }

  /** The guest's value of a tool's answer, within the caps; throws the guest's error past them. */
  admitOutput(name: string, value: unknown): JsonValue {
    // Serialising stops at the smaller of the two caps: a value the cell has no room left for is
    // refused without a copy (250 refused 900 kB results made 200 MB of garbage before).
    const room = Math.max(0, this.caps.maxCellBytes - this.usedBytes);
    const encoded = encodeBounded(value, Math.min(this.caps.maxResultBytes, room));
    if ("failure" in encoded) {
      if (encoded.failure.kind === "not_json") {
        throw new GuestToolError("ToolOutputError", `tools.${name} returned a value that is not JSON (${encoded.failure.reason})`);
      }
      if (room < this.caps.maxResultBytes && encoded.failure.atLeastBytes <= this.caps.maxResultBytes) this.refuseOverCell(name, encoded.failure.atLeastBytes);
      throw new GuestToolError(
        RESULT_LIMIT_ERROR,
        `tools.${name} returned at least ${formatBytes(encoded.failure.atLeastBytes)} of JSON, over the ${formatBytes(this.caps.maxResultBytes)} cap per tool result (${this.caps.resultOption}); it was not passed to the code. Ask the tool for less (a page, a filter, a summary), or raise ${this.caps.resultOption}.`,
      );
    }
    if (this.usedBytes + encoded.bytes > this.caps.maxCellBytes) this.refuseOverCell(name, encoded.bytes);
    this.usedBytes += encoded.bytes;
    return decodeEncoded(encoded);
  }

  /** The config of the next call: its own tool call id, the state with this cell's writes so far. */
  nextCall(name: string, input: JsonValue, signal: AbortSignal | undefined): { config: RunnableConfig; toolCallId: string } {
    this.calls += 1;
    const toolCallId = `${this.parentId}/tools.${name}/${this.calls}`;
    const base = this.options.state ?? taskInput(this.options.config);
    const state = base === undefined ? undefined : freshState(this.options.config, base, [...this.written]);
    return { toolCallId, config: childToolConfig(this.options.config, { toolCallId, name, args: input, state, signal }) };
  }

  /** Applies a tool's Command from code; returns the answer the guest gets. */
  applyCommand(name: string, command: Command, toolCallId: string): Exclude<ToolAnswer, { kind: "command" }> | undefined {
    const applies = this.options.commands ?? (canSendWrites(this.options.config) ? "apply" : "refuse");
    if (applies === "refuse") {
      throw new GuestToolError(
        "ToolError",
        `tools.${name} returned a LangGraph Command (a state update), but this code is not running inside a LangGraph graph whose state it could update; call ${name} directly instead`,
      );
    }
    const plan = planCommand(command, toolCallId, this.owned);
    if (!plan.ok) throw new GuestToolError("ToolError", `tools.${name} returned a LangGraph Command that cannot be applied from code: ${plan.reason}; call ${name} directly instead`);
    if (plan.writes.length > 0) {
      sendWrites(this.options.config, plan.writes);
      for (const [key] of plan.writes) this.written.add(key);
    }
    return plan.answer ? answerOfMessage(plan.answer) : undefined;
  }
}
