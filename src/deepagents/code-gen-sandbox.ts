/**
 * `CodeGenSandbox`: a deepagents sandbox backend (`SandboxBackendProtocolV2`) that runs on
 * this machine and reaches nothing of it. Its files live in its own in-memory store (file
 * operations work on it directly, with deepagents' own result shapes and error texts);
 * `execute` interprets a POSIX-style command line with just-bash in a worker thread over a
 * copy of those files, and runs `python3`, `node`, `tsx` and `tsc` on the package's engines.
 */
import type {
  EditResult,
  ExecuteResponse,
  FileDownloadResponse,
  FileInfo,
  FileUploadResponse,
  GlobResult,
  GrepMatch,
  GrepResult,
  LsResult,
  ReadRawResult,
  ReadResult,
  SandboxBackendProtocolV2,
  WriteResult,
  DeleteResult,
} from "deepagents";
import { randomUUID } from "node:crypto";
import { CodeGenSandboxError, InvalidOptionError, SandboxDisposedError } from "../errors.js";
import { FileStore, normalizePath, type StoreEntry } from "./file-store.js";
import { GlobBudgetError, compileGlob } from "./glob-match.js";
import { isTextMime, mimeTypeOf } from "../common/mime.js";
import { resolveCodeGenSandboxOptions, type CodeGenSandboxOptions, type ResolvedCodeGenSandboxOptions } from "./options.js";
import { ShellHost } from "./shell-host.js";

/** deepagents' text for an empty file (its `read_file` tool recognises it). */
const EMPTY_FILE_NOTICE = "System reminder: File exists but has empty contents";
/**
 * Most matches one `grep` returns (deepagents' grep tool asks for 1 000 by default): the host
 * holds them all (`npm run bench -- deepagents`, row "grep matching every line of 12 MiB"). Past it the result
 * is `truncated`.
 */
export const MAX_GREP_MATCHES = 10_000;
/** Longest quoted search string in an edit error (deepagents quotes it whole; a model needs the start). */
const MAX_QUOTED_CHARS = 200;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A local, isolated sandbox backend for deepagents: `createDeepAgent({ backend })` gets
 * `execute` plus the file tools, all inside this sandbox.
 *
 * @example
 * ```ts
 * import { createDeepAgent } from "deepagents";
 * import { CodeGenSandbox } from "codegen-sandbox/deepagents";
 *
 * const backend = await CodeGenSandbox.create({ initialFiles: { "/data.csv": "a,b\n1,2\n" } });
 * const agent = createDeepAgent({ model, backend });
 * // ... the agent's execute("python3 -c 'print(1)'") runs here, not on the host.
 * await backend.close();
 * ```
 */
export class CodeGenSandbox implements SandboxBackendProtocolV2 {
  /** This sandbox's identity (`codegen-` and a random UUID). */
  readonly id = `codegen-${randomUUID()}`;
  private readonly options: ResolvedCodeGenSandboxOptions;
  private readonly store: FileStore;
  private readonly shell: ShellHost;
  private state: "new" | "running" | "closed" = "new";

  /**
   * Makes a sandbox that is not started yet: call `initialize()`, or use `CodeGenSandbox.create()`.
   *
   * @throws InvalidOptionError for a bad option (named in the message).
   */
  constructor(options?: CodeGenSandboxOptions) {
    this.options = resolveCodeGenSandboxOptions(options);
    this.store = new FileStore(this.options.limits);
    this.shell = new ShellHost(this.store, this.options);
  }

  /**
   * Makes a sandbox, writes its initial files and starts its shell.
   *
   * @throws InvalidOptionError for a bad option or an initial file the store refuses.
   * @example
   * const sandbox = await CodeGenSandbox.create({ timeoutMs: 10_000 });
   */
  static async create(options?: CodeGenSandboxOptions): Promise<CodeGenSandbox> {
    const sandbox = new CodeGenSandbox(options);
    await sandbox.initialize();
    return sandbox;
  }

