/**
 * `execute_code`: a LangChain tool that runs code the calling model wrote in the sandbox. With
 * `tools`, the code can call LangChain tools (`await tools.get_weather({ city })`); with
 * `persistence: "thread"`, definitions and files stay for the next call of the same LangGraph
 * thread, exactly, saved in the graph state (see docs/code-mode.md).
 */
import type { SnapshotOptions } from "../replay/snapshots.js";
import { tool, type ToolRuntime } from "@langchain/core/tools";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { Command, getCurrentTaskInput } from "@langchain/langgraph";
import { InvalidOptionError } from "../../errors.js";
import type { ExecutionResult, HostFunction, JsonValue, Language, Sandbox } from "../../sandbox/types.js";
import {
  DEFAULT_MAX_THREAD_FILE_BYTES,
  DEFAULT_MAX_THREAD_FILES,
  DEFAULT_MAX_THREAD_FILES_BYTES,
  fileBytes,
  filesFromOption,
  toThreadFile,
  type FileCaps,
  type ThreadFile,
  type ThreadFiles,
  type ThreadFilesUpdate,
} from "../thread/files.js";
import { backendFileSource, boundedNotes, isFilesBackendOption, stateFileSource, type FileSource, type FilesBackendOption } from "../thread/file-sources.js";
import { DEFAULT_MAX_CELL_RECORD_BYTES, DEFAULT_MAX_HOST_RESULT_BYTES } from "../replay/host-call-log.js";
import { CodeModeRunner, type ArtifactToolCall, type CellLimits, type CellOutcome, type Persistence, type RestoreReport } from "../replay/runner.js";
import { codeModeToolSignatures, describeCodeInterpreter, outcomeText, quickSignatures } from "./describe.js";
import type { CodeCell, CodeModeState } from "../thread/state.js";
import { isContentRef, moveContentsOut, putContentsBack, type FileContents } from "../thread/file-contents.js";
import { fileContentsNamespace, isGraphStore, storedFileOf, type GraphStore, type StoredFileRef } from "../thread/content-store.js";
import { ContentCache } from "../thread/content-cache.js";
import { StepOrder, type StepContribution } from "./step-order.js";
import type { CodeModeTool } from "../tools/tool-types.js";
import { parseToolSpecs, type ToolSpecs } from "../tools/tool-resolution.js";
import { codeDepth, graphScope } from "../tools/graph-task.js";
import { DEFAULT_MAX_CONTENT_CHARS, MAX_CONTENT_CHARS_RULE } from "../../feedback/truncate.js";
import { LIMIT_RULES, resolveHostFunctions, resolveLanguages, serializeGlobals } from "../../sandbox/options.js";
import { LANGUAGES } from "../../sandbox/types.js";
import { arrayRule, checkOptions, integerRule, objectRule, oneOfRule, rule, textRule, TOOL_NAME_RULE, type OptionRules } from "../../options/index.js";
import { executeCodeSchemaFor, type ExecuteCodeInput } from "./input-schema.js";
import { imageBlocks, imagesIn, imagesModeFor, type ImageBlock, type ImagesMode, type RunImage } from "./images.js";

