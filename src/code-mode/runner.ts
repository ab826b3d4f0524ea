/**
 * Runs one cell of code mode: tools callable from code, the thread's files in and out, and with
 * `persistence: "thread"` the thread's earlier cells restored (from a live session, or by replay
 * of the log in the graph state).
 */
import { randomUUID } from "node:crypto";
import type { RunnableConfig } from "@langchain/core/runnables";
import { SandboxSessionEndedError } from "../errors.js";
import { getSharedSandbox } from "../sandbox/run-code.js";
import type { ExecutionResult, HostFunction, Language, RunOptions, Sandbox, SandboxSession } from "../sandbox/types.js";
import { persistTopLevel } from "./persist-declarations.js";
import { diffFiles, filesToBytes, type FileCaps, type FilesChange, type ThreadFiles } from "./files.js";
import { SessionCache, type LiveSession } from "./session-cache.js";
import type { CodeCell } from "./state.js";
import { runWithTools, toolHostFunctions, toolsSetupCode, type CodeModeTool, type RecordedToolCall } from "./tool-bridge.js";

/** How state is kept between calls: `"none"` (every call starts fresh) or `"thread"`. */
export type Persistence = "none" | "thread";

/** Limits of each run, as in `RunOptions`. */
export type CellLimits = Pick<
  RunOptions,
  "timeoutMs" | "memoryLimitBytes" | "maxOutputBytes" | "maxHostCalls" | "maxHostCallsInFlight" | "maxResultBytes" | "globals"
>;

/** What a runner needs. */
export interface CodeModeRunnerOptions {
  tools: Map<string, CodeModeTool>;
  /** Extra host functions (not tools) the code may call. */
  hostFunctions: Record<string, HostFunction>;
  sandbox?: Pick<Sandbox, "run" | "createSession">;
  limits: CellLimits;
  caps: FileCaps;
  /** Live sessions kept in this process. */
  maxSessions: number;
}

/** One cell to run. */
export interface CellRequest {
  code: string;
  language: Language;
  persistence: Persistence;
  /** The LangGraph thread; without one, the cell runs one-shot. */
  threadId?: string;
  /** The code tool's own config (callbacks, signal) for tool calls. */
  config?: RunnableConfig;
  /** The thread's replay log (from state). */
  cells: CodeCell[];
  /** The thread's files (from state, with caller-given files). */
  files: ThreadFiles;
}

/** How a restore went. */
export interface RestoreReport {
  /** Cells replayed into a fresh session. */
  replayed: number;
  durationMs: number;
  /** Cells that did not replay cleanly: what they define may be missing. */
  failures: string[];
}

/** What a cell did. */
export interface CellOutcome {
  result: ExecutionResult;
  /** The log entry to append (successful cells under `"thread"` persistence). */
  cell?: CodeCell;
  files: FilesChange;
  toolCalls: RecordedToolCall[];
  restore?: RestoreReport;
  /** Why state was not kept, when it was asked for and could not be. */
  notes: string[];
}

/** Runs cells and keeps the live sessions of threads. */
export class CodeModeRunner {
  private readonly cache: SessionCache;

  constructor(private readonly options: CodeModeRunnerOptions) {
    this.cache = new SessionCache(options.maxSessions);
  }

  /** Live sessions held now. */
  get liveSessions(): number {
    return this.cache.size;
  }

  private sandbox(): Pick<Sandbox, "run" | "createSession"> {
    return this.options.sandbox ?? getSharedSandbox();
  }

  private runOptions(request: CellRequest, record: RecordedToolCall[], replay?: RecordedToolCall[]): Omit<RunOptions, "language"> {
    const o: Omit<RunOptions, "language"> = { ...this.options.limits, files: filesToBytes(request.files) };
    const signal = request.config?.signal;
    if (signal) o.signal = signal;
    const hostFunctions = {
      ...this.options.hostFunctions,
      ...toolHostFunctions(this.options.tools, { config: request.config, record, replay }),
    };
    if (Object.keys(hostFunctions).length > 0) o.hostFunctions = hostFunctions;
    return o;
  }

