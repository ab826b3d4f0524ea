/**
 * Runs one cell of code mode: tools callable from code, the thread's files in and out, and with
 * `persistence: "thread"` the thread's earlier cells restored, exactly.
 *
 * A thread's code state is a function of its log (`codeCells`): a live session is used only
 * when the cells it has run are exactly the log's cells of that language; otherwise a fresh
 * session replays the log, giving each cell what it had the first time (its host calls' answers
 * in their order, its seed and clock readings, the files it saw, its limits). A cell becomes
 * part of the log when it ended by itself (`success`, `runtime_error`); a cell stopped from
 * outside (a limit, a cancellation, a crash) is rolled back: its live session is dropped and
 * the next call rebuilds one from the log. Syntax errors and forbidden imports run nothing.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { RunnableConfig } from "@langchain/core/runnables";
import { InvalidOptionError, SandboxSessionEndedError } from "../../errors.js";
import { getSharedSandbox } from "../../sandbox/run-code.js";
import {
  DEFAULT_MAX_HOST_CALLS,
  DEFAULT_MAX_HOST_CALLS_IN_FLIGHT,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_MEMORY_LIMIT_BYTES,
  DEFAULT_TIMEOUT_MS,
  MAX_HOST_CALLS_IN_FLIGHT,
  MAX_OUTPUT_CAP_BYTES,
  MAX_TIMEOUT_MS,
} from "../../sandbox/options.js";
import type { ExecutionResult, HostFunction, JsonValue, Language, RunOptions, Sandbox, SandboxSession } from "../../sandbox/types.js";
import { persistTopLevel } from "./persist-declarations.js";
import { cellsOf, compactRan, decodeClock, encodeClock, expandRan, type CellLimitsRan, type CodeCell, type RecordedHostCall } from "./cell-log.js";
import { diffFiles, enginePath, fileBytes, threadPath, toThreadFile, type FileCaps, type FilesChange } from "../thread/files.js";
import { HostCallRecorder, HostCallReplayer, type RecordCaps } from "./host-call-log.js";
import { SessionCache, type LiveSession } from "./session-cache.js";
import { runWithTools, toolHostFunctions, toolsSetupCode, type CodeModeTool, type RecordedToolCall } from "../tools/tool-bridge.js";
import { capsForRun, type ToolResultCaps } from "../tools/tool-results.js";
import { codeDepth } from "../tools/graph-task.js";
import { ThreadSnapshots, type FoundSnapshot, type SnapshotOptions } from "./snapshots.js";
import { sameBytes } from "../../common/bytes.js";
import { BoundedMap } from "../../common/bounded-map.js";

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
  record: RecordCaps;
  /** Live sessions kept in this process. */
  maxSessions: number;
  /** Caps on tool results as the guest receives them (default: code mode's). */
  toolCaps?: ToolResultCaps;
  /**
   * Snapshots of sessions (every language) every few cells, kept outside the checkpoint,
   * so that a restore replays only the cells after the latest one (docs/code-mode.md, "Snapshots").
   */
  snapshots?: SnapshotOptions;
}

/** One cell to run. */
export interface CellRequest {
  code: string;
  language: Language;
  persistence: Persistence;
  /** The LangGraph thread (and namespace); without one, the cell runs one-shot. */
  threadId?: string;
  /** The code tool's own config (callbacks, signal) for tool calls. */
  config?: RunnableConfig;
  /** The tools of this call (every name of the runner's `tools`), when they are resolved per call. */
  tools?: Map<string, CodeModeTool>;
  /** The thread's replay log, all languages, in order. */
  cells: CodeCell[];
  /** The thread's files as the cell sees them (thread path → bytes). */
  files: ReadonlyMap<string, Uint8Array>;
}

/** How a restore went. */
export interface RestoreReport {
  /** Cells replayed into a fresh session (after the snapshot, when one was used). */
  replayed: number;
  /** Cells restored from a snapshot rather than replayed. */
  fromSnapshot?: number;
  /** Why a snapshot that was found was not used (the log was replayed instead). */
  snapshotRefused?: string;
  durationMs: number;
  /** Cells that did not replay as they first ran: what they did may be missing or different. */
  failures: string[];
}

/** What a cell did. */
export interface CellOutcome {
  result: ExecutionResult;
  /** The log entry to append (cells that became part of the thread). */
  cell?: CodeCell;
  files: FilesChange;
  toolCalls: ArtifactToolCall[];
  restore?: RestoreReport;
  /** Set when the cell left the thread as it was before it (why). */
  rolledBack?: string;
  /** Why state was not kept, when it was asked for and could not be. */
  notes: string[];
}

