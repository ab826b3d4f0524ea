/**
 * `python3`, `node`, `tsx`/`ts-node` and `tsc` of a command line, run on the host by the
 * package's own engines (Pyodide in a locked-down Deno process; QuickJS on worker threads; the
 * TypeScript checker), never by a host binary. The sandbox's files go in as the run's `files`
 * and what the program wrote comes back. Paths: the store's root `/` is the program's working
 * directory tree (Python's `/home/pyodide`), the shell's `cd` is followed, and absolute paths
 * (`/notes.txt`) work too (Python through links at its root, except under Pyodide's own `/dev`,
 * `/home`, `/lib`, `/proc`, `/tmp`; JavaScript through a `files` API that takes them).
 * Outcomes are shell exit codes: the program's status, 124 at the time limit, 137 out of memory.
 */
import { createRequire } from "node:module";
import type { ExecutionResult, Language, RunOptions, Sandbox } from "../sandbox/types.js";
import { runCode } from "../sandbox/run-code.js";
import { isWithin, normalizePath } from "./file-store.js";
import type { ProgramOutcome, ProgramRequest } from "./protocol.js";
import type { TypeCheckThread } from "./type-check-thread.js";
import { sameBytes } from "../common/bytes.js";

/** What a program run may use, set by the `CodeGenSandbox` that owns the command. */
export interface ProgramLimits {
  /** Milliseconds left of the `execute` call. */
  timeoutMs: number;
  memoryLimitBytes: number;
  maxOutputBytes: number;
  maxFileBytes: number;
  maxTotalFileBytes: number;
  sandbox?: Sandbox;
  /** The type checker `tsc` uses (a thread of the sandbox's own, never the host thread). */
  typeChecker: TypeCheckThread;
  /** Heap of the type checker's thread, for the message when it runs out. */
  typeCheckerHeapBytes: number;
  signal: AbortSignal;
}

/** Time kept back from a program so the command line can report its end before its own deadline. */
const PROGRAM_MARGIN_MS = 500;
/** Most bytes of TypeScript `tsc` checks in one call (bounds the checker thread's work and heap). */
const MAX_TSC_INPUT_BYTES = 1024 * 1024;
/** Most files `tsc` checks in one call. */
const MAX_TSC_FILES = 200;

const decoder = new TextDecoder();

/**
 * Runs one program a command line started and says how it ended. Never throws for anything the
 * program does.
 *
 * @example
 * const outcome = await runProgram({ program: "python", command: "python3", args: ["-c", "print(1)"], cwd: "/", env: {}, stdin: "", files: [] }, limits);
 * outcome.stdout; // "1\n"
 */
export async function runProgram(request: ProgramRequest, limits: ProgramLimits): Promise<ProgramOutcome> {
  const files = new Map(request.files);
  switch (request.program) {
    case "python":
      return runPython(request, files, limits);
    case "node":
    case "typescript":
      return runJavaScript(request, files, limits);
    case "tsc":
      return typeCheck(request, files, limits);
  }
}

/** A finished program that touched no file. */
function done(command: string, exitCode: number, stdout = "", stderr = ""): ProgramOutcome {
  return { stdout, stderr: stderr && !stderr.endsWith("\n") ? `${stderr}\n` : stderr, exitCode, truncated: false, written: [], removed: [] };
}