/** Options of `createCodeInterpreterTool`. Every field is optional. */
export interface CodeInterpreterToolOptions {
  /** Languages the model may use; the schema's enum lists only these. Default: all. */
  languages?: Language[];
  /**
   * Sandbox that runs the code. `persistence: "thread"` also needs `createSession`. Default: the
   * shared sandbox of `runCode`.
   */
  sandbox?: Pick<Sandbox, "run"> & Partial<Pick<Sandbox, "createSession">>;
  /** Wall-clock limit of one run. Default: the sandbox's (5000). */
  timeoutMs?: number;
  /** Memory limit of one run. Default: the sandbox's (64 MiB). */
  memoryLimitBytes?: number;
  /** Output kept per run. Default: the sandbox's (1 MiB). */
  maxOutputBytes?: number;
  /** JSON values the code sees as globals. */
  globals?: Record<string, JsonValue>;
  /** Host functions the code may call with `await name(...)`. */
  hostFunctions?: Record<string, HostFunction>;
  /**
   * LangChain tools the code may call: `await tools.<name>(input)` in JavaScript/TypeScript,
   * `await tools.<name>(**kwargs)` in Python. Inputs are validated by each tool's schema; the
   * tools run on the host with the caller's config (callbacks, signal).
   */
  tools?: CodeModeTool[];
  /**
   * `"none"` (default here): every call starts fresh. `"thread"`: top-level definitions and
   * files persist across calls of the same LangGraph thread, saved in the graph state (needs the
   * `files` and `codeCells` channels: use `codeModeMiddleware`, or `codeModeStateFields` in
   * your own state). The tool then returns a `Command` that updates that state.
   */
  persistence?: Persistence;
  /**
   * Files the code sees (path → text or bytes; `notes.txt` and `/notes.txt` are the same file).
   * With `persistence: "thread"` they are copied into the thread's files on its first code call
   * and are the thread's own from then on.
   */
  files?: Record<string, string | Uint8Array>;
  /**
   * A deepagents backend (or a factory of one, as `createDeepAgent`'s `backend` option takes):
   * the thread's files are the backend's, read and written through it, instead of the `files`
   * channel. Pass the same backend as the agent's (`codeModeMiddleware` in a deepagents agent
   * whose files live in another backend than its state refuses to run without it).
   */
  backend?: FilesBackendOption;
  /**
   * Where a thread's file contents are kept (`persistence: "thread"`). `"checkpoint"` (default):
   * in the checkpoint's channels (`files` as deepagents' file data, and `codeFileContents`).
   * `"store"`: in the graph's LangGraph store (`compile({ checkpointer, store })`,
   * `createAgent({ store })`), once per content under its SHA-256; the checkpoint holds
   * references (`StoredFileRef`), so its bytes per call follow what the call wrote, not the
   * thread's files. deepagents' own file tools on its state backend cannot read references: with
   * deepagents, give code mode the agent's `backend` (docs/code-mode.md, "File contents in the store").
   */
  fileContents?: "checkpoint" | "store";
  /** Cap of one file the code writes, in bytes. Default 1 MiB. */
  maxFileBytes?: number;
  /** Cap of all of a thread's files (contents, paths and 128 bytes per file), in bytes. Default 10 MiB. */
  maxThreadFilesBytes?: number;
  /** Cap of the number of a thread's files. Default 1000. */
  maxThreadFiles?: number;
  /** Cap of one value a host call (tool or host function) may give the code, in bytes of JSON; larger ones are an error in the code, never stored. Default 1 MiB. */
  maxHostResultBytes?: number;
  /** Cap of all values the host calls of one run may give the code, in bytes. Default 8 MiB. */
  maxCellRecordBytes?: number;
  /** Host calls (tool calls) one run may make. Default: the sandbox's (256). */
  maxHostCalls?: number;
  /** Host calls in flight at once. Default: the sandbox's (8). */
  maxHostCallsInFlight?: number;
  /** Live sessions (thread × language) this tool keeps in the process. Default 16. */
  maxSessions?: number;
  /**
   * Snapshots of JavaScript/TypeScript thread sessions, kept in `store` outside the checkpoint,
   * so that a restore replays only the cells after the latest one instead of the whole log
   * (docs/code-mode.md, "Snapshots"). Give the same `secret` to every process sharing the store.
   */
  snapshots?: SnapshotOptions;
  /** Bound of the text returned to the model, in characters. Default 4000. */
  maxContentChars?: number;
  /** Tool name. Default `"execute_code"`. */
  name?: string;
  /** Replaces the generated tool description. */
  description?: string;
  /**
   * How PNG/JPEG images the code wrote (a matplotlib chart, anything under `images/`) reach the
   * model: `"content"`, as image content blocks of the tool message (at most 4, 1 MiB each);
   * `"artifact"`, named in the artifact's `images` (their bytes are in its files); `"off"`.
   * Default: `"content"` in code mode when the model's LangChain profile declares
   * `imageToolMessage`, else `"artifact"`.
   */
  images?: ImagesMode;
}

/** A written file in an artifact when its content is in the graph's store (`fileContents: "store"`): read it with `readStoredFile`. */
export interface ArtifactFileRef {
  contentSha256: string;
  size: number;
  mimeType?: string;
}