/** Statuses a cell ends with by its own doing: it becomes part of the thread. */
const KEPT = new Set(["success", "runtime_error"]);
/** Statuses of a cell that ran nothing. */
const RAN_NOTHING = new Set(["syntax_error", "forbidden"]);
/** Errors of an engine (not of the program): the cell is rolled back. */
const ENGINE_FAULTS = new Set(["EngineCrash", "InterpreterError", "SandboxViolation", "InternalError"]);
/** Restarts of a replay whose session ended, before the rest of the log is given up. */
const MAX_REPLAY_RESTARTS = 2;
/** Engine caps of the files of one run: above the thread's caps, so an oversized file is refused by code mode with a message rather than ending the run. */
const ENGINE_FILE_SLACK = 2;

/** The replay budget of a cell: its own limit, twice, plus a second (never the caller's current limit). */
export function replayTimeoutMs(ran: CellLimitsRan | undefined, fallbackMs: number): number {
  const timeoutMs = within(ran?.timeoutMs, 1, MAX_TIMEOUT_MS) ?? fallbackMs;
  const durationMs = within(ran?.durationMs, 0, MAX_TIMEOUT_MS) ?? 0;
  return Math.min(MAX_TIMEOUT_MS, 2 * Math.max(timeoutMs, durationMs) + 1000);
}

/** `value` when it is a number in [min, max], else undefined (a log edited by hand may hold anything). */
function within(value: unknown, min: number, max: number): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= min && value <= max ? value : undefined;
}

/** A whole number in [1, max] from a log entry, else `fallback`. */
function loggedLimit(value: unknown, max: number, fallback: number): number {
  const v = within(value, 1, max);
  return v !== undefined && Number.isInteger(v) ? v : fallback;
}

/** Runs cells and keeps the live sessions of threads. */
export class CodeModeRunner {
  private readonly cache: SessionCache;
  private readonly snapshots: ThreadSnapshots | undefined;

  constructor(private readonly options: CodeModeRunnerOptions) {
    this.cache = new SessionCache(options.maxSessions);
    this.snapshots = options.snapshots === undefined ? undefined : new ThreadSnapshots(options.snapshots);
  }

  /** Live sessions held now. */
  get liveSessions(): number {
    return this.cache.size;
  }

  private sandbox(): Pick<Sandbox, "run" | "createSession"> {
    return this.options.sandbox ?? getSharedSandbox();
  }

  /** The limits a new cell runs under (the sandbox's defaults filled in, so the log can say). */
  private limitsNow(): Omit<CellLimitsRan, "durationMs"> {
    const l = this.options.limits;
    return {
      timeoutMs: l.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      memoryLimitBytes: l.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES,
      maxOutputBytes: l.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      maxHostCalls: l.maxHostCalls ?? DEFAULT_MAX_HOST_CALLS,
      maxHostCallsInFlight: l.maxHostCallsInFlight ?? DEFAULT_MAX_HOST_CALLS_IN_FLIGHT,
      maxResultBytes: l.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
    };
  }

  private fileOptions(): Pick<RunOptions, "maxFileBytes" | "maxTotalFileBytes" | "filesAtRoot"> {
    const caps = this.options.caps;
    return {
      maxFileBytes: Math.max(8 * 1024 * 1024, ENGINE_FILE_SLACK * caps.maxFileBytes),
      maxTotalFileBytes: Math.max(32 * 1024 * 1024, ENGINE_FILE_SLACK * caps.maxThreadFilesBytes),
      filesAtRoot: true,
    };
  }

  /**
   * Host functions of a new cell: the plain ones and the tools. What the cell's calls returned
   * is recorded by the cell's `HostCallRecorder` (capped, and only what the guest received);
   * the tool bridge's own record is not kept, so that a value the guest never received is held
   * nowhere.
   */
  private liveHostFunctions(request: CellRequest): Record<string, HostFunction> {
    const discard = Object.assign([] as RecordedToolCall[], { push: () => 0 });
    return {
      ...this.options.hostFunctions,
      ...toolHostFunctions(request.tools ?? this.options.tools, {
        config: request.config,
        record: discard,
        caps: capsForRun(this.options.toolCaps, request.language, this.options.limits.maxResultBytes),
      }),
    };
  }