  /** Writes the initial files and starts the shell's worker (once). */
  async initialize(): Promise<void> {
    if (this.state === "closed") throw new SandboxDisposedError("This CodeGenSandbox");
    if (this.state === "running") throw new CodeGenSandboxError("This CodeGenSandbox is already initialized; initialize() runs once (CodeGenSandbox.create() calls it).");
    for (const [path, content] of Object.entries(this.options.initialFiles)) {
      const n = normalizePath(path);
      if ("error" in n) throw new InvalidOptionError(`initialFiles["${path.slice(0, 80)}"]`, path, `an absolute path such as /data.csv (${n.error})`);
      const refused = this.store.writeFile(n.path, typeof content === "string" ? encoder.encode(content) : new Uint8Array(content));
      if (refused) throw new InvalidOptionError(`initialFiles["${path.slice(0, 80)}"]`, `${typeof content === "string" ? content.length : content.byteLength} bytes`, `a file the sandbox can hold (${refused.message})`);
    }
    await this.shell.warm();
    // close() may have run while the shell started (warm() then throws), or just after.
    if (this.isClosed()) throw new SandboxDisposedError("This CodeGenSandbox");
    this.state = "running";
  }

  /** True between `initialize()` and `close()`. */
  get isRunning(): boolean {
    return this.state === "running";
  }

  /** Stops the shell's worker and any program it runs; later calls throw `SandboxDisposedError`. */
  async close(): Promise<void> {
    this.state = "closed";
    await this.shell.close();
  }

  /**
   * Runs a command line in the sandbox (see docs/deepagents.md for the commands and limits).
   *
   * @example
   * await sandbox.execute("echo hi && python3 -c 'print(6*7)'"); // { output: "hi\n42\n", exitCode: 0, truncated: false }
   */
  async execute(command: string): Promise<ExecuteResponse> {
    this.assertOpen();
    if (typeof command !== "string" || command.trim() === "") {
      return { output: "Error: the command must be a non-empty string.", exitCode: 1, truncated: false };
    }
    return this.shell.execute(command);
  }

  /** Lists a directory (not recursive): files with sizes, directories with a trailing `/`. */
  ls(path: string): LsResult {
    this.assertOpen();
    const n = normalizePath(path || "/");
    if ("error" in n) return { error: `Invalid path '${path}': ${n.error}` };
    return { files: this.store.children(n.path).map(([p, e]) => info(p, e)) };
  }

  /**
   * Reads a text file by lines (`offset` 0-based, `limit` lines, default 500), with deepagents'
   * pagination fields; a binary file (by extension) is returned whole as bytes.
   */
  read(filePath: string, offset = 0, limit = 500): ReadResult {
    this.assertOpen();
    const found = this.file(filePath);
    if ("error" in found) return { error: found.error };
    const mimeType = mimeTypeOf(found.path);
    if (!isTextMime(mimeType)) return { content: new Uint8Array(found.entry.bytes), mimeType };
    // Only an empty file gets deepagents' notice; whitespace is content (its read_file tool
    // adds the notice for that itself).
    if (found.entry.bytes.byteLength === 0) return { content: EMPTY_FILE_NOTICE, mimeType };
    const start = Number.isFinite(offset) ? Math.max(0, Math.floor(offset)) : 0;
    const count = Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : 0;
    const page = pageOfLines(decoder.decode(found.entry.bytes), start, count);
    if (start >= page.totalLines) return { error: `Line offset ${start} exceeds file length (${page.totalLines} lines)` };
    if (page.lines === 0) return { content: "", mimeType };
    const endLine = start + page.lines;
    return {
      content: page.content,
      mimeType,
      totalLines: page.totalLines,
      startLine: start + 1,
      endLine,
      ...(endLine < page.totalLines ? { nextOffset: endLine } : {}),
    };
  }

  /** The file as deepagents' `FileDataV2`: text as a string, binary as bytes. */
  readRaw(filePath: string): ReadRawResult {
    this.assertOpen();
    const found = this.file(filePath);
    if ("error" in found) return { error: found.error };
    const mimeType = mimeTypeOf(found.path);
    const { bytes, createdMs, modifiedMs } = found.entry;
    return {
      data: {
        content: isTextMime(mimeType) ? decoder.decode(bytes) : new Uint8Array(bytes),
        mimeType,
        created_at: new Date(createdMs).toISOString(),
        modified_at: new Date(modifiedMs).toISOString(),
      },
    };
  }

