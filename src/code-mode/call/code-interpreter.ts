/**
 * `execute_code`'s code interpreter: everything one call does, for the LangChain tool
 * (`tools/code-interpreter-tool.ts`) to wrap. A call reads the thread's state and files, waits
 * its turn among the code calls of its AI message, runs the cell (`CodeModeRunner`) and returns
 * bounded text and an artifact, or with `persistence: "thread"` the `Command` that updates the
 * thread's state (see docs/code-mode.md).
 */
import type { ToolRuntime } from "@langchain/core/tools";
import type { Command } from "@langchain/langgraph";
import { InvalidOptionError } from "../../errors.js";
import type { Sandbox } from "../../sandbox/types.js";
import { resolveHostFunctions, resolveLanguages, serializeGlobals } from "../../sandbox/options.js";
import { checkOptions } from "../../options/index.js";
import { DEFAULT_MAX_CONTENT_CHARS } from "../../feedback/truncate.js";
import { DEFAULT_MAX_THREAD_FILE_BYTES, DEFAULT_MAX_THREAD_FILES, DEFAULT_MAX_THREAD_FILES_BYTES, filesFromOption, type FileCaps } from "../thread/files.js";
import { backendFileSource, boundedNotes, stateFileSource, type FileSource } from "../thread/file-sources.js";
import { putContentsBack } from "../thread/file-contents.js";
import { ContentCache } from "../thread/content-cache.js";
import { storedContents } from "../thread/stored-contents.js";
import { applyUpdate, changeAsUpdate } from "../thread/file-changes.js";
import type { CodeCell, CodeModeState } from "../thread/state.js";
import { contentsGoToStore } from "../thread/content-by-digest.js";
import { DEFAULT_MAX_CELL_RECORD_BYTES, DEFAULT_MAX_HOST_RESULT_BYTES } from "../replay/host-call-log.js";
import { CodeModeRunner, type CellLimits, type Persistence } from "../replay/runner.js";
import type { CodeModeTool } from "../tools/tool-types.js";
import { parseToolSpecs, type ToolSpecs } from "../tools/tool-resolution.js";
import { codeModeToolSignatures, describeCodeInterpreter, quickSignatures } from "./describe.js";
import { StepOrder, type StepContribution } from "./step-order.js";
import { executeCodeSchemaFor, type ExecuteCodeInput } from "./input-schema.js";
import { imagesModeFor } from "./images.js";
import { CODE_INTERPRETER_OPTION_RULES, type CodeInterpreterToolOptions } from "./options.js";
import { codeThreadOf, graphStoreOf, messageOrder, readState } from "./call-place.js";
import { artifactOf, writtenFiles, type ExecuteCodeArtifact } from "./artifact.js";
import { toolMessageContent, type ToolMessageContent } from "./tool-message.js";
import { threadCommand } from "./state-update.js";

/** How the middleware gives the code tool the agent's tools, resolved per call. */
export interface CodeToolWiring {
  specs: ToolSpecs;
  /** The tools of the call `runtime` belongs to (by name, every name of `specs`). */
  resolveTools?: (runtime: Partial<ToolRuntime> | undefined) => Map<string, CodeModeTool>;
  /** Whether the call may keep contents in the graph's store when `fileContents` is unset (default: yes). */
  storeAllowed?: (runtime: Partial<ToolRuntime> | undefined, state: CodeModeState) => boolean;
  /** The LangChain profile of the model that wrote the call `runtime` belongs to, when known (chooses the default `images`). */
  modelProfile?: (runtime: Partial<ToolRuntime> | undefined) => { imageToolMessage?: boolean } | undefined;
}


/**
 * One `execute_code` tool's calls, and what a LangChain tool made of it shows: its name, its
 * description (and the better one once the signatures of its tools are generated), its schema.
 */
export interface CodeInterpreter {
  name: string;
  description: string;
  schema: ReturnType<typeof executeCodeSchemaFor>;
  persistence: Persistence;
  /** The description with the generated TypeScript signatures of its tools, when it will have one. */
  fullDescription?: Promise<string>;
  /** The sessions of its threads (the tool made of it disposes them). */
  runner: CodeModeRunner;
  /** A call with `persistence: "thread"`: the `Command` that updates the thread. */
  callInThread(input: ExecuteCodeInput, runtime?: ToolRuntime): Promise<Command>;
  /** A call with `persistence: "none"`: the message content and the artifact. */
  callOnce(input: ExecuteCodeInput, runtime?: ToolRuntime): Promise<[ToolMessageContent, ExecuteCodeArtifact]>;
}

/**
 * Checks `createCodeInterpreterTool`'s options and makes its interpreter. Throws
 * `InvalidOptionError` naming the option for a bad one.
 */