  /**
   * Starts ahead the engine (a worker, a Python process) of each session the next call on
   * `threadId` would have to restore: one per language of `cells` whose live session here is not
   * at exactly these cells. It only saves the call the engine's start (the call still restores,
   * and reports, as without it); a failed start is the call's to meet. The sandbox holds at most
   * one such engine per language and disposes it.
   */
  prestart(threadId: string, cells: readonly CodeCell[]): void {
    const sandbox = this.sandbox() as Pick<Sandbox, "run" | "createSession" | "prestartSession">;
    if (typeof sandbox.prestartSession !== "function") return;
    for (const language of new Set(cells.map((c) => c.language))) {
      const live = this.cache.peek(`${threadId}\u0000${language}`);
      if (live && !live.session.disposed && sameIds(live.applied, cellsOf(cells, language).map(cellSignature))) continue;
      sandbox.prestartSession(language).catch(() => undefined);
    }
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
    const key = `${request.threadId}\u0000${request.language}`;
    return this.cache.use(key, async () => {
      try {
        return await this.runInThread(key, request, notes);
      } catch (error) {
        if (!(error instanceof SandboxSessionEndedError)) throw error;
        // The live session ended under us (killed after an earlier call): rebuild it from the log.
        await this.cache.drop(key);
        return this.runInThread(key, request, notes);
      }
    });
  }

  private async runOnce(request: CellRequest): Promise<Omit<CellOutcome, "notes">> {
    const recorder = new HostCallRecorder(this.options.record);
    const options = {
      ...this.options.limits,
      ...this.fileOptions(),
      files: toEngineFiles(request.files),
      hostFunctions: recorder.wrap(this.liveHostFunctions(request)),
      ...(request.config?.signal ? { signal: request.config.signal } : {}),
      language: request.language,
    };
    const result = await runWithTools(await this.oneShotRunner(request), request.code, [...(request.tools ?? this.options.tools).keys()], options);
    const toolCalls = toolCallsOf(recorder.close());
    return { result, files: diffFiles(request.files, result.files, this.options.caps), toolCalls };
  }

  /**
   * Where a one-shot cell runs: the sandbox's pool, except for code called from a tool that code
   * called (a subagent's cell): the calling cell holds a pool worker while it waits, so the
   * nested one gets a session (its own worker or process) that ends with it, and a pool of any
   * size never waits on itself.
   */
  private async oneShotRunner(request: CellRequest): Promise<Pick<Sandbox, "run">> {
    const sandbox = this.sandbox();
    if (codeDepth(request.config) === 0) return sandbox;
    return {
      run: async (code, options) => {
        const session = await sandbox.createSession({ language: request.language, memoryLimitBytes: this.options.limits.memoryLimitBytes });
        try {
          return await session.run(code, options);
        } finally {
          await session.dispose();
        }
      },
    };
  }

  private async openSession(language: Language, memoryLimitBytes: number): Promise<SandboxSession> {
    // With snapshots, a Python session keeps what its images are taken against from its start.
    return this.sandbox().createSession({ language, memoryLimitBytes, ...(this.snapshots ? { snapshottable: true } : {}) });
  }

  private async runInThread(key: string, request: CellRequest, notes: string[]): Promise<CellOutcome> {
    const cells = cellsOf(request.cells, request.language);
    const ids = cells.map(cellSignature);
    let live = this.cache.get(key);
    let restore: RestoreReport | undefined;
    if (!live || live.session.disposed || !sameIds(live.applied, ids)) {
      if (live) await this.cache.drop(key);
      const restored = await this.restore(request.language, cells);
      live = restored.live;
      if (cells.length > 0) restore = restored.report;
      await this.cache.set(key, live);
    }
    const recorder = new HostCallRecorder(this.options.record);
    const hostFunctions = this.liveHostFunctions(request);
    const env = { hostFunctions: Object.keys(hostFunctions).sort(), globals: (this.options.limits.globals ?? {}) as Record<string, JsonValue> };
    const engineFiles = toEngineFiles(request.files);
    const seed = randomBytes(16).toString("hex");
    const limits = this.limitsNow();
    const result = await runCell(live.session, request.code, request.language, {
      ...limits,
      globals: env.globals,
      ...this.fileOptions(),
      files: engineFiles,
      inputs: { seed },
      hostFunctions: recorder.wrap(hostFunctions),
      ...(request.config?.signal ? { signal: request.config.signal } : {}),
    });
    const hostCalls = recorder.close();
    const none: FilesChange = { written: new Map(), deleted: [], refused: [] };
    const outcome: CellOutcome = { result, files: none, toolCalls: toolCallsOf(hostCalls), notes };
    if (restore) outcome.restore = restore;
    if (RAN_NOTHING.has(result.status)) return outcome;
    const stoppedBy = await rollbackReason(live.session, result);
    if (stoppedBy !== undefined || result.clockReads === undefined) {
      // Stopped at a point nothing records: the thread stays as it was before this cell.
      outcome.rolledBack = stoppedBy ?? "the engine did not report the cell's clock readings";
      await this.cache.drop(key);
      return outcome;
    }
    const last = cells.at(-1);
    const cell: CodeCell = {
      id: randomUUID(),
      language: request.language,
      code: request.code,
      after: request.cells.at(-1)?.id ?? null,
      status: result.status,
      hostCalls,
      seed,
      clock: encodeClock(result.clockReads),
      ran: compactRan({ durationMs: Math.round(result.durationMs), ...limits }),
    };
    const envChange = changedEnv(last === undefined ? undefined : live.env, env);
    if (envChange) cell.env = envChange;
    const filesIn = filesDelta(live.files, engineFiles);
    if (filesIn) cell.filesIn = filesIn;
    live.applied.push(cellSignature(cell));
    live.files = result.files ?? engineFiles;
    live.env = env;
    if (this.snapshots?.due(live.applied.length)) await this.saveSnapshot(live, [...cells, cell]);
    outcome.cell = cell;
    outcome.files = diffFiles(request.files, result.files, this.options.caps);
    return outcome;
  }