/** Artifact of an `execute_code` call: the code that ran, its result, and only what it wrote. */
export interface ExecuteCodeArtifact {
  code: string;
  language: Language;
  /** The run's result (without the file set: `files` below has what the run changed). */
  result: Omit<ExecutionResult, "files" | "clockReads">;
  /** Tool calls the code made, with what they gave the code (an output over 4 KiB by its size, `outputBytes`: the thread's log has it). */
  toolCalls?: ArtifactToolCall[];
  /** Files the code wrote (path → file data, text or base64; with `fileContents: "store"` a reference), deleted, and refused. */
  files?: { written: Record<string, ThreadFile | ArtifactFileRef>; deleted: string[]; refused: string[] };
  /** When earlier cells of the thread were replayed into a fresh session before this one. */
  restore?: RestoreReport;
  /** Set when the run was stopped from outside and left the thread as it was (why). */
  rolledBack?: string;
  /** Images among the written files (`images/` first); their bytes are in `files.written`. Absent with `images: "off"`. */
  images?: RunImage[];
}

/** The options of `createCodeInterpreterTool` and their rules (keys from the interface itself). */
export const CODE_INTERPRETER_OPTION_RULES = {
  languages: arrayRule(oneOfRule(LANGUAGES), { what: "an array of languages", nonEmpty: true }),
  sandbox: objectRule("a Sandbox from createSandbox() (an object with run)", (v) => typeof v.run === "function"),
  timeoutMs: LIMIT_RULES.timeoutMs,
  memoryLimitBytes: LIMIT_RULES.memoryLimitBytes,
  maxOutputBytes: LIMIT_RULES.maxOutputBytes,
  globals: objectRule("an object mapping names to JSON values"),
  hostFunctions: objectRule("an object mapping names to functions"),
  tools: rule("an array of LangChain tools", Array.isArray),
  persistence: oneOfRule(["none", "thread"] as const, '"none": every call starts fresh; "thread": state kept per LangGraph thread'),
  files: objectRule("an object mapping relative paths to strings or Uint8Arrays"),
  backend: rule("a deepagents backend (with glob, readRaw and write) or a factory of one", isFilesBackendOption),
  fileContents: oneOfRule(["checkpoint", "store"] as const, '"checkpoint": contents in the checkpoint; "store": in the graph\'s LangGraph store'),
  maxFileBytes: LIMIT_RULES.maxFileBytes,
  maxThreadFilesBytes: LIMIT_RULES.maxTotalFileBytes,
  maxThreadFiles: integerRule({ min: 1, max: 1_000_000, unit: "files" }),
  maxHostResultBytes: LIMIT_RULES.maxResultBytes,
  maxCellRecordBytes: LIMIT_RULES.maxTotalFileBytes,
  maxHostCalls: LIMIT_RULES.maxHostCalls,
  maxHostCallsInFlight: LIMIT_RULES.maxHostCallsInFlight,
  maxSessions: integerRule({ min: 1, max: 1024, unit: "sessions" }),
  snapshots: objectRule("{ store, secret?, every?, maxBytes? } (store: get(key)/put(key, bytes), e.g. snapshotStoreFromBaseStore(store))"),
  maxContentChars: MAX_CONTENT_CHARS_RULE,
  name: TOOL_NAME_RULE,
  description: textRule({ what: "a tool description" }),
  images: oneOfRule(["content", "artifact", "off"] as const, '"content": image content blocks in the tool message; "artifact": named in the artifact; "off"'),
} satisfies OptionRules<CodeInterpreterToolOptions>;

/** The graph state the tool runs in, or undefined outside a graph. */
function readState(runtime: Partial<ToolRuntime> | undefined): (CodeModeState & { messages?: unknown[] }) | undefined {
  const fromRuntime = runtime?.state as CodeModeState | undefined;
  if (fromRuntime && typeof fromRuntime === "object") return fromRuntime;
  try {
    return (getCurrentTaskInput() as CodeModeState | undefined) ?? undefined;
  } catch {
    // Called outside a graph (tool.invoke in a script): no thread state.
    return undefined;
  }
}

function artifactOf(input: ExecuteCodeInput, outcome: CellOutcome, written: Record<string, ThreadFile | ArtifactFileRef> | undefined, images?: RunImage[]): ExecuteCodeArtifact {
  const { files: _files, clockReads: _clock, ...result } = outcome.result;
  const artifact: ExecuteCodeArtifact = { code: input.code, language: input.language, result };
  if (images && images.length > 0) artifact.images = images;
  if (outcome.toolCalls.length > 0) artifact.toolCalls = outcome.toolCalls;
  if (written) artifact.files = { written, deleted: outcome.files.deleted, refused: outcome.files.refused };
  if (outcome.restore) artifact.restore = outcome.restore;
  if (outcome.rolledBack) artifact.rolledBack = outcome.rolledBack;
  return artifact;
}