/** Resolves a path typed in the shell against its working directory. */
function resolveFrom(cwd: string, path: string): string | undefined {
  const joined = path.startsWith("/") ? path : `${cwd === "/" ? "" : cwd}/${path}`;
  const parts: string[] = [];
  for (const part of joined.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  const n = normalizePath("/" + parts.join("/"));
  return "path" in n ? n.path : undefined;
}

// ---------------------------------------------------------------------------------------------
// Python

const PYTHON_VERSION = "Python 3.14 (Pyodide 314.0.7, codegen-sandbox)";
const PYTHON_USAGE = "usage: python3 [-c cmd | file | -] [arg] ...\n  (no -m, no pip and no interactive interpreter in this sandbox)\n";
/** Flags of CPython that change nothing here; they are accepted and ignored. */
const PYTHON_NOOP_FLAGS = new Set(["-u", "-B", "-E", "-s", "-S", "-I", "-O", "-OO", "-q", "-b", "-bb", "-d", "-P", "-R"]);

/**
 * Runs the program inside the engine's namespace so that the sandbox's shell conventions hold:
 * argv, stdin, the working directory, links for absolute paths, `sys.exit` codes, and a
 * traceback of the program's own frames on stderr. Its result is the exit code. The program's
 * globals are a fresh namespace whose builtins are the engine's (its import policy applies).
 */
const PYTHON_WRAPPER = String.raw`
def __codegen_main(a):
    import io, os, shutil, sys, traceback
    root = "/home/pyodide"
    base = set(os.listdir("/"))
    linked = []
    for name in a["top"]:
        if name not in base:
            try:
                os.symlink(root + "/" + name, "/" + name)
                linked.append(name)
            except OSError:
                pass
    for d in a["dirs"]:
        os.makedirs(root + d, exist_ok=True)
    sys.argv = list(a["argv"])
    sys.stdin = io.StringIO(a["stdin"])
    os.environ.update(a["env"])
    try:
        os.chdir(root + a["cwd"])
    except OSError:
        pass
    g = {"__name__": "__main__", "__builtins__": __builtins__}
    if a["file"] is not None:
        g["__file__"] = a["file"]
    code = 0
    try:
        exec(compile(a["source"], a["name"], "exec"), g)
    except SystemExit as e:
        c = e.code
        if c is None:
            code = 0
        elif isinstance(c, int):
            code = c & 255
        else:
            print(c, file=sys.stderr)
            code = 1
    except (KeyboardInterrupt, MemoryError):
        raise
    except BaseException as e:
        __codegen_traceback(e, traceback, sys)
        code = 1
    finally:
        try:
            sys.stdout.flush()
            os.chdir(root)
            present = set(os.listdir("/"))
            # What the program did at the root goes into the working directory, where the
            # engine reads files back: a new entry moves in, a renamed link moves its file.
            for name in present - base:
                p = "/" + name
                dest = root + "/" + name
                if os.path.islink(p):
                    target = os.readlink(p)
                    os.unlink(p)
                    if name not in linked and target.startswith(root + "/") and os.path.lexists(target) and not os.path.lexists(dest):
                        os.rename(target, dest)
                    continue
                if os.path.isdir(dest) and not os.path.islink(dest):
                    shutil.rmtree(dest)
                elif os.path.lexists(dest):
                    os.remove(dest)
                shutil.move(p, dest)
            # A link the program removed: it removed the file.
            for name in linked:
                dest = root + "/" + name
                if name not in present and os.path.lexists(dest):
                    if os.path.isdir(dest) and not os.path.islink(dest):
                        shutil.rmtree(dest)
                    else:
                        os.remove(dest)
        except OSError:
            pass
    return code

def __codegen_traceback(e, traceback, sys):
    # The program's own frames and exception names only: the engine's helpers (frames in
    # "<exec>", names starting "_cs_") are not the program's, and a helper's exception class
    # shows as the first public class it derives from (ImportError, not _CsForbiddenImport).
    def internal(cls):
        return cls.__name__.startswith(("_Cs", "_cs_", "__codegen")) or str(cls.__module__).startswith("_cs_")
    def clean(te, seen):
        if te is None or id(te) in seen:
            return
        seen.add(id(te))
        te.stack = traceback.StackSummary.from_list([f for f in te.stack if f.filename != "<exec>" and not f.name.startswith(("_cs_", "__codegen"))])
        clean(te.__cause__, seen)
        clean(te.__context__, seen)
        for inner in te.exceptions or ():
            clean(inner, seen)
    try:
        te = traceback.TracebackException(type(e), e, e.__traceback__.tb_next)
        clean(te, set())
        if internal(type(e)):
            public = next((c for c in type(e).__mro__ if not internal(c)), Exception)
            # Python 3.14 derives exc_type_str from these two.
            te.exc_type_qualname = public.__qualname__
            te.exc_type_module = public.__module__
        sys.stderr.write("".join(te.format()))
    except Exception:
        traceback.print_exception(type(e), e, e.__traceback__.tb_next)

__codegen_main(__codegen_shell)
`;

async function runPython(request: ProgramRequest, files: Map<string, Uint8Array>, limits: ProgramLimits): Promise<ProgramOutcome> {
  const cmd = request.command;
  const args = request.args;
  let i = 0;
  while (i < args.length && PYTHON_NOOP_FLAGS.has(args[i]!)) i++;
  const first = args[i];
  let source: string;
  let name: string;
  let file: string | null = null;
  let argv: string[];
  let stdin = request.stdin;
  if (first === "--version" || first === "-V") return done(cmd, 0, `${PYTHON_VERSION}\n`);
  if (first === "-h" || first === "--help") return done(cmd, 0, PYTHON_USAGE);
  if (first === "-c") {
    if (args[i + 1] === undefined) return done(cmd, 2, "", `${cmd}: argument expected for the -c option\n${PYTHON_USAGE}`);
    source = args[i + 1]!;
    name = "<string>";
    argv = ["-c", ...args.slice(i + 2)];
  } else if (first === "-m") {
    return done(cmd, 2, "", `${cmd}: -m is not available in this sandbox (no pip, no installed tools); run a file (${cmd} app.py) or code (${cmd} -c '...')`);
  } else if (first === "-W" || first === "-X") {
    return done(cmd, 2, "", `${cmd}: option ${first} is not supported here\n${PYTHON_USAGE}`);
  } else if (first !== undefined && first.startsWith("-") && first !== "-") {
    return done(cmd, 2, "", `${cmd}: unknown option ${first}\n${PYTHON_USAGE}`);
  } else if (first === "-" || (first === undefined && stdin !== "")) {
    source = stdin;
    stdin = "";
    name = "<stdin>";
    argv = ["-", ...args.slice(i + 1)];
  } else if (first === undefined) {
    return done(cmd, 2, "", `${cmd}: there is no interactive interpreter here; pass a file (${cmd} app.py), code (${cmd} -c '...') or pipe the program in`);
  } else {
    const path = resolveFrom(request.cwd, first);
    const bytes = path === undefined ? undefined : files.get(path);
    if (bytes === undefined) return done(cmd, 2, "", `${cmd}: can't open file '${path ?? first}': [Errno 2] No such file or directory`);
    source = decoder.decode(bytes);
    name = first;
    file = first;
    argv = args.slice(i);
  }
  const tops = new Set<string>();
  const dirs = new Set<string>();
  for (const path of files.keys()) {
    tops.add(path.split("/")[1]!);
    for (let d = path.slice(0, path.lastIndexOf("/")); d !== ""; d = d.slice(0, d.lastIndexOf("/"))) dirs.add(d);
  }
  const shell = {
    source,
    name,
    file,
    argv,
    stdin,
    env: request.env,
    cwd: request.cwd === "/" ? "" : request.cwd,
    top: [...tops],
    dirs: [...dirs],
  };
  const result = await run(PYTHON_WRAPPER, "python", { __codegen_shell: shell }, files, limits);
  const exitCode = result.status === "success" && typeof result.result === "number" ? result.result : undefined;
  return outcome(cmd, result, files, exitCode, limits);
}

// ---------------------------------------------------------------------------------------------
// JavaScript and TypeScript

const JS_USAGE = "usage: node [-e code | -p code | file | -] [arg] ...\n  (JavaScript in the sandbox's QuickJS engine: ECMAScript, console, files and process.argv/env; no Node modules, no require or import)\n";

/**
 * Code put before the program's first line, on that same line (so every line number, in an
 * error and in the program's own `Error().stack`, is the program's; only columns of line 1 move,
 * and the shell's messages leave them out): `process` (argv, env, cwd(), exit()) and a `files`
 * API that takes absolute and shell-relative paths.
 */
const JS_PRELUDE = [
  "(()=>{const a=globalThis.__codegen_shell;try{delete globalThis.__codegen_shell}catch{}",
  "const cwd=a.cwd;const norm=(p)=>{if(typeof p!=='string')return p;const s=[];for(const x of (p.startsWith('/')?p:cwd+'/'+p).split('/')){if(x===''||x==='.')continue;if(x==='..')s.pop();else s.push(x);}return s.join('/');};",
  "const f=globalThis.files;if(f){const api={read:(p)=>f.read(norm(p)),readBytes:(p)=>f.readBytes(norm(p)),write:(p,d)=>f.write(norm(p),d),list:()=>f.list().map((k)=>'/'+k),exists:(p)=>f.exists(norm(p)),delete:(p)=>f.delete(norm(p))};Object.defineProperty(globalThis,'files',{value:Object.freeze(api),configurable:true});}",
  "const exit=(c)=>{const n=Number(c??0)|0;const e=new Error('process.exit('+n+')');e.name='ProcessExit';throw e;};",
  "Object.defineProperty(globalThis,'process',{value:Object.freeze({argv:a.argv,env:a.env,platform:'codegen-sandbox',cwd:()=>cwd,exit}),configurable:true,writable:true});})();",
].join("");

async function runJavaScript(request: ProgramRequest, files: Map<string, Uint8Array>, limits: ProgramLimits): Promise<ProgramOutcome> {
  const cmd = request.command;
  const args = request.args;
  let i = 0;
  while (i < args.length && /^--(no-|experimental|enable-|disable-|trace|max-old|stack-size|input-type)/.test(args[i]!)) i++;
  const first = args[i];
  let source: string;
  let display: string;
  let print = false;
  let argv: string[];
  let language: Language = request.program === "typescript" ? "typescript" : "javascript";
  if (first === "--version" || first === "-v") {
    return done(cmd, 0, `${cmd}: the sandbox's JavaScript engine (QuickJS; TypeScript with types stripped), not Node.js\n`);
  }
  if (first === "-h" || first === "--help") return done(cmd, 0, JS_USAGE);
  if (first === "-r" || first === "--require" || first === "--import" || first === "--loader") {
    return done(cmd, 9, "", `${cmd}: ${first} is not available: the sandbox has no modules`);
  }
  if (first === "-e" || first === "--eval" || first === "-p" || first === "--print") {
    if (args[i + 1] === undefined) return done(cmd, 9, "", `${cmd}: ${first} requires an argument`);
    source = args[i + 1]!;
    display = request.program === "typescript" ? "[eval].ts" : "[eval]";
    print = first === "-p" || first === "--print";
    argv = [cmd, ...args.slice(i + 2)];
  } else if (first !== undefined && first.startsWith("-") && first !== "-") {
    return done(cmd, 9, "", `${cmd}: bad option: ${first}\n${JS_USAGE}`);
  } else if (first === "-" || (first === undefined && request.stdin !== "")) {
    source = request.stdin;
    display = "[stdin]";
    argv = [cmd, ...args.slice(i + 1)];
  } else if (first === undefined) {
    return done(cmd, 9, "", `${cmd}: there is no interactive prompt here; pass a file (${cmd} app.js), code (${cmd} -e '...') or pipe the program in`);
  } else {
    const path = resolveFrom(request.cwd, first);
    const bytes = path === undefined ? undefined : files.get(path);
    if (bytes === undefined) return done(cmd, 1, "", `${cmd}: Cannot find module '${path ?? first}'`);
    source = decoder.decode(bytes);
    display = first;
    if (/\.(ts|mts|cts|tsx)$/.test(first)) language = "typescript";
    argv = [cmd, path!, ...args.slice(i + 1)];
  }
  // A hashbang line would stop the prelude from parsing; the line stays (empty) so numbers hold.
  const body = source.startsWith("#!") ? source.slice(source.search(/\n|$/)) : source;
  const shell = { argv, env: request.env, cwd: request.cwd };
  const result = await run(`${JS_PRELUDE} ${body}`, language, { __codegen_shell: shell }, files, limits);
  let stdout = result.stdout;
  if (print && result.status === "success") stdout += `${typeof result.result === "string" ? result.result : JSON.stringify(result.result ?? null)}\n`;
  const exitMatch = result.error?.name === "ProcessExit" ? /process\.exit\((-?\d+)\)/.exec(result.error.message) : null;
  const exitCode = result.status === "success" ? 0 : exitMatch ? Number(exitMatch[1]) & 255 : undefined;
  return outcome(cmd, { ...result, stdout }, files, exitCode, limits, display);
}

// ---------------------------------------------------------------------------------------------
// tsc

const TS_FILE = /\.(ts|tsx|mts|cts)$/;

async function typeCheck(request: ProgramRequest, files: Map<string, Uint8Array>, limits: ProgramLimits): Promise<ProgramOutcome> {
  const cmd = request.command;
  const args = request.args;
  if (args.includes("--version") || args.includes("-v")) {
    // The version without loading the compiler into the host thread.
    const { version } = createRequire(import.meta.url)("typescript/package.json") as { version: string };
    return done(cmd, 0, `Version ${version}\n`);
  }
  if (args.includes("-h") || args.includes("--help")) {
    return done(cmd, 0, "usage: tsc --noEmit [file.ts ...]\n  Type-checks each file as the sandbox runs it (no emit; run TypeScript with tsx file.ts)\n");
  }
  const named: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "-p" || arg === "--project" || /^--(target|module|lib|moduleResolution|jsx|outDir|rootDir)$/.test(arg)) i++;
    else if (!arg.startsWith("-")) named.push(arg);
  }
  const targets: Array<[string, string]> = [];
  if (named.length > 0) {
    for (const arg of named) {
      const path = resolveFrom(request.cwd, arg);
      if (path === undefined || !files.has(path)) return done(cmd, 1, `error TS6053: File '${arg}' not found.\n`);
      targets.push([arg, path]);
    }
  } else {
    for (const path of [...files.keys()].sort()) {
      if (!isWithin(path, request.cwd) || !TS_FILE.test(path) || path.endsWith(".d.ts") || path.includes("/node_modules/")) continue;
      targets.push([displayPath(request.cwd, path), path]);
    }
    if (targets.length === 0) return done(cmd, 1, "", `${cmd}: no TypeScript files under ${request.cwd}; pass files (tsc --noEmit app.ts)`);
  }
  if (targets.length > MAX_TSC_FILES) return done(cmd, 1, "", `${cmd}: ${targets.length} files to check; at most ${MAX_TSC_FILES} per call (pass the files to check)`);
  const bytes = targets.reduce((n, [, path]) => n + files.get(path)!.byteLength, 0);
  if (bytes > MAX_TSC_INPUT_BYTES) return done(cmd, 1, "", `${cmd}: ${bytes} bytes of TypeScript to check; at most ${MAX_TSC_INPUT_BYTES} per call`);
  const check = await limits.typeChecker.check(targets.map(([, path]) => decoder.decode(files.get(path))), PROCESS_DECLARATION, 50, limits.signal);
  if (check.kind === "stopped") return done(cmd, 130, "", `${cmd}: the type check was stopped`);
  if (check.kind === "out_of_memory") return done(cmd, 137, "", `${cmd}: the type checker ran out of memory (its thread may use ${limits.typeCheckerHeapBytes} bytes, shellMemoryLimitBytes)`);
  if (check.kind === "failed") return done(cmd, 126, "", `${cmd}: the type checker failed: ${check.message}`);
  const lines: string[] = [];
  const failed = new Set<string>();
  targets.forEach(([shown], i) => {
    const diagnostics = check.results[i]!;
    if (diagnostics.length > 0) failed.add(shown);
    for (const d of diagnostics) lines.push(`${shown}(${d.line},${d.column}): error TS${d.code}: ${d.message}`);
  });
  if (lines.length === 0) return done(cmd, 0, args.includes("--noEmit") ? "" : "(no JavaScript emitted: this sandbox runs TypeScript directly with tsx)\n");
  const summary = `\nFound ${lines.length} error${lines.length === 1 ? "" : "s"} in ${failed.size} file${failed.size === 1 ? "" : "s"}.\n`;
  return done(cmd, 2, `${lines.join("\n")}\n${summary}`);
}