  /**
   * A fresh session with `cells` replayed into it, and how that went. Where the session can
   * (JavaScript/TypeScript), runs of cells go to the engine in one message each (see
   * `replayBatch`); each cell is still given, and judged by, exactly what it had when it ran.
   */
  private async restore(language: Language, cells: CodeCell[]): Promise<{ live: LiveSession; report: RestoreReport }> {
    const started = performance.now();
    // The runner's own limit, whatever the log says: a log (which `updateState` may have
    // written) never raises it, and the cells that come after the replay run in this session
    // under the runner's limit. A cell that needs more than it now has ends `memory_limit` on
    // replay and is reported like any cell that did not replay as it ran.
    const memoryLimitBytes = this.limitsNow().memoryLimitBytes;
    const failures: string[] = [];
    const skipped = new Set<number>();
    const open = async (): Promise<LiveSession> => ({
      session: await this.openSession(language, memoryLimitBytes),
      applied: [],
      files: {},
      env: { hostFunctions: [], globals: {} },
    });
    // A snapshot of the log's first cells, looked up while the session's worker starts (most of
    // a restore in a fresh process), as the host prepares the programs of the cells after it.
    const snapshots = this.snapshotsFor(language);
    const lookup = snapshots && cells.length >= snapshots.every ? snapshots.find(language, cells).catch(() => undefined) : undefined;
    const prepared = (async () => {
      const found = await lookup;
      await prepareAhead(cells.slice(found?.position ?? 0));
      return found;
    })();
    let [live, found] = await Promise.all([open(), prepared]);
    let restarts = 0;
    let i = 0;
    let fromSnapshot: number | undefined;
    let snapshotRefused: string | undefined;
    if (found) {
      snapshotRefused = await this.applySnapshot(live, found, cells);
      if (snapshotRefused === undefined) i = fromSnapshot = found.position;
      else if (live.session.disposed || !(await sessionAlive(live.session))) {
        await live.session.dispose().catch(() => undefined);
        live = await open();
      }
    }
    replay: while (i < cells.length) {
      if (skipped.has(i)) {
        live.applied.push(cellSignature(cells[i]!));
        i++;
        continue;
      }
      // A batch ends where a snapshot is due, so that a thread restored by replay gets one there.
      const snapshotAt = snapshots ? i - (i % snapshots.every) + snapshots.every : cells.length;
      const batch = batchFrom(cells, i, skipped, snapshotAt);
      const outcomes = await this.replayBatch(live, batch);
      for (const [k, failure] of outcomes.entries()) {
        const cell = cells[i]!;
        live.applied.push(cellSignature(cell));
        if (failure === undefined) {
          i++;
          if (i === snapshotAt && failures.length === 0 && skipped.size === 0 && snapshots?.due(i) && i > (fromSnapshot ?? 0)) await this.saveSnapshot(live, cells.slice(0, i));
          continue;
        }
        // Only the last cell of a batch can have ended its session (the engine went on after the others).
        if (k < outcomes.length - 1 || (!live.session.disposed && (await sessionAlive(live.session)))) {
          failures.push(`cell ${i + 1} of ${cells.length} (${firstLine(cell.code)}) ${failure}`);
          i++;
          continue;
        }
        // The replay ended its session: start again without this cell (and give up after a few).
        skipped.add(i);
        failures.push(`cell ${i + 1} of ${cells.length} (${firstLine(cell.code)}) ${failure}; it was left out`);
        await live.session.dispose().catch(() => undefined);
        live = await open();
        // Replayed from the start: what a snapshot stood for is replayed too.
        fromSnapshot = undefined;
        if (++restarts > MAX_REPLAY_RESTARTS) {
          failures.push(`the cells after cell ${i + 1} were not replayed (the replay had to restart ${restarts} times)`);
          live.applied = cells.map(cellSignature);
          break replay;
        }
        i = 0;
        continue replay;
      }
    }
    const report: RestoreReport = { replayed: cells.length - (fromSnapshot ?? 0), durationMs: performance.now() - started, failures };
    if (fromSnapshot !== undefined) report.fromSnapshot = fromSnapshot;
    if (snapshotRefused !== undefined) report.snapshotRefused = snapshotRefused;
    return { live, report };
  }