/** The ids of the code calls of the AI message that made `callId`, in the message's order. */
function messageOrder(state: { messages?: unknown[] } | undefined, callId: string | undefined, toolName: string): { key: string; order: string[] } | undefined {
  if (!callId || !Array.isArray(state?.messages)) return undefined;
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const m = state.messages[i];
    if (!AIMessage.isInstance(m)) continue;
    const calls = (m.tool_calls ?? []).filter((c) => c.name === toolName && typeof c.id === "string");
    if (calls.some((c) => c.id === callId)) return { key: m.id ?? calls.map((c) => c.id).join(","), order: calls.map((c) => c.id!) };
  }
  return undefined;
}

/**
 * Creates the `execute_code` tool: the model sends `{ code, language }`, the tool runs it with
 * the configured limits and returns bounded text (status, output, result, error with its line and
 * what to try). A failed run is a normal tool result; arguments that do not match the schema are
 * rejected by the schema.
 *
 * - `persistence: "none"` (default): returns `[content, { code, language, result, ... }]`.
 * - `persistence: "thread"`: returns a LangGraph `Command` whose update holds the `ToolMessage`
 *   (same content and artifact), the new replay-log cell (`codeCells`) and the file changes
 *   (`files`). The graph needs those channels (`codeModeMiddleware` adds them); without them the
 *   first call fails with an error that says so.
 *
 * @example
 * ```ts
 * import { createAgent } from "langchain";
 * const agent = createAgent({ model, tools: [createCodeInterpreterTool({ languages: ["javascript"], tools: [getWeather] })] });
 * await agent.invoke({ messages: [{ role: "user", content: "Weather in Paris and Rome?" }] });
 * ```
 */
export function createCodeInterpreterTool(given: CodeInterpreterToolOptions = {}) {
  const options = checkOptions<CodeInterpreterToolOptions>(given, CODE_INTERPRETER_OPTION_RULES, "createCodeInterpreterTool");
  return buildCodeInterpreterTool(options, { specs: parseToolSpecs(options.tools, "tools", options.name ?? "execute_code", false) });
}

/** How the middleware gives the code tool the agent's tools, resolved per call. */
export interface CodeToolWiring {
  specs: ToolSpecs;
  /** The tools of the call `runtime` belongs to (by name, every name of `specs`). */
  resolveTools?: (runtime: Partial<ToolRuntime> | undefined) => Map<string, CodeModeTool>;
  /** The LangChain profile of the model that wrote the call `runtime` belongs to, when known (chooses the default `images`). */
  modelProfile?: (runtime: Partial<ToolRuntime> | undefined) => { imageToolMessage?: boolean } | undefined;
}

/**
 * `createCodeInterpreterTool` with its options already checked and its tools given as checked
 * specs (the middleware's way in).
 */
