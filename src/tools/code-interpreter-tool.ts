/**
 * `execute_code`: a LangChain tool that runs code the calling model wrote in the sandbox. With
 * `tools`, the code can call LangChain tools (`await tools.get_weather({ city })`); with
 * `persistence: "thread"`, definitions and files stay for the next call of the same LangGraph
 * thread, saved in the graph state (see docs/code-mode.md).
 */
import { tool, type ToolRuntime } from "@langchain/core/tools";
import { ToolMessage } from "@langchain/core/messages";
import { Command, getCurrentTaskInput } from "@langchain/langgraph";
import { InvalidOptionError } from "../errors.js";
import type { ExecutionResult, HostFunction, JsonValue, Language, Sandbox } from "../sandbox/types.js";
import {
  DEFAULT_MAX_THREAD_FILE_BYTES,
  DEFAULT_MAX_THREAD_FILES_BYTES,
  filesFromOption,
  mergeFiles,
  type ThreadFilesUpdate,
  type ThreadFiles,
} from "../code-mode/files.js";
import { CodeModeRunner, type CellLimits, type CellOutcome, type Persistence } from "../code-mode/runner.js";
import { codeModeToolSignatures, describeCodeInterpreter, outcomeText, quickSignatures } from "../code-mode/describe.js";
import type { CodeCell, CodeModeState } from "../code-mode/state.js";
import { indexTools, type CodeModeTool, type RecordedToolCall } from "../code-mode/tool-bridge.js";
import { DEFAULT_MAX_CONTENT_CHARS, MAX_CONTENT_CHARS_RULE } from "../feedback/truncate.js";
import { LIMIT_RULES, resolveHostFunctions, serializeGlobals } from "../sandbox/options.js";
import { LANGUAGES } from "../sandbox/types.js";
import { arrayRule, checkOptions, integerRule, objectRule, oneOfRule, rule, textRule, type OptionRules } from "../options/index.js";
import { executeCodeSchemaFor, resolveLanguages, type ExecuteCodeInput } from "./schemas.js";

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
  /** Files the code sees (text or bytes), under the thread's own files. */
  files?: Record<string, string | Uint8Array>;
  /** Cap of one file the code writes, in bytes. Default 1 MiB. */
  maxFileBytes?: number;
  /** Cap of all of a thread's files, in bytes. Default 10 MiB. */
  maxThreadFilesBytes?: number;
  /** Host calls (tool calls) one run may make. Default: the sandbox's (256). */
  maxHostCalls?: number;
  /** Host calls in flight at once. Default: the sandbox's (8). */
  maxHostCallsInFlight?: number;
  /** Live sessions (thread × language) this tool keeps in the process. Default 16. */
  maxSessions?: number;
  /** Bound of the text returned to the model, in characters. Default 4000. */
  maxContentChars?: number;
  /** Tool name. Default `"execute_code"`. */
  name?: string;
  /** Replaces the generated tool description. */
  description?: string;
}

/** Artifact of an `execute_code` call: the code that ran and its full result. */
export interface ExecuteCodeArtifact {
  code: string;
  language: Language;
  result: ExecutionResult;
  /** Tool calls the code made, with their results. */
  toolCalls?: RecordedToolCall[];
  /** Files the code wrote (path → bytes) and deleted, when it was given files. */
  files?: { written: Record<string, Uint8Array>; deleted: string[]; refused: string[] };
  /** When earlier cells of the thread were replayed into a fresh session before this one. */
  restore?: { replayed: number; durationMs: number; failures: string[] };
}

/** Tool names as chat APIs accept them (OpenAI: letters, digits, `_` and `-`, at most 64). */
export const TOOL_NAME_RULE = rule<string>("a tool name of letters, digits, _ and - (at most 64)", (v) => typeof v === "string" && /^[A-Za-z0-9_-]{1,64}$/.test(v));

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
  maxFileBytes: LIMIT_RULES.maxFileBytes,
  maxThreadFilesBytes: LIMIT_RULES.maxTotalFileBytes,
  maxHostCalls: LIMIT_RULES.maxHostCalls,
  maxHostCallsInFlight: LIMIT_RULES.maxHostCallsInFlight,
  maxSessions: integerRule({ min: 1, max: 1024, unit: "sessions" }),
  maxContentChars: MAX_CONTENT_CHARS_RULE,
  name: TOOL_NAME_RULE,
  description: textRule({ what: "a tool description" }),
} satisfies OptionRules<CodeInterpreterToolOptions>;

function readState(runtime: Partial<ToolRuntime> | undefined): CodeModeState {
  const fromRuntime = runtime?.state as CodeModeState | undefined;
  if (fromRuntime && typeof fromRuntime === "object") return fromRuntime;
  try {
    return (getCurrentTaskInput() as CodeModeState | undefined) ?? {};
  } catch {
    // Called outside a graph (tool.invoke in a script): no thread state.
    return {};
  }
}