  /** The snapshots of `language`'s sessions, if any (every engine's sessions take them). */
  private snapshotsFor(_language: Language): ThreadSnapshots | undefined {
    return this.snapshots;
  }

  /**
   * Puts `found` into the fresh session `live`: undefined when done (the session then stands
   * where the log's first `found.position` cells leave it), else why not.
   */
  private async applySnapshot(live: LiveSession, found: FoundSnapshot, cells: CodeCell[]): Promise<string | undefined> {
    const session = live.session;
    if (!session.restoreSnapshot) return "this engine cannot restore snapshots";
    let refused: string | undefined;
    try {
      refused = await session.restoreSnapshot(found.snapshot);
    } catch (error) {
      if (!(error instanceof SandboxSessionEndedError)) throw error;
      refused = "its session ended while restoring it";
    }
    if (refused !== undefined) return refused;
    const prefix = cells.slice(0, found.position);
    live.applied = prefix.map(cellSignature);
    live.files = found.files;
    live.env = prefix.reduce((env, cell) => envOf(env, cell), live.env);
    return undefined;
  }

  /**
   * Keeps a snapshot of `live`, whose session stands after `cells` (one language's log). A
   * snapshot only saves time: when it cannot be taken or kept, the log still holds the thread.
   */
  private async saveSnapshot(live: LiveSession, cells: CodeCell[]): Promise<void> {
    const session = live.session;
    const snapshots = this.snapshotsFor(session.language);
    if (!snapshots || !session.snapshot) return;
    try {
      const taken = await session.snapshot();
      if (typeof taken !== "string") await snapshots.save(session.language, cells, taken, live.files);
    } catch {
      // The store or the engine refused: the next restore replays these cells.
    }
  }

  /**
   * Replays `batch` (consecutive cells) into `live`: for cells in order, a text saying how each
   * differed, or undefined when it ran as it first did. The session survived every failure but
   * the last entry's; the list is shorter than `batch` only when its last entry is a failure.
   * With a session that has `runSequence` (JavaScript/TypeScript), the batch is one exchange
   * with the engine; each cell after the first then gets the files the cell before it ended
   * with, which is what it saw (`batchFrom` ends a batch before a cell that saw other files).
   */
  private async replayBatch(live: LiveSession, batch: CodeCell[]): Promise<(string | undefined)[]> {
    const session = live.session;
    if (batch.length > 1 && session.runSequence && session.language !== "python") {
      const plans: ReplayPlan[] = [];
      for (const [k, cell] of batch.entries()) plans.push(this.replayPlan(plans.at(-1)?.env ?? live.env, cell, k === 0 ? applyFilesIn(live.files, cell.filesIn) : undefined));
      let results: ExecutionResult[] | undefined;
      try {
        results = await session.runSequence(plans.map((p) => ({ code: p.code, options: p.options, ...(p.files === undefined ? { carryFiles: true } : {}) })));
      } catch (error) {
        // A log entry the sandbox refuses, or a session that had ended: cell by cell below, which says which cell and why.
        if (!(error instanceof InvalidOptionError || error instanceof SandboxSessionEndedError)) throw error;
      }
      if (results) {
        const out = results.map((result, k) => judgeReplay(live, plans[k]!, result));
        // The session ended after a cell that ran as it first did (an engine crash where the cell first threw): the next could not run.
        if (results.length < batch.length && out.at(-1) === undefined) out.push("could not run: its session had ended");
        return out;
      }
    }
    const out: (string | undefined)[] = [];
    for (const cell of batch) {
      const failure = await this.replayCell(live, cell);
      out.push(failure);
      if (failure !== undefined) break;
    }
    return out;
  }