export function buildCodeInterpreterTool(options: Omit<CodeInterpreterToolOptions, "tools">, wiring: CodeToolWiring) {
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
    sandbox: options.sandbox as Pick<Sandbox, "run" | "createSession"> | undefined,
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
      const stored = thread ? await storedContents(state!, String(config?.configurable?.thread_id), options.backend === undefined, graphStore, contentsInStore, contentCache, caps) : undefined;
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
      if (!thread) return { outcome, kept: undefined, stored };
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
      return { outcome, kept, stored };
    } finally {
      step?.finish(contribution);
    }
  };

  const written = (outcome: CellOutcome, refs?: ThreadFilesUpdate) => {
    if (outcome.files.written.size === 0 && outcome.files.deleted.length === 0 && outcome.files.refused.length === 0) return undefined;
    const out: Record<string, ThreadFile | ArtifactFileRef> = {};
    for (const [path, bytes] of outcome.files.written) {
      const ref = refs?.[path];
      if (ref && typeof ref === "object" && isContentRef(ref)) {
        // The file's dates are in state: the artifact names the content (and its size, type).
        const { contentSha256, size, mimeType } = ref as StoredFileRef;
        out[path] = { contentSha256, size, ...(mimeType ? { mimeType } : {}) };
      } else out[path] = toThreadFile(path, bytes);
    }
    return out;
  };

  /** The tool message's content: the outcome's text, and with `images: "content"` the run's images as blocks. */
  const messageOf = (input: ExecuteCodeInput, outcome: CellOutcome, runtime: Partial<ToolRuntime> | undefined) => {
    const mode = imagesModeFor(options.images, wiring.modelProfile?.(runtime));
    const text = outcomeText(outcome, input.code, maxContentChars, persistence);
    const images = mode === "off" ? [] : imagesIn(outcome.files.written);
    if (mode !== "content" || images.length === 0) return { content: text as string | Array<{ type: "text"; text: string } | ImageBlock>, images };
    const { blocks, notes } = imageBlocks(images, outcome.files.written);
    const shown = blocks.length > 0 ? `\n[${blocks.length} image(s) attached: ${images.filter((i) => i.mimeType !== "image/svg+xml").slice(0, blocks.length).map((i) => i.path).join(", ")}]` : "";
    const left = notes.length > 0 ? `\n${notes.join("\n")}` : "";
    return { content: [{ type: "text" as const, text: `${text}${shown}${left}` }, ...blocks], images };
  };

  const common = { name: toolName, description: describe(toolList.length > 0 ? quickSignatures(toolList, languages) : undefined), schema };
  const made =
    persistence === "thread"
      ? tool(
          async (input: ExecuteCodeInput, runtime?: ToolRuntime): Promise<Command> => {
            const { outcome, kept, stored } = await run(input, runtime);
            const { content, images } = messageOf(input, outcome, runtime);
            const update: Record<string, unknown> = {};
            if (kept?.update !== undefined && Object.keys(kept.update).length > 0) update.files = kept.update;
            // The log's contents move out of its cells where they have a place to go: the graph's
            // store (fileContents: "store") or `codeFileContents`; otherwise they stay inline.
            const moved = outcome.cell && (contentsInStore || stored?.channel) ? moveContentsOut(outcome.cell, stored?.known ?? {}) : undefined;
            if (outcome.cell) update.codeCells = [moved?.cell ?? outcome.cell];
            let added = moved?.added ?? {};
            if (stored?.graphStore && contentsInStore) {
              // The contents go to the graph's store before the checkpoint can name them.
              const toPut = new Map(Object.entries(added));
              added = {};
              const files = referencedUpdate(kept?.update, outcome.files.written, stored.stateFiles, toPut);
              if (Object.keys(files).length > 0) update.files = files;
              else delete update.files;
              await contentCache.put(stored.graphStore, stored.namespace, toPut);
            }
            // Written with every file write too (empty when nothing is new), so the channel's copies
            // keep pace with those of `files` and a read's walk back to its last copy is no longer
            // (file-contents.ts); with a backend there is no `files` channel, and it keeps pace with
            // the log instead. In store mode it stays empty: it is written for the walk only.
            const touch = update.files !== undefined || (options.backend !== undefined && outcome.cell !== undefined);
            if (stored?.channel && (touch || Object.keys(added).length > 0)) update.codeFileContents = added;
            update.messages = [
              new ToolMessage({
                content,
                artifact: artifactOf(input, outcome, written(outcome, update.files as ThreadFilesUpdate | undefined), images),
                tool_call_id: runtime?.toolCallId ?? runtime?.toolCall?.id ?? "",
                name: common.name,
                status: outcome.result.status === "success" ? "success" : "error",
              }),
            ];
            return new Command({ update });
          },
          common,
        )
      : tool(
          async (input: ExecuteCodeInput, runtime?: ToolRuntime): Promise<[ReturnType<typeof messageOf>["content"], ExecuteCodeArtifact]> => {
            const { outcome } = await run(input, runtime);
            const { content, images } = messageOf(input, outcome, runtime);
            return [content, artifactOf(input, outcome, written(outcome), images)];
          },
          { ...common, responseFormat: "content_and_artifact" as const },
        );
  if (toolList.length > 0 && options.description === undefined) {
    // TypeScript declarations are generated asynchronously (json-schema-to-typescript); they
    // replace the JSON-Schema listing as soon as they are ready.
    signaturesReady.set(
      made,
      codeModeToolSignatures(toolList, languages).then(
        (signatures) => {
          made.description = describe(signatures);
        },
        () => undefined,
      ),
    );
  }
  runners.set(made, runner);
  if (persistence === "thread") threadPersistence.add(made);
  return made;
}