export function codeInterpreterFromOptions(given: CodeInterpreterToolOptions = {}): CodeInterpreter {
  const options = checkOptions<CodeInterpreterToolOptions>(given, CODE_INTERPRETER_OPTION_RULES, "createCodeInterpreterTool");
  return createCodeInterpreter(options, { specs: parseToolSpecs(options.tools, "tools", options.name ?? "execute_code", false) });
}

/**
 * The interpreter of options already checked, its tools given as checked specs (the
 * middleware's way in).
 */
export function createCodeInterpreter(options: Omit<CodeInterpreterToolOptions, "tools">, wiring: CodeToolWiring): CodeInterpreter {
  const languages = resolveLanguages(options.languages);
  // Globals and host functions are checked now, for every language the model may use.
  for (const language of languages) {
    serializeGlobals(options.globals, language);
    resolveHostFunctions(options.hostFunctions, language, Object.keys(options.globals ?? {}));
  }
  const persistence = options.persistence ?? "none";
  const contentsInStore = options.fileContents === "store";
  if (contentsInStore && persistence !== "thread") {
    throw new InvalidOptionError("fileContents", "store", 'persistence: "thread" (contents go to the store only for a thread\'s files), or leave fileContents out');
  }
  const tools = new Map<string, CodeModeTool>(wiring.specs.instances);
  // Names resolve per call; until then each answers that it is not available.
  if (wiring.resolveTools) for (const [name, t] of wiring.resolveTools(undefined)) tools.set(name, t);
  if (options.sandbox && typeof options.sandbox.createSession !== "function" && persistence === "thread") {
    throw new InvalidOptionError("sandbox", options.sandbox, 'a sandbox with createSession (persistence "thread" keeps a session per thread)');
  }
  const callerFiles = filesFromOption(options.files);
  const maxContentChars = options.maxContentChars ?? DEFAULT_MAX_CONTENT_CHARS;
  const limits: CellLimits = {};
  for (const key of ["timeoutMs", "memoryLimitBytes", "maxOutputBytes", "maxHostCalls", "maxHostCallsInFlight", "globals"] as const) {
    if (options[key] !== undefined) (limits as Record<string, unknown>)[key] = options[key];
  }
  const caps: FileCaps = {
    maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_THREAD_FILE_BYTES,
    maxThreadFilesBytes: options.maxThreadFilesBytes ?? DEFAULT_MAX_THREAD_FILES_BYTES,
    maxThreadFiles: options.maxThreadFiles ?? DEFAULT_MAX_THREAD_FILES,
  };
  // Contents read from or written to the graph's store (fileContents: "store"), kept for the
  // next calls: a thread's files once over (UTF-16), in the process that runs the tool.
  const contentCache = new ContentCache(2 * caps.maxThreadFilesBytes);
  const maxHostResultBytes = options.maxHostResultBytes ?? DEFAULT_MAX_HOST_RESULT_BYTES;
  // The guest must receive every value that is recorded: the engine's own cap is never the smaller.
  limits.maxResultBytes = Math.max(maxHostResultBytes, 1024 * 1024);
  const runner = new CodeModeRunner({
    tools,
    hostFunctions: options.hostFunctions ?? {},
    sandbox: options.sandbox,
    limits,
    caps,
    record: { maxHostResultBytes, maxCellRecordBytes: options.maxCellRecordBytes ?? DEFAULT_MAX_CELL_RECORD_BYTES },
    maxSessions: options.maxSessions ?? 16,
    ...(options.snapshots ? { snapshots: options.snapshots } : {}),
    toolCaps: {
      maxResultBytes: maxHostResultBytes,
      resultOption: "maxHostResultBytes",
      maxCellBytes: options.maxCellRecordBytes ?? DEFAULT_MAX_CELL_RECORD_BYTES,
      cellOption: "maxCellRecordBytes",
    },
  });
  const steps = new StepOrder();
  const toolName = options.name ?? "execute_code";
  const schema = executeCodeSchemaFor(languages);
  const hostFunctionNames = Object.keys(options.hostFunctions ?? {});
  const toolList = [...tools.values()];
  const describe = (toolSignatures?: string) =>
    options.description ?? describeCodeInterpreter(languages, hostFunctionNames, { persistence, toolSignatures });

  /** One call: the thread's state and files in, the outcome and the state update out. */
  const run = async (input: ExecuteCodeInput, runtime: Partial<ToolRuntime> | undefined) => {
    // The tool's own config (not `runtime.config`, the node's): tool calls from code are child
    // runs of this call, with its signal and the graph task's state.
    const config = runtime as ToolRuntime["config"] | undefined;
    const threadId = codeThreadOf(config);
    const state = readState(runtime);
    if (persistence === "thread" && state !== undefined && !Array.isArray(state.codeCells)) {
      throw new InvalidOptionError(
        "persistence",
        "thread",
        "a graph whose state has code mode's channels: use codeModeMiddleware with createAgent, or spread codeModeStateFields into your StateSchema (without them nothing a call defines is kept)",
      );
    }
    const thread = persistence === "thread" && threadId !== undefined && state !== undefined;
    const place = thread ? messageOrder(state, runtime?.toolCallId ?? runtime?.toolCall?.id, toolName) : undefined;
    const step = place ? await steps.enter(`${threadId}\u0000${place.key}`, place.order, runtime?.toolCallId ?? runtime?.toolCall?.id ?? "") : undefined;
    const contribution: StepContribution = {};
    try {
      const before = step?.before ?? [];
      const graphStore = thread ? graphStoreOf(runtime) : undefined;
      if (thread && contentsInStore && !graphStore) {
        throw new InvalidOptionError(
          "fileContents",
          "store",
          'a graph with a LangGraph store: compile({ checkpointer, store }), createAgent({ store }) or createDeepAgent({ store }); or fileContents: "checkpoint" to keep contents in the checkpoint',
        );
      }
      const inStore = thread && contentsGoToStore(options.fileContents, graphStore, wiring.storeAllowed?.(runtime, state!) ?? true);
      const stored = thread ? await storedContents(state!, String(config?.configurable?.thread_id), options.backend === undefined, graphStore, inStore, contentCache, caps) : undefined;
      const logged = putContentsBack((thread ? state!.codeCells : []) ?? [], stored?.known);
      const cells = [...logged.cells, ...before.flatMap((b) => (b.cell ? [b.cell] : []))] as CodeCell[];
      const source: FileSource = options.backend
        ? backendFileSource(options.backend, runtime, caps)
        : stateFileSource(stored?.files, caps);
      const read = await source.read();
      // Bounded as the source's own: a state may name any number of contents the store lacks.
      read.notes.push(...boundedNotes(stored?.notes ?? []));
      const files = new Map(read.files);
      for (const b of before) applyUpdate(files, b.files);
      // The tool's own files: under the thread's, and copied into them on its first call.
      const seeded = new Map<string, Uint8Array>();
      if (!thread || cells.length === 0) {
        for (const [path, bytes] of callerFiles) {
          if (files.has(path)) continue;
          files.set(path, bytes);
          if (thread) seeded.set(path, bytes);
        }
      }
      const outcome = await runner.run({
        code: input.code,
        language: input.language,
        persistence,
        threadId: thread ? threadId : undefined,
        config,
        ...(wiring.resolveTools ? { tools: wiring.resolveTools(runtime) } : {}),
        cells,
        files,
      });
      outcome.notes.push(...read.notes);
      if (logged.missing > 0) outcome.notes.push(`restore: ${logged.missing} file(s) the log refers to are not in the thread's codeFileContents${graphStore ? " or the graph's store" : ""} (given to their cells as deleted)`);
      if (!thread) return { outcome, kept: undefined, stored, inStore };
      if (outcome.rolledBack !== undefined || !outcome.cell) {
        // Nothing of this call is kept, but the tool's files still belong to the thread now.
        for (const [path, bytes] of seeded) outcome.files.written.set(path, bytes);
        outcome.files.deleted = [];
      } else {
        for (const [path, bytes] of seeded) if (!outcome.files.written.has(path) && !outcome.files.deleted.includes(path)) outcome.files.written.set(path, bytes);
      }
      const kept = await source.write(outcome.files);
      outcome.notes.push(...kept.notes);
      if (outcome.cell) contribution.cell = outcome.cell;
      contribution.files = kept.update ?? changeAsUpdate(outcome);
      return { outcome, kept, stored, inStore };
    } finally {
      step?.finish(contribution);
    }
  };

  const messageOf = (input: ExecuteCodeInput, outcome: Awaited<ReturnType<typeof run>>["outcome"], runtime: Partial<ToolRuntime> | undefined) =>
    toolMessageContent(input.code, outcome, imagesModeFor(options.images, wiring.modelProfile?.(runtime)), maxContentChars, persistence);

  return {
    name: toolName,
    description: describe(toolList.length > 0 ? quickSignatures(toolList, languages) : undefined),
    schema,
    persistence,
    runner,
    // TypeScript declarations are generated asynchronously (json-schema-to-typescript); they
    // replace the JSON-Schema listing as soon as they are ready.
    ...(toolList.length > 0 && options.description === undefined ? { fullDescription: codeModeToolSignatures(toolList, languages).then(describe) } : {}),
    async callInThread(input, runtime) {
      const { outcome, kept, stored, inStore } = await run(input, runtime);
      const message = messageOf(input, outcome, runtime);
      return threadCommand({ input, outcome, kept, stored, message, runtime, toolName, contentsInStore: inStore, backend: options.backend !== undefined, contentCache });
    },
    async callOnce(input, runtime) {
      const { outcome } = await run(input, runtime);
      const { content, images } = messageOf(input, outcome, runtime);
      return [content, artifactOf(input, outcome, writtenFiles(outcome), images)];
    },
  };
}