  /** How `cell` is replayed after a cell whose environment was `before`; `files` undefined: the files the cell before it ended with. */
  private replayPlan(before: LiveSession["env"], cell: CodeCell, files: Record<string, Uint8Array> | undefined): ReplayPlan {
    const env = envOf(before, cell);
    const recording = cell.hostCalls ?? legacyCalls(cell);
    const replayer = new HostCallReplayer(recording);
    const ran = expandRan(cell.ran);
    const clockReads = cell.seed !== undefined ? decodeClock(cell.clock) : undefined;
    const hostFunctions = replayer.functions(env.hostFunctions);
    const now = this.limitsNow();
    return {
      cell,
      env,
      replayer,
      ...(files !== undefined ? { files } : {}),
      code: cellProgram(cell.code, cell.language, hostFunctions),
      options: {
        // Each limit is the smaller of the logged one and the runner's: what the log claims
        // (it may have been written through `updateState`) never buys a cell more than this
        // runner gives a new cell (time gets the same replay slack on both sides).
        timeoutMs: Math.min(replayTimeoutMs(ran, now.timeoutMs), replayTimeoutMs(undefined, now.timeoutMs)),
        maxOutputBytes: Math.min(loggedLimit(ran?.maxOutputBytes, MAX_OUTPUT_CAP_BYTES, DEFAULT_MAX_OUTPUT_BYTES), now.maxOutputBytes),
        maxHostCalls: Math.min(loggedLimit(ran?.maxHostCalls, Number.MAX_SAFE_INTEGER, DEFAULT_MAX_HOST_CALLS), now.maxHostCalls),
        maxHostCallsInFlight: Math.min(loggedLimit(ran?.maxHostCallsInFlight, MAX_HOST_CALLS_IN_FLIGHT, DEFAULT_MAX_HOST_CALLS_IN_FLIGHT), now.maxHostCallsInFlight),
        maxResultBytes: Math.min(loggedLimit(ran?.maxResultBytes, MAX_OUTPUT_CAP_BYTES, DEFAULT_MAX_RESULT_BYTES), now.maxResultBytes),
        globals: env.globals,
        ...this.fileOptions(),
        ...(files !== undefined ? { files } : {}),
        hostFunctions,
        ...(cell.seed !== undefined ? { inputs: clockReads ? { seed: cell.seed, clockReads } : { seed: cell.seed } } : {}),
      },
    };
  }

  /** Replays one logged cell into `live`; a text saying how it differed, or undefined when it ran as it first did. */
  private async replayCell(live: LiveSession, cell: CodeCell): Promise<string | undefined> {
    const plan = this.replayPlan(live.env, cell, applyFilesIn(live.files, cell.filesIn));
    let result: ExecutionResult;
    try {
      result = await runCell(live.session, cell.code, cell.language, plan.options);
    } catch (error) {
      if (error instanceof SandboxSessionEndedError) return "could not run: its session had ended";
      // A log entry edited by hand (globals, host function names, seed) the sandbox refuses: reported, and the thread goes on.
      if (error instanceof InvalidOptionError) return `could not run: its log entry is not valid (${error.message.split("\n")[0]})`;
      throw error;
    } finally {
      live.env = plan.env;
    }
    return judgeReplay(live, plan, result);
  }

  /** Disposes every live session of this runner. */
  async dispose(): Promise<void> {
    await this.cache.clear();
  }
}

/** The environment (host functions, globals) `cell` ran with, after a cell that had `before`. */
function envOf(before: LiveSession["env"], cell: CodeCell): LiveSession["env"] {
  const env = { hostFunctions: cell.env?.hostFunctions ?? before.hostFunctions, globals: cell.env?.globals ?? before.globals };
  // A log of versions before 0.2 has no environment: it had the tools it called.
  if (!cell.hostCalls && cell.env === undefined) env.hostFunctions = [...new Set([...before.hostFunctions, ...legacyCalls(cell).map((c) => c.name)])].sort();
  return env;
}

/** How one logged cell is replayed (see `CodeModeRunner.replayPlan`). */
interface ReplayPlan {
  cell: CodeCell;
  /** The program the session runs: the cell's code as a thread runs it, with its `tools` line. */
  code: string;
  options: Omit<RunOptions, "language">;
  /** The environment the cell had (host functions, globals). */
  env: LiveSession["env"];
  /** The files the cell was given; undefined: those the cell before it ended with. */
  files?: Record<string, Uint8Array>;
  replayer: HostCallReplayer;
}

/** Records a replayed cell's result in `live`; a text saying how it differed, or undefined when it ran as it first did. */
function judgeReplay(live: LiveSession, plan: ReplayPlan, result: ExecutionResult): string | undefined {
  live.env = plan.env;
  live.files = result.files ?? plan.files ?? live.files;
  const expected = plan.cell.status ?? "success";
  if (plan.replayer.divergence) return `failed on replay: ${plan.replayer.divergence.message}`;
  if (result.status !== expected) {
    const error = result.error ? `${result.error.name}: ${result.error.message}` : result.status;
    return `ended ${result.status} on replay (it first ended ${expected}): ${error}`;
  }
  if (plan.replayer.unanswered > 0) return `made ${plan.replayer.unanswered} fewer host call(s) on replay than when it first ran`;
  return undefined;
}