/** The graph's LangGraph store, as the tool's config carries it. */
function graphStoreOf(runtime: Partial<ToolRuntime> | undefined): GraphStore | undefined {
  const store = (runtime as { store?: unknown } | undefined)?.store;
  return isGraphStore(store) ? store : undefined;
}

/** The contents a call reads, wherever they are kept, and the thread's files with the stored ones resolved. */
interface StoredContents {
  /** Digest → content: `codeFileContents` and what the graph's store gave; undefined when neither is in use (the log keeps contents inline). */
  known: FileContents | undefined;
  /** The `files` channel with every reference replaced by its content (those not found left out). */
  files: ThreadFiles | undefined;
  /** The `files` channel as the state holds it. */
  stateFiles: ThreadFiles | undefined;
  /** Whether the graph has the `codeFileContents` channel. */
  channel: boolean;
  notes: string[];
  graphStore: GraphStore | undefined;
  namespace: string[];
}

/**
 * Reads the contents the thread's log and `files` refer to: from `codeFileContents`, and for
 * what it does not hold, from the graph's store (one batch).
 */
async function storedContents(
  state: CodeModeState,
  threadId: string,
  stateFiles: boolean,
  graphStore: GraphStore | undefined,
  contentsInStore: boolean,
  cache: ContentCache,
  caps: FileCaps,
): Promise<StoredContents> {
  const channel = contentStoreOf(state);
  const files = stateFiles ? (state.files as ThreadFiles | undefined) : undefined;
  const namespace = fileContentsNamespace(threadId);
  const wanted = new Set<string>();
  for (const cell of state.codeCells ?? []) {
    for (const file of Object.values(cell.filesIn ?? {})) if (isContentRef(file) && !(channel && Object.hasOwn(channel, file.contentSha256))) wanted.add(file.contentSha256);
  }
  // What a reference says of its size bounds what is read for it: at most `maxThreadFiles`
  // references (in path order) of at most `maxFileBytes` each (code mode writes no more; a state
  // that holds more was written by hand). The caps are checked again on the bytes read.
  const readable = new Set<string>();
  for (const path of Object.keys(files ?? {}).sort()) {
    const file = files![path];
    if (!isContentRef(file) || readable.size >= caps.maxThreadFiles) continue;
    const size = (file as Partial<StoredFileRef>).size;
    if (typeof size === "number" && size > caps.maxFileBytes) continue;
    readable.add(path);
    wanted.add(file.contentSha256);
  }
  const fetched = graphStore && wanted.size > 0 ? await cache.get(graphStore, namespace, wanted) : new Map<string, string>();
  const known = channel !== undefined || contentsInStore || fetched.size > 0 ? { ...channel, ...Object.fromEntries(fetched) } : undefined;
  const notes: string[] = [];
  let resolved = files;
  if (files && Object.values(files).some(isContentRef)) {
    resolved = {};
    for (const [path, file] of Object.entries(files)) {
      if (!isContentRef(file)) {
        resolved[path] = file;
        continue;
      }
      const { contentSha256, size: _size, ...rest } = file as StoredFileRef;
      const content = readable.has(path) ? fetched.get(contentSha256) : undefined;
      if (!readable.has(path)) notes.push(`the thread's file ${path.slice(0, 200)} is not visible to code: it is over code mode's file caps (maxFileBytes, maxThreadFiles)`);
      else if (content === undefined) notes.push(`the thread's file ${path.slice(0, 200)} is not visible to code: its content is not in the graph's store${graphStore ? " (no entry under its digest, or one whose bytes do not match it)" : " (this graph has no store)"}`);
      else resolved[path] = { ...rest, content };
    }
  }
  return { known, files: resolved, stateFiles: files, notes, graphStore, namespace, channel: channel !== undefined };
}

/**
 * The state update of a call whose contents go to the store: written files by reference, and
 * the thread's files another node wrote with their content moved to the store (only if they
 * still have it: `ContentMove`). Adds the contents to write to `toPut`.
 */