/** What `tsc` is told of the `process` the sandbox's `node` gives a program. */
const PROCESS_DECLARATION = "declare const process: { readonly argv: string[]; readonly env: Record<string, string>; readonly platform: string; cwd(): string; exit(code?: number): never };";

function displayPath(cwd: string, path: string): string {
  if (cwd === "/") return path.slice(1);
  return path.startsWith(cwd + "/") ? path.slice(cwd.length + 1) : path;
}

// ---------------------------------------------------------------------------------------------
// Running and mapping outcomes

async function run(code: string, language: Language, globals: RunOptions["globals"], files: Map<string, Uint8Array>, limits: ProgramLimits): Promise<ExecutionResult> {
  const given: Record<string, Uint8Array> = {};
  // The engines take relative paths of at most 1024 characters without backslashes; a file
  // named otherwise stays in the store, unseen by programs.
  for (const [path, bytes] of files) if (path.length <= 1024 && !path.includes("\\")) given[path.slice(1)] = bytes;
  const options: RunOptions = {
    language,
    timeoutMs: Math.max(1, limits.timeoutMs - PROGRAM_MARGIN_MS),
    memoryLimitBytes: limits.memoryLimitBytes,
    maxOutputBytes: limits.maxOutputBytes,
    globals,
    files: given,
    maxFileBytes: limits.maxFileBytes,
    maxTotalFileBytes: limits.maxTotalFileBytes,
    signal: limits.signal,
  };
  return limits.sandbox ? limits.sandbox.run(code, options) : runCode(code, options);
}