/**
 * The cells from `start` that can be replayed in one exchange: up to a skipped cell, up to
 * (not including) a cell that was given other files than the cell before it ended with, and
 * up to `stopAt` (where a snapshot is due).
 */
function batchFrom(cells: CodeCell[], start: number, skipped: ReadonlySet<number>, stopAt: number): CodeCell[] {
  let end = start + 1;
  while (end < cells.length && end < stopAt && !skipped.has(end) && !cells[end]!.filesIn) end++;
  return cells.slice(start, end);
}

/** Why a cell that ran must be rolled back, or undefined when it ended by itself. */
async function rollbackReason(session: SandboxSession, result: ExecutionResult): Promise<string | undefined> {
  if (!KEPT.has(result.status)) return `it was stopped (${result.status}${result.error ? `: ${result.error.message}` : ""})`;
  if (result.error && ENGINE_FAULTS.has(result.error.name)) return `its engine failed (${result.error.name})`;
  // A program error may have cost the interpreter itself (a stack overflow of the engine): ask.
  if (session.disposed || (result.status === "runtime_error" && !(await sessionAlive(session)))) return "its session ended while it ran";
  return undefined;
}

/** Whether a session still serves calls (a killed engine answers with SandboxSessionEndedError). */
async function sessionAlive(session: SandboxSession): Promise<boolean> {
  try {
    await session.functionNames();
    return true;
  } catch {
    return false;
  }
}

const THREAD_CODE_CACHE_ENTRIES = 512;
const threadCodeCache = new BoundedMap<string, string>(THREAD_CODE_CACHE_ENTRIES);

/** The code a thread's session runs: JavaScript/TypeScript top-level bindings kept on the global object. */
function threadCode(code: string, language: Language): string {
  if (language === "python") return code;
  const key = `${language}\u0000${code}`;
  let out = threadCodeCache.get(key);
  if (out === undefined) {
    out = persistTopLevel(code, language);
    threadCodeCache.set(key, out);
  }
  return out;
}

/** The tools among a cell's host functions (`__tool_<name>`), by name. */
function toolNamesOf(hostFunctions: Record<string, HostFunction> | undefined): string[] {
  return Object.keys(hostFunctions ?? {})
    .filter((n) => n.startsWith("__tool_"))
    .map((n) => n.slice("__tool_".length));
}

/**
 * Fills the cache of `threadCode` for the first cells of a log, a few at a time so that what
 * the caller started meanwhile (a session's worker) goes on between them.
 */
async function prepareAhead(cells: CodeCell[]): Promise<void> {
  const ahead = cells.slice(0, THREAD_CODE_CACHE_ENTRIES);
  for (const [i, cell] of ahead.entries()) {
    if (i % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
    // A log may hold anything: what fails here fails again, and is reported, when the cell replays.
    if (cell.language === "javascript" || cell.language === "typescript") {
      try {
        threadCode(cell.code, cell.language);
      } catch {
        // reported at replay
      }
    }
  }
}

/** Runs a cell in a session with its `tools` namespace (set up on its first line: no extra run, no shifted lines). */
function runCell(session: SandboxSession, code: string, language: Language, options: Omit<RunOptions, "language">): Promise<ExecutionResult> {
  return runWithTools(session, threadCode(code, language), toolNamesOf(options.hostFunctions), { ...options, language });
}

/** The JavaScript/TypeScript program `runCell` runs for `code` (what a session's `runSequence` is given). */
function cellProgram(code: string, language: Language, hostFunctions: Record<string, HostFunction>): string {
  const toolNames = toolNamesOf(hostFunctions);
  const program = threadCode(code, language);
  return toolNames.length === 0 || language === "python" ? program : `${toolsSetupCode(toolNames, language)} ${program}`;
}

function toEngineFiles(files: ReadonlyMap<string, Uint8Array>): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  for (const path of [...files.keys()].sort()) out[enginePath(path)] = files.get(path)!;
  return out;
}


/** The files `now` differs from `before` by (thread paths → file data or null), or undefined when none. */
function filesDelta(before: Record<string, Uint8Array>, now: Record<string, Uint8Array>): CodeCell["filesIn"] | undefined {
  const delta: NonNullable<CodeCell["filesIn"]> = {};
  for (const path of Object.keys(before)) if (!(path in now)) delta[threadPath(path)] = null;
  for (const [path, bytes] of Object.entries(now)) {
    const old = before[path];
    if (!old || !sameBytes(old, bytes)) delta[threadPath(path)] = toThreadFile(threadPath(path), bytes, undefined, "");
  }
  return Object.keys(delta).length > 0 ? delta : undefined;
}