function referencedUpdate(update: ThreadFilesUpdate | undefined, written: ReadonlyMap<string, Uint8Array>, files: ThreadFiles | undefined, toPut: Map<string, string>): ThreadFilesUpdate {
  const out: ThreadFilesUpdate = {};
  for (const [path, value] of Object.entries(update ?? {})) {
    // The run's own bytes give the size; an update the source made itself is decoded for it.
    const size = () => written.get(path)?.byteLength ?? fileBytes(value)?.byteLength ?? 0;
    const stored = value !== null && typeof value === "object" ? storedFileOf(value as ThreadFile, size()) : undefined;
    if (!stored) {
      out[path] = value;
      continue;
    }
    toPut.set(stored.digest, stored.content);
    out[path] = stored.ref;
  }
  for (const [path, file] of Object.entries(files ?? {})) {
    if (Object.hasOwn(out, path) || isContentRef(file)) continue;
    const stored = storedFileOf(file as ThreadFile, fileBytes(file)?.byteLength ?? 0);
    if (!stored) continue;
    toPut.set(stored.digest, stored.content);
    out[path] = { ...stored.ref, sameContentOnly: true };
  }
  return out;
}

/** The thread's `codeFileContents`, or undefined when the graph does not have that channel (the log then keeps contents inline). */
function contentStoreOf(state: (CodeModeState & { messages?: unknown[] }) | undefined): FileContents | undefined {
  const store = state?.codeFileContents;
  return typeof store === "object" && store !== null && !Array.isArray(store) ? store : undefined;
}

/** Applies a state-form files update to a set of bytes (thread paths). */
function applyUpdate(files: Map<string, Uint8Array>, update: ThreadFilesUpdate | undefined): void {
  for (const [path, value] of Object.entries(update ?? {})) {
    if (value === null) files.delete(path);
    else {
      const bytes = fileBytes(value);
      if (bytes) files.set(path, bytes);
    }
  }
}

/** A cell's file changes in state form (what a later call of the same message must see). */
function changeAsUpdate(outcome: CellOutcome): ThreadFilesUpdate {
  const update: ThreadFilesUpdate = {};
  for (const path of outcome.files.deleted) update[path] = null;
  for (const [path, bytes] of outcome.files.written) update[path] = toThreadFile(path, bytes);
  return update;
}

/**
 * The code thread a call in `config` belongs to: the checkpointer's thread and the graph (or
 * subgraph) it runs in, without the task ids of the namespace, so a subgraph's code state lasts
 * across its runs (any node of that graph gives the same). A graph run inside a tool that code
 * called (a subagent) starts fresh every time: its scope keeps the task ids, so parallel
 * subagents never share (or wait on) one session. Undefined without a thread id.
 */
function codeThreadOf(config: ToolRuntime["config"] | undefined): string | undefined {
  const rawThread = config?.configurable?.thread_id as string | undefined;
  if (rawThread === undefined) return undefined;
  const namespace = (config?.configurable?.checkpoint_ns as string | undefined) ?? "";
  const graphPath = codeDepth(config) > 0 ? (graphScope(config) ?? "") : namespace.split("|").slice(0, -1).map((part) => part.split(":")[0]).join("|");
  return `${String(rawThread)}\u0000${graphPath}`;
}

/**
 * Starts ahead, while the model writes its reply, the engines the tool's next call on this
 * thread would have to restore its sessions in (`CodeModeRunner.prestart`): called by the
 * middleware before each model call, with that node's state and config (its graph is the
 * tool's). Does nothing for a tool without thread persistence, or a thread with no cells.
 */
export function prestartCodeThread(made: object, state: Record<string, unknown> | undefined, config: ToolRuntime["config"] | undefined): void {
  const runner = runners.get(made);
  const cells = state?.codeCells;
  const threadId = codeThreadOf(config);
  if (!runner || !threadPersistence.has(made) || threadId === undefined || !Array.isArray(cells) || cells.length === 0) return;
  runner.prestart(threadId, cells as CodeCell[]);
}

const signaturesReady = new WeakMap<object, Promise<void>>();
/** The tools made with `persistence: "thread"`. */
const threadPersistence = new WeakSet<object>();
const runners = new WeakMap<object, CodeModeRunner>();

/** Resolves when the tool's description holds its generated tool signatures (for middleware and tests). */
export function codeInterpreterToolReady(made: object): Promise<void> {
  return signaturesReady.get(made) ?? Promise.resolve();
}

/** Disposes the live sessions a code tool keeps (they are also disposed when evicted). */
export async function disposeCodeInterpreterTool(made: object): Promise<void> {
  await runners.get(made)?.dispose();
}

/** The runner of a tool (for tests and the bench: live-session count). */
export function codeInterpreterRunner(made: object): CodeModeRunner | undefined {
  return runners.get(made);
}