  /**
   * Creates or replaces a file (and its directories). As in deepagents' backends, a binary file
   * (by extension) is given as base64.
   */
  write(filePath: string, content: string): WriteResult {
    this.assertOpen();
    const n = normalizePath(filePath);
    if ("error" in n) return { error: `Invalid path '${filePath}': ${n.error}` };
    let bytes: Uint8Array;
    if (isTextMime(mimeTypeOf(n.path))) bytes = encoder.encode(content);
    else {
      const decoded = decodeBase64(content);
      if (decoded === undefined) return { error: `Error writing file '${filePath}': a binary file (${mimeTypeOf(n.path)}) is written from base64 text, and this is not base64` };
      bytes = decoded;
    }
    const refused = this.store.writeFile(n.path, bytes);
    if (refused) return { error: `Error writing file '${filePath}': ${refused.message}` };
    return { path: filePath, filesUpdate: null };
  }

  /**
   * Replaces `oldString` by `newString`: exactly one occurrence, or all with `replaceAll`; the
   * errors are deepagents' own.
   */
  edit(filePath: string, oldString: string, newString: string, replaceAll = false): EditResult {
    this.assertOpen();
    const found = this.file(filePath, "Error: ");
    if ("error" in found) return { error: found.error };
    if (!isTextMime(mimeTypeOf(found.path))) return { error: `Error: File '${filePath}' is binary (${mimeTypeOf(found.path)}); edit_file changes text files` };
    const content = decoder.decode(found.entry.bytes);
    let next: string;
    let occurrences: number;
    if (content === "" && oldString === "") {
      next = newString;
      occurrences = 0;
    } else if (oldString === "") {
      return { error: "Error: oldString cannot be empty when file has content" };
    } else {
      occurrences = countOccurrences(content, oldString);
      const quoted = oldString.length > MAX_QUOTED_CHARS ? `${oldString.slice(0, MAX_QUOTED_CHARS)}…` : oldString;
      if (occurrences === 0) return { error: `Error: String not found in file: '${quoted}'` };
      if (occurrences > 1 && !replaceAll) {
        return { error: `Error: String '${quoted}' has multiple occurrences (appears ${occurrences} times) in file. Use replace_all=True to replace all instances, or provide a more specific string with surrounding context.` };
      }
      // The size of the result first: a short oldString replaced everywhere by a long one
      // would otherwise build a string of hundreds of megabytes on the host to refuse it.
      const bytes = found.entry.bytes.byteLength + occurrences * (Buffer.byteLength(newString) - Buffer.byteLength(oldString));
      if (bytes > this.store.limits.maxFileBytes) {
        return { error: `Error editing file '${filePath}': the file would hold ${bytes} bytes, over the ${this.store.limits.maxFileBytes}-byte maxFileBytes limit` };
      }
      next = content.split(oldString).join(newString);
    }
    const refused = this.store.writeFile(found.path, encoder.encode(next));
    if (refused) return { error: `Error editing file '${filePath}': ${refused.message}` };
    return { path: filePath, filesUpdate: null, occurrences };
  }