  /** Runs a cell; failures of the code are statuses in `result`, never throws. */
  async run(request: CellRequest): Promise<CellOutcome> {
    const notes: string[] = [];
    if (request.persistence === "thread" && request.threadId === undefined) {
      notes.push("no thread_id in the config: this call ran fresh and nothing it defined is kept (run the agent with a checkpointer and a thread_id)");
    }
    if (request.persistence !== "thread" || request.threadId === undefined) {
      return { ...(await this.runOnce(request)), notes };
    }
    const threadId = request.threadId;
    const key = `${threadId}\u0000${request.language}`;
    return this.cache.use(key, async () => {
      try {
        return await this.runInThread(key, request, notes);
      } catch (error) {
        if (!(error instanceof SandboxSessionEndedError)) throw error;
        // The live session ended under us (e.g. evicted or killed): rebuild it once from the log.
        await this.cache.drop(key);
        return this.runInThread(key, request, notes);
      }
    });
  }

  private async runOnce(request: CellRequest): Promise<Omit<CellOutcome, "notes">> {
    const toolCalls: RecordedToolCall[] = [];
    const options = { ...this.runOptions(request, toolCalls), language: request.language };
    const result = await runWithTools(this.sandbox(), request.code, [...this.options.tools.keys()], options);
    return { result, files: diffFiles(request.files, result.files, this.options.caps), toolCalls };
  }

  private async openSession(request: CellRequest): Promise<SandboxSession> {
    const session = await this.sandbox().createSession({ language: request.language, memoryLimitBytes: this.options.limits.memoryLimitBytes });
    const toolNames = [...this.options.tools.keys()];
    if (toolNames.length > 0) {
      const setup = await session.run(toolsSetupCode(toolNames, request.language), this.runOptions(request, []));
      if (setup.status !== "success") {
        await session.dispose();
        throw new Error(`code mode could not set up the tools namespace: ${setup.error?.name}: ${setup.error?.message}`);
      }
    }
    return session;
  }

  private async restore(request: CellRequest, cells: CodeCell[]): Promise<{ live: LiveSession; report: RestoreReport }> {
    const started = performance.now();
    const session = await this.openSession(request);
    const live: LiveSession = { session, applied: [] };
    const failures: string[] = [];
    for (const [index, cell] of cells.entries()) {
      const replayed = await session.run(threadCode(cell.code, cell.language), this.runOptions(request, [], cell.toolCalls));
      live.applied.push(cell.id);
      if (replayed.status !== "success") {
        const error = replayed.error ? `${replayed.error.name}: ${replayed.error.message}` : replayed.status;
        failures.push(`cell ${index + 1} of ${cells.length} (${firstLine(cell.code)}) failed on replay with ${error}`);
        if (session.disposed || replayed.status === "timeout" || replayed.status === "memory_limit") break;
      }
    }
    return { live, report: { replayed: cells.length, durationMs: performance.now() - started, failures } };
  }

  private async runInThread(key: string, request: CellRequest, notes: string[]): Promise<CellOutcome> {
    const cells = request.cells.filter((c) => c.language === request.language);
    const ids = cells.map((c) => c.id);
    let live = this.cache.get(key);
    let restore: RestoreReport | undefined;
    if (!live || live.session.disposed || !sameIds(live.applied, ids)) {
      if (live) await this.cache.drop(key);
      const restored = await this.restore(request, cells);
      live = restored.live;
      if (cells.length > 0) restore = restored.report;
      await this.cache.set(key, live);
    }
    const toolCalls: RecordedToolCall[] = [];
    const result = await live.session.run(threadCode(request.code, request.language), this.runOptions(request, toolCalls));
    let cell: CodeCell | undefined;
    if (result.status === "success") {
      cell = { id: randomUUID(), language: request.language, code: request.code, toolCalls };
      live.applied.push(cell.id);
    } else if (result.status === "timeout" || result.status === "memory_limit" || live.session.disposed) {
      // The engine ended the session: the next call rebuilds it from the log.
      await this.cache.drop(key);
    }
    const outcome: CellOutcome = { result, files: diffFiles(request.files, result.files, this.options.caps), toolCalls, notes };
    if (cell) outcome.cell = cell;
    if (restore) outcome.restore = restore;
    return outcome;
  }

  /** Disposes every live session of this runner. */
  async dispose(): Promise<void> {
    await this.cache.clear();
  }
}

/** The code a thread's session runs: JavaScript/TypeScript top-level bindings kept on the global object. */
function threadCode(code: string, language: Language): string {
  return language === "python" ? code : persistTopLevel(code, language);
}

function sameIds(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

function firstLine(code: string): string {
  const line = code.split("\n").find((l) => l.trim() !== "") ?? "";
  return line.length > 60 ? `${line.slice(0, 57)}...` : line.trim();
}