/** The shell's view of a finished run: exit code, output with what happened, file changes. */
function outcome(
  cmd: string,
  result: ExecutionResult,
  given: Map<string, Uint8Array>,
  exitCode: number | undefined,
  limits: ProgramLimits,
  display?: string,
): ProgramOutcome {
  let stderr = result.stderr;
  let code = exitCode;
  const say = (text: string): void => {
    stderr += `${stderr === "" || stderr.endsWith("\n") ? "" : "\n"}${text}\n`;
  };
  switch (result.status) {
    case "timeout":
      code = 124;
      say(`${cmd}: stopped at the time limit (${Math.max(1, Math.round(limits.timeoutMs - PROGRAM_MARGIN_MS))} ms were left of the command's timeoutMs)`);
      break;
    case "memory_limit":
      code = 137;
      say(`${cmd}: out of memory (the program may use ${limits.memoryLimitBytes} bytes, memoryLimitBytes)`);
      break;
    case "output_limit":
      code = 1;
      say(`${cmd}: ${result.error?.message ?? `output passed ${limits.maxOutputBytes} bytes (maxOutputBytes); the program was stopped`}`);
      break;
    case "cancelled":
      code = 130;
      say(`${cmd}: cancelled`);
      break;
    case "success":
      code ??= 0;
      break;
    default:
      if (code === undefined) {
        code = 1;
        if (result.error) say(formatError(result, display ?? cmd));
      }
  }
  const written: Array<[string, Uint8Array]> = [];
  const removed: string[] = [];
  if (result.files) {
    const seen = new Set<string>();
    for (const [key, bytes] of Object.entries(result.files)) {
      const path = "/" + key;
      seen.add(path);
      const before = given.get(path);
      if (before === undefined || !sameBytes(before, bytes)) written.push([path, bytes]);
    }
    for (const path of given.keys()) if (!seen.has(path) && path.length <= 1024 && !path.includes("\\")) removed.push(path);
  }
  return { stdout: result.stdout, stderr, exitCode: code, truncated: result.outputTruncated, written, removed };
}

/** `Name: message` and where, in the program's own lines (and columns, but on line 1). */
function formatError(result: ExecutionResult, file: string): string {
  const error = result.error!;
  if (result.language === "python" && error.stack) return error.stack;
  const line = error.line;
  // Line 1 holds the prelude before the program, and the engine's columns there do not move back
  // by the prelude's length (measured: 25 more): the line alone is right.
  const column = line === 1 ? undefined : error.column;
  const where = line !== undefined ? `\n    at ${file}:${line}${column !== undefined ? `:${column}` : ""}` : "";
  return `${error.name}: ${error.message}${where}`;
}