  /**
   * Searches text files for a literal string (not a regular expression), under `path` (a
   * directory, or one file), optionally only in files whose name matches `glob`.
   */
  grep(pattern: string, path: string | null = "/", glob: string | null = null, maxCount: number | null = null): GrepResult {
    this.assertOpen();
    if (typeof pattern !== "string") return { error: "the pattern must be a string" };
    const n = normalizePath(path || "/");
    if ("error" in n) return { error: `Invalid path '${path}': ${n.error}` };
    const filter = glob ? compileGlob(glob) : undefined;
    if (filter && "error" in filter) return { error: `Invalid glob '${glob}': ${filter.error}` };
    // A filter ending in `/` names directories, and grep searches files.
    if (glob && /[^/]\/+$/.test(glob)) return { matches: [] };
    // The host holds every match it returns: at most MAX_GREP_MATCHES, whatever maxCount asks.
    const wanted = maxCount != null && Number.isFinite(maxCount) ? Math.max(0, Math.floor(maxCount)) : Infinity;
    const limit = Math.min(wanted, MAX_GREP_MATCHES);
    const matches: GrepMatch[] = [];
    try {
      for (const [p, entry] of this.store.within(n.path)) {
        if (entry.kind !== "file" || !isTextMime(mimeTypeOf(p))) continue;
        if (filter && !filter.matches(p.slice(p.lastIndexOf("/") + 1))) continue;
        for (const [line, text] of linesContaining(decoder.decode(entry.bytes), pattern)) {
          if (matches.length === limit) return { matches, truncated: true };
          matches.push({ path: p, line, text });
        }
      }
    } catch (error) {
      if (error instanceof GlobBudgetError) return { error: `Invalid glob '${glob}': ${error.message}` };
      throw error;
    }
    return { matches };
  }

  /**
   * Files and directories under `path` whose path relative to it matches `pattern` (an
   * absolute pattern is matched against absolute paths). Paths are absolute, sorted; directories
   * end with `/`.
   */
  glob(pattern: string, path = "/"): GlobResult {
    this.assertOpen();
    if (typeof pattern !== "string") return { error: "the pattern must be a string" };
    const n = normalizePath(path || "/");
    if ("error" in n) return { error: `Invalid path '${path}': ${n.error}` };
    const matcher = compileGlob(pattern);
    if ("error" in matcher) return { error: `Invalid glob '${pattern}': ${matcher.error}` };
    const base = n.path;
    const absolute = pattern.startsWith("/");
    // A pattern ending in `/` names directories only, as in a shell.
    const dirsOnly = /[^/]\/+$/.test(pattern);
    const files: FileInfo[] = [];
    try {
      const own = this.store.get(base);
      if (own?.kind === "file") {
        // A file as the base is matched by its own name (as deepagents' StateBackend does).
        if (!dirsOnly && matcher.matches(absolute ? base : base.slice(base.lastIndexOf("/") + 1))) files.push(info(base, own));
        return { files };
      }
      for (const [p, entry] of this.store.within(base)) {
        if (p === base || (dirsOnly && entry.kind !== "dir")) continue;
        const subject = absolute ? p : p.slice(base === "/" ? 1 : base.length + 1);
        if (matcher.matches(subject)) files.push(info(p, entry));
      }
    } catch (error) {
      if (error instanceof GlobBudgetError) return { error: `Invalid glob '${pattern}': ${error.message}` };
      throw error;
    }
    return { files };
  }

  /** Removes a file, or a directory with everything in it. */
  delete(filePath: string): DeleteResult {
    this.assertOpen();
    const n = normalizePath(filePath);
    if ("error" in n) return { error: `Invalid path '${filePath}': ${n.error}` };
    if (this.store.remove(n.path).length === 0) return { error: `Error: File '${filePath}' not found` };
    return { path: filePath, filesUpdate: null };
  }

  /** Writes files as raw bytes (any extension); one response per file, in order. */
  uploadFiles(files: Array<[string, Uint8Array]>): FileUploadResponse[] {
    this.assertOpen();
    return files.map(([path, content]) => {
      const n = normalizePath(path);
      if ("error" in n || !(content instanceof Uint8Array)) return { path, error: "invalid_path" };
      const refused = this.store.writeFile(n.path, new Uint8Array(content));
      if (!refused) return { path, error: null };
      return { path, error: refused.code === "is_directory" ? "is_directory" : refused.code === "invalid_path" ? "invalid_path" : "permission_denied" };
    });
  }