/** The files a replayed cell saw: those after the cell before it, with its `filesIn` applied. */
function applyFilesIn(before: Record<string, Uint8Array>, filesIn: CodeCell["filesIn"]): Record<string, Uint8Array> {
  if (!filesIn) return before;
  const out = { ...before };
  for (const [path, file] of Object.entries(filesIn)) {
    if (file === null) delete out[enginePath(path)];
    else {
      const bytes = fileBytes(file);
      if (bytes) out[enginePath(path)] = bytes;
    }
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The environment of a cell when it differs from the one before it (always for the first). */
function changedEnv(before: LiveSession["env"] | undefined, now: LiveSession["env"]): CodeCell["env"] | undefined {
  const out: NonNullable<CodeCell["env"]> = {};
  if (!before || JSON.stringify(before.hostFunctions) !== JSON.stringify(now.hostFunctions)) out.hostFunctions = now.hostFunctions;
  if (!before ? Object.keys(now.globals).length > 0 : JSON.stringify(before.globals) !== JSON.stringify(now.globals)) out.globals = now.globals;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Bytes of a tool's input or output the artifact shows in full; a larger one is in the thread's log only. */
export const ARTIFACT_OUTPUT_BYTES = 4096;

/** A tool call as the artifact shows it: what the guest received (a large input or output by its size only). */
export type ArtifactToolCall = RecordedToolCall & { inputBytes?: number; outputBytes?: number };

/** The tool calls of a recording, as the artifact shows them. */
function toolCallsOf(calls: readonly RecordedHostCall[]): ArtifactToolCall[] {
  return calls
    .filter((c) => c.name.startsWith("__tool_"))
    .map((c) => {
      const bytes = c.value === undefined ? 0 : Buffer.byteLength(JSON.stringify(c.value));
      const input = c.argsSha256 === undefined ? (c.args[0] ?? {}) : null;
      // A tool's host function takes one argument, its input: the arguments' JSON is "[" + input + "]".
      const inputBytes = c.argsSha256 === undefined ? Buffer.byteLength(JSON.stringify(input)) : (c.argsBytes ?? ARTIFACT_OUTPUT_BYTES + 3) - 2;
      return {
        name: c.name.slice("__tool_".length),
        input: inputBytes <= ARTIFACT_OUTPUT_BYTES ? input : null,
        ...(inputBytes > ARTIFACT_OUTPUT_BYTES ? { inputBytes } : {}),
        ...(c.value !== undefined && bytes <= ARTIFACT_OUTPUT_BYTES ? { output: c.value } : {}),
        ...(bytes > ARTIFACT_OUTPUT_BYTES ? { outputBytes: bytes } : {}),
        ...(c.error ? { error: c.error } : {}),
      };
    });
}

/** The recording of a cell logged by a version before 0.2 (tool calls in the order they were made). */
function legacyCalls(cell: CodeCell): RecordedHostCall[] {
  return (cell.toolCalls ?? []).map((c, i) => ({
    name: `__tool_${c.name}`,
    args: [c.input],
    ...(c.output !== undefined ? { value: c.output } : {}),
    ...(c.error ? { error: c.error } : {}),
    order: i,
  }));
}

/**
 * What a live session knows a cell by: its id and what it ran (code, seed, clock, status, env,
 * names of globals, number of host calls, paths it saw), so that a log edited by hand under the same ids (an
 * `updateState` with an `Overwrite`) is replayed, as a fresh process would, rather than answered
 * by a session that ran something else. Recorded values and the values of globals are not compared (they can be megabytes).
 */
function cellSignature(cell: CodeCell): string {
  // Object keys sorted: a checkpointer may store JSON with its keys in another order (PostgreSQL's jsonb).
  const env = cell.env ? [cell.env.hostFunctions ?? null, cell.env.globals ? Object.keys(cell.env.globals).sort() : null] : null;
  return JSON.stringify([cell.id, cell.language, cell.code, cell.seed ?? null, cell.clock ?? null, cell.status ?? null, env, cell.hostCalls?.length ?? null, Object.keys(cell.filesIn ?? {}).sort()]);
}

function sameIds(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

function firstLine(code: string): string {
  const line = code.split("\n").find((l) => l.trim() !== "") ?? "";
  return line.length > 60 ? `${line.slice(0, 57)}...` : line.trim();
}