function artifactOf(input: ExecuteCodeInput, outcome: CellOutcome, withFiles: boolean): ExecuteCodeArtifact {
  const artifact: ExecuteCodeArtifact = { code: input.code, language: input.language, result: outcome.result };
  if (outcome.toolCalls.length > 0) artifact.toolCalls = outcome.toolCalls;
  if (withFiles && outcome.result.files) {
    const written: Record<string, Uint8Array> = {};
    for (const path of outcome.files.written) written[path] = outcome.result.files[path]!;
    artifact.files = { written, deleted: outcome.files.deleted, refused: outcome.files.refused };
  }
  if (outcome.restore) artifact.restore = outcome.restore;
  return artifact;
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
 *   (`files`). The graph needs those channels (`codeModeMiddleware` adds them).
 *
 * @example
 * ```ts
 * import { createAgent } from "langchain";
 * const agent = createAgent({ model, tools: [createCodeInterpreterTool({ languages: ["javascript"], tools: [getWeather] })] });
 * await agent.invoke({ messages: [{ role: "user", content: "Weather in Paris and Rome?" }] });
 * ```
 */
export function createCodeInterpreterTool(given: CodeInterpreterToolOptions = {}, owner = "createCodeInterpreterTool") {
  const options = checkOptions<CodeInterpreterToolOptions>(given, CODE_INTERPRETER_OPTION_RULES, owner);
  const languages = resolveLanguages(options.languages);
  // Globals and host functions are checked now, for every language the model may use.
  for (const language of languages) {
    serializeGlobals(options.globals, language);
    resolveHostFunctions(options.hostFunctions, language, Object.keys(options.globals ?? {}));
  }
  const persistence = options.persistence ?? "none";
  const tools = indexTools(options.tools);
  if (options.sandbox && typeof options.sandbox.createSession !== "function" && persistence === "thread") {
    throw new InvalidOptionError("sandbox", options.sandbox, 'a sandbox with createSession (persistence "thread" keeps a session per thread)');
  }
  const callerFiles = filesFromOption(options.files);
  const maxContentChars = options.maxContentChars ?? DEFAULT_MAX_CONTENT_CHARS;
  const limits: CellLimits = {};
  for (const key of ["timeoutMs", "memoryLimitBytes", "maxOutputBytes", "maxHostCalls", "maxHostCallsInFlight", "globals"] as const) {
    if (options[key] !== undefined) (limits as Record<string, unknown>)[key] = options[key];
  }
  const runner = new CodeModeRunner({
    tools,
    hostFunctions: options.hostFunctions ?? {},
    sandbox: options.sandbox as Pick<Sandbox, "run" | "createSession"> | undefined,
    limits,
    caps: {
      maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_THREAD_FILE_BYTES,
      maxThreadFilesBytes: options.maxThreadFilesBytes ?? DEFAULT_MAX_THREAD_FILES_BYTES,
    },
    maxSessions: options.maxSessions ?? 16,
  });
  const schema = executeCodeSchemaFor(languages);
  const hostFunctionNames = Object.keys(options.hostFunctions ?? {});
  const toolList = [...tools.values()];
  const describe = (toolSignatures?: string) =>
    options.description ?? describeCodeInterpreter(languages, hostFunctionNames, { persistence, toolSignatures });

  const run = async (input: ExecuteCodeInput, runtime: Partial<ToolRuntime> | undefined): Promise<CellOutcome> => {
    const state = persistence === "thread" ? readState(runtime) : {};
    const config = (runtime?.config ?? runtime) as ToolRuntime["config"] | undefined;
    const threadId = config?.configurable?.thread_id as string | undefined;
    const files: ThreadFiles = mergeFiles(callerFiles, state.files as ThreadFilesUpdate | undefined);
    return runner.run({
      code: input.code,
      language: input.language,
      persistence,
      threadId: threadId === undefined ? undefined : String(threadId),
      config,
      cells: (state.codeCells ?? []) as CodeCell[],
      files,
    });
  };

  const common = { name: options.name ?? "execute_code", description: describe(toolList.length > 0 ? quickSignatures(toolList, languages) : undefined), schema };
  const made =
    persistence === "thread"
      ? tool(
          async (input: ExecuteCodeInput, runtime?: ToolRuntime): Promise<Command> => {
            const outcome = await run(input, runtime);
            const content = outcomeText(outcome, input.code, maxContentChars);
            const message = new ToolMessage({
              content,
              artifact: artifactOf(input, outcome, true),
              tool_call_id: runtime?.toolCallId ?? runtime?.toolCall?.id ?? "",
              name: common.name,
              status: outcome.result.status === "success" ? "success" : "error",
            });
            const update: Record<string, unknown> = { messages: [message] };
            if (outcome.cell) update.codeCells = [outcome.cell];
            if (Object.keys(outcome.files.update).length > 0) update.files = outcome.files.update;
            return new Command({ update });
          },
          common,
        )
      : tool(
          async (input: ExecuteCodeInput, runtime?: ToolRuntime): Promise<[string, ExecuteCodeArtifact]> => {
            const outcome = await run(input, runtime);
            return [outcomeText(outcome, input.code, maxContentChars), artifactOf(input, outcome, options.files !== undefined)];
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
  return made;
}

const signaturesReady = new WeakMap<object, Promise<void>>();
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