  /** Reads files as raw bytes; one response per path, in order. */
  downloadFiles(paths: string[]): FileDownloadResponse[] {
    this.assertOpen();
    return paths.map((path) => {
      const n = normalizePath(path);
      if ("error" in n) return { path, content: null, error: "invalid_path" };
      if (this.store.isDirectory(n.path)) return { path, content: null, error: "is_directory" };
      const entry = this.store.get(n.path);
      if (entry?.kind !== "file") return { path, content: null, error: "file_not_found" };
      return { path, content: new Uint8Array(entry.bytes), error: null };
    });
  }

  private file(filePath: string, prefix = ""): { path: string; entry: Extract<StoreEntry, { kind: "file" }> } | { error: string } {
    const n = normalizePath(filePath);
    if ("error" in n) return { error: `${prefix}Invalid path '${filePath}': ${n.error}` };
    if (this.store.isDirectory(n.path)) return { error: `${prefix}'${filePath}' is a directory, not a file (list it with ls)` };
    const entry = this.store.get(n.path);
    if (entry?.kind !== "file") return { error: `${prefix}File '${filePath}' not found` };
    return { path: n.path, entry };
  }

  private isClosed(): boolean {
    return this.state === "closed";
  }

  private assertOpen(): void {
    if (this.state === "closed") throw new SandboxDisposedError("This CodeGenSandbox");
  }
}

function info(path: string, entry: StoreEntry): FileInfo {
  return entry.kind === "dir"
    ? { path: `${path}/`, is_dir: true, size: 0, modified_at: new Date(entry.modifiedMs).toISOString() }
    : { path, is_dir: false, size: entry.bytes.byteLength, modified_at: new Date(entry.modifiedMs).toISOString() };
}

/** Non-overlapping occurrences of a non-empty `needle`, as `split` counts them. */
function countOccurrences(text: string, needle: string): number {
  let n = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) n++;
  return n;
}

/**
 * Lines `start` to `start + count` of `text` (split at `\n`, a final newline ends the last
 * line) and how many there are, found by scanning: no array of every line of an 8 MiB file.
 */
function pageOfLines(text: string, start: number, count: number): { content: string; lines: number; totalLines: number } {
  let totalLines = 0;
  let from = -1;
  let to = -1;
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf("\n", at);
    const end = nl === -1 ? text.length : nl;
    if (totalLines === start) from = at;
    totalLines++;
    if (totalLines === start + count) to = end;
    at = end + 1;
  }
  if (from === -1 || count === 0) return { content: "", lines: 0, totalLines };
  const lines = Math.min(count, totalLines - start);
  return { content: text.slice(from, to === -1 ? (text.endsWith("\n") ? text.length - 1 : text.length) : to), lines, totalLines };
}

/**
 * The lines of `text` that contain `pattern` literally, as `[lineNumber, line]`, as
 * `text.split("\n")` numbers them (so `""` matches every line, the empty one after a final
 * newline too), found with `indexOf` rather than by splitting.
 */
function* linesContaining(text: string, pattern: string): Generator<[number, string]> {
  if (pattern.includes("\n")) return;
  let line = 1;
  let counted = 0;
  let from = 0;
  while (from <= text.length) {
    const hit = pattern === "" ? from : text.indexOf(pattern, from);
    if (hit === -1) return;
    // (lastIndexOf with a negative start still looks at index 0.)
    const lineStart = hit === 0 ? 0 : text.lastIndexOf("\n", hit - 1) + 1;
    for (let nl = text.indexOf("\n", counted); nl !== -1 && nl < lineStart; nl = text.indexOf("\n", counted)) {
      line++;
      counted = nl + 1;
    }
    const nl = text.indexOf("\n", hit);
    const lineEnd = nl === -1 ? text.length : nl;
    yield [line, text.slice(lineStart, lineEnd)];
    from = lineEnd + 1;
  }
}

/** Strict base64 (or a `data:` URL), as deepagents sends binary content; `undefined` when it is not. */
function decodeBase64(text: string): Uint8Array | undefined {
  const trimmed = text.trim();
  const payload = (trimmed.startsWith("data:") ? trimmed.slice(trimmed.indexOf(",") + 1) : trimmed).replace(/\s/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(payload) || payload.length % 4 === 1) return undefined;
  return new Uint8Array(Buffer.from(payload, "base64"));
}

