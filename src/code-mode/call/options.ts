/**
 * The options of `execute_code` (`createCodeInterpreterTool`, and the middleware's that it
 * shares) and the rules that check them.
 */
import type { SnapshotOptions } from "../replay/snapshots.js";
import type { HostFunction, JsonValue, Language, Sandbox } from "../../sandbox/types.js";
import { LANGUAGES } from "../../sandbox/types.js";
import { LIMIT_RULES } from "../../sandbox/options.js";
import { isFilesBackendOption, type FilesBackendOption } from "../thread/file-sources.js";
import type { Persistence } from "../replay/runner.js";
import type { CodeModeTool } from "../tools/tool-types.js";
import { MAX_CONTENT_CHARS_RULE } from "../../feedback/truncate.js";
import { arrayRule, integerRule, objectRule, oneOfRule, rule, textRule, TOOL_NAME_RULE, type OptionRules } from "../../options/index.js";
import type { ImagesMode } from "./images.js";

/** Options of `createCodeInterpreterTool`. Every field is optional. */
export interface CodeInterpreterToolOptions {
  /** Languages the model may use; the schema's enum lists only these. Default: all. */
  languages?: Language[];
  /**
   * Sandbox that runs the code. `persistence: "thread"` also needs `createSession`. Default: the
   * shared sandbox of `runCode`.
   */
  sandbox?: Sandbox;
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
   * Where a thread's file contents are kept (`persistence: "thread"`). `"checkpoint"`: in the
   * checkpoint's channels (`files` as deepagents' file data, and `codeFileContents`). `"store"`:
   * in the graph's LangGraph store (`compile({ checkpointer, store })`, `createAgent({ store })`),
   * once per content under its SHA-256; the checkpoint holds references (`StoredFileRef`), so its
   * bytes per call follow what the call wrote, not the thread's files. Default: `"store"` when
   * the graph has a store, else `"checkpoint"` (the middleware keeps `"checkpoint"` for an agent
   * with deepagents' file tools and no `backend`). deepagents' own file tools on its state backend cannot read references: with
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
   * Snapshots of thread sessions (every language), kept in `store` outside the checkpoint,
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
