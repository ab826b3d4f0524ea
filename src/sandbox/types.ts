/**
 * The public contract of the sandbox: what a run takes and what it gives back.
 * Every engine (QuickJS for JavaScript/TypeScript, Pyodide-in-Deno for Python) returns the
 * same `ExecutionResult`, so callers never care which engine ran the code.
 */

/** A value that survives `JSON.stringify` / `JSON.parse` unchanged. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/** Languages the sandbox runs. */
export type Language = "javascript" | "typescript" | "python";

/** Every language `runCode` accepts, in a stable order (for schemas and error messages). */
export const LANGUAGES: readonly Language[] = ["javascript", "typescript", "python"];

/**
 * How a run ended. Failures of the user's code are statuses, never exceptions.
 * - `success`: the program finished; `result` holds its value.
 * - `syntax_error`: the code does not parse (found before running).
 * - `runtime_error`: the code threw, or an engine fault was caused by the code.
 * - `timeout`: the run passed `timeoutMs` (including time waiting on host functions).
 * - `memory_limit`: the run passed `memoryLimitBytes`.
 * - `output_limit`: console output passed `maxOutputBytes`; output up to the limit is kept.
 * - `forbidden`: the code imports a module the sandbox does not provide (found before running).
 * - `cancelled`: the caller aborted the run through `signal`; the worker was freed or replaced.
 */
export type ExecutionStatus =
  | "success"
  | "syntax_error"
  | "runtime_error"
  | "timeout"
  | "memory_limit"
  | "output_limit"
  | "forbidden"
  | "cancelled";

/** Every status, in a stable order (for summaries and schemas). */
export const EXECUTION_STATUSES: readonly ExecutionStatus[] = [
  "success",
  "syntax_error",
  "runtime_error",
  "timeout",
  "memory_limit",
  "output_limit",
  "forbidden",
  "cancelled",
];

/** An error raised by the user's code (or a limit it hit), located in the user's source. */
export interface ExecutionError {
  /** Error class, e.g. `ReferenceError`, `SyntaxError`, `ZeroDivisionError`, `TimeoutError`. */
  name: string;
  message: string;
  /** 1-based line in the code the caller passed (the TypeScript source for TypeScript). */
  line?: number;
  /** 1-based column in that line, when the engine knows it. */
  column?: number;
  /** A short stack or traceback that points only at the user's code. */
  stack?: string;
}

/** What one run of code produced. */
export interface ExecutionResult {
  status: ExecutionStatus;
  /** `console.log`/`info`/`debug` (JS) or `sys.stdout` (Python) output, capped. */
  stdout: string;
  /** `console.error`/`warn` (JS) or `sys.stderr` (Python) output, capped. */
  stderr: string;
  /** True when output was cut at `maxOutputBytes`. */
  outputTruncated: boolean;
  /**
   * The JSON value of the program's result: the last expression of a script, the awaited
   * `export default` of a module, or the last expression of a Python cell. `undefined` when
   * the program has none or the value is not representable as JSON.
   */
  result?: JsonValue;
  error?: ExecutionError;
  /** Wall time of the run, from start of execution to its end, in milliseconds. */
  durationMs: number;
  language: Language;
  /** Host function calls the run started (0 when it was given none). */
  hostCalls?: number;
  /** Present when the run was given `tests`: how they went, apart from the program. */
  tests?: TestsOutcome;
  /**
   * Present when the run was given `files`: the complete file set at the end of the run
   * (paths relative to the sandbox's working directory, contents as bytes).
   */
  files?: Record<string, Uint8Array>;
  /**
   * Present when the run was given `inputs` without `clockReads`: the clock readings the code
   * made, in order (epoch milliseconds), to give back as `inputs.clockReads` when the run is
   * repeated.
   */
  clockReads?: number[];
}

/**
 * What a run draws on besides its code and its host functions, fixed so the run can be repeated
 * exactly (code mode replays a thread's cells with them).
 * - `seed`: the run's randomness (JavaScript `Math.random`; Python `random`, `os.urandom`,
 *   `uuid4`, `secrets`) comes from this seed.
 * - `clockReads`: the clock readings to give, in order (`Date.now()`, `new Date()`; Python
 *   `time.time()`, `datetime.now()`, `perf_counter()` ...). Without it the run reads the real
 *   clock and `result.clockReads` lists what it read. Past `MAX_RECORDED_CLOCK_READS` readings
 *   (or past the given list) the clock advances by 1 ms per reading, so a repeated run reads
 *   exactly what the first one did.
 */
export interface RunInputs {
  /** 32 hexadecimal digits. */
  seed: string;
  clockReads?: number[];
}

/** Clock readings a run records at most (see `RunInputs`). */
export const MAX_RECORDED_CLOCK_READS = 10_000;

/**
 * What the `tests` of a run did. They run after the program, in the same global scope, as an
 * evaluation of their own, so nothing of the program's text changes how they parse.
 * - `passed`: the tests ran to their end without raising.
 * - `failed`: a test raised (assertion, thrown value) or hit a limit; `error` says which line.
 * - `not_run`: the program did not finish normally (it failed, or exited early through
 *   `sys.exit`/`process.exit`-like means, or its top-level promise rejected); `reason` says why.
 */
export interface TestsOutcome {
  status: "passed" | "failed" | "not_run";
  /** Output written while the tests ran (kept apart from the program's `stdout`). */
  stdout: string;
  stderr: string;
  /** The failure, located in the test code (1-based `line` of the `tests` text). */
  error?: ExecutionError;
  /** For `not_run`: why the tests did not run. */
  reason?: string;
  /**
   * Tests counted in the caller's text (a top-level statement that contains an assertion is one
   * test); present when the tests ran one by one. Counted on the host, not by the program.
   */
  total?: number;
  /** How many of `total` passed. */
  passed?: number;
  /**
   * Every test in order (at most `MAX_TEST_CASES`), plus any setup statement that raised;
   * `status` is `failed` when any case is not `passed`.
   */
  cases?: TestCase[];
}

/** Test cases a `TestsOutcome` lists at most (the counts cover every test). */
export const MAX_TEST_CASES = 100;

/**
 * One test of a run's `tests`, as the host judged it. For a comparison (`assert f(x) == y`,
 * `assert.strictEqual(a, b)`, `expect(a).toBe(b)`, ...) the program's interpreter evaluated each
 * side and sent an encoded value; the comparison was made outside it (`decidedBy: "outside"`).
 * Other tests are decided by whether their statement raised in the interpreter
 * (`decidedBy: "program"`; see docs/security.md for what a program can forge).
 */
export interface TestCase {
  /** 1-based line of the test's first character in the `tests` text. */
  line: number;
  /** The test's source (bounded). */
  source: string;
  /** `failed`: the check was false; `error`: the test (or a setup statement) raised. */
  status: "passed" | "failed" | "error";
  /** `test`, or `setup` for a statement without an assertion that raised. */
  role: "test" | "setup";
  decidedBy: "outside" | "program";
  /** For a comparison: the first side's source (`sum_div(8)`). */
  expression?: string;
  /** The comparison's operator (`==`, `strictEqual`, `toEqual`, `truthy`, `isclose`, ...). */
  operator?: string;
  /** The first side's value as the language shows it (`repr` in Python, JSON-like in JavaScript), bounded. */
  actual?: string;
  /** The second side's value, likewise (absent for a truthiness check). */
  expected?: string;
  /** Why a comparison could not be made outside (a value past the encoding's bounds). */
  note?: string;
  /** For `error` (and a failed assertion the program decided): the exception, its line in the tests. */
  error?: ExecutionError;
}

/**
 * What a host function can learn about the call it serves, from `currentHostCall()` (works in
 * arrow functions and across `await`).
 */
export interface HostCallContext {
  /** Aborted when the run that made the call ends (any status) or is cancelled. */
  signal: AbortSignal;
  /** Name under which the guest called the function. */
  name: string;
}

/**
 * A function of the host that sandboxed code may call as `await name(...args)`.
 * Arguments and the return value cross the boundary as JSON copies. A throw (or rejection)
 * becomes an exception inside the sandbox.
 */
export type HostFunction = (...args: JsonValue[]) => unknown;

/** Options of one run. Every field is optional; defaults are listed on each. */
export interface RunOptions {
  /** Default `"javascript"`. */
  language?: Language;
  /** Wall-clock limit of the run, including waiting on host functions. Default 5000. */
  timeoutMs?: number;
  /** Memory the engine may allocate. Default 64 MiB. */
  memoryLimitBytes?: number;
  /** Bytes of stdout + stderr kept before the run ends with `output_limit`. Default 1 MiB. */
  maxOutputBytes?: number;
  /** JSON values the code sees as global variables (copied in). */
  globals?: Record<string, JsonValue>;
  /** Host functions the code may call (`await name(...)`). */
  hostFunctions?: Record<string, HostFunction>;
  /** Host calls that may be in flight at once; one more is an exception in the guest. Default 8. */
  maxHostCallsInFlight?: number;
  /** Host calls one run may make in all; one more is an exception in the guest. Default 256. */
  maxHostCalls?: number;
  /** Bytes of the result's JSON kept; a larger result ends the run `output_limit`. Default 1 MiB. */
  maxResultBytes?: number;
  /** Aborting it ends the run with status `cancelled` and aborts its host calls. */
  signal?: AbortSignal;
  /**
   * Test code run after the program in the same global scope, as its own evaluation; its
   * outcome is `result.tests` (the program's `stdout` and `result` stay the program's own).
   * The tests share the run's limits (time from the program's start, one output cap); a limit
   * they hit becomes the run's status. JavaScript/TypeScript: a script's top-level
   * declarations are visible to the tests as they are; for a module program (with `export` or
   * top-level `await`), every top-level name, exported or not, is made a global holding its
   * value at the program's end before the tests run. The tests' own declarations stay theirs
   * (they run as one async function: top-level `await` works, and a promise they end with,
   * e.g. an async IIFE, is awaited); see docs/security.md for what a program can still do to
   * the realm they share.
   */
  tests?: string;
  /**
   * Files the code can read and write (Python: `open()`, `os`, `pathlib` in the working
   * directory; JavaScript/TypeScript: the `files` global). Giving this option (even `{}`) makes
   * `result.files` hold the file set at the end. Nothing touches the host's disk.
   */
  files?: Record<string, string | Uint8Array>;
  /**
   * Bytes one file may hold (given or written). Default 8 MiB. In JavaScript/TypeScript a
   * write past it is an exception in the code; a file set over it at the end of a run ends the
   * run `output_limit`.
   */
  maxFileBytes?: number;
  /** Bytes all files may hold together (given or written; JavaScript also counts paths). Default 32 MiB. */
  maxTotalFileBytes?: number;
  /**
   * The files are the file system's root (code mode, where file paths are absolute like
   * `/notes.txt`): Python's working directory is `/` and each file of `files` (keys stay
   * relative, `notes.txt`) sits at `/notes.txt`; the interpreter's own directories (`/dev`,
   * `/home`, `/lib`, `/proc`, `/tmp`) hold no files of the run. JavaScript's `files` API takes
   * and lists absolute paths (`files.read("/notes.txt")`). Default false.
   */
  filesAtRoot?: boolean;
  /** Seed and clock of the run, for runs that must repeat exactly (see `RunInputs`). */
  inputs?: RunInputs;
}

/** `RunOptions` with every default filled in and every value checked. */
export interface ResolvedRunOptions {
  language: Language;
  timeoutMs: number;
  memoryLimitBytes: number;
  maxOutputBytes: number;
  globals: Record<string, JsonValue>;
  hostFunctions: Record<string, HostFunction>;
  maxHostCallsInFlight: number;
  maxHostCalls: number;
  maxResultBytes: number;
  signal?: AbortSignal;
  tests?: string;
  files?: Record<string, Uint8Array>;
  /**
   * Filled by `resolveRunOptions`; optional so that options built by hand (tests,
   * benchmarks) keep compiling. An engine given none uses the defaults (8 MiB, 32 MiB).
   */
  maxFileBytes?: number;
  maxTotalFileBytes?: number;
  filesAtRoot?: boolean;
  inputs?: RunInputs;
}

/** Outcome of checking code without running it (syntax and imports). */
export type CheckResult =
  | { ok: true; language: Language }
  | { ok: false; language: Language; status: "syntax_error" | "forbidden"; error: ExecutionError };

/**
 * A long-lived sandbox session: one engine context whose global state survives between
 * `run` calls (for live instances of generated code). Each call has the same limits as a run.
 */
export interface SandboxSession {
  readonly language: Language;
  /** Runs code in the session's context; globals it defines stay for later calls. */
  run(code: string, options?: Omit<RunOptions, "language">): Promise<ExecutionResult>;
  /** Calls a global function defined by earlier code with JSON arguments; `result` is its awaited value. */
  call(name: string, args?: JsonValue[], options?: Omit<RunOptions, "language" | "globals">): Promise<ExecutionResult>;
  /** Names of the global functions the session's code has defined (for clear errors). */
  functionNames(): Promise<string[]>;
  /**
   * Runs programs one after another, each as `run` would, in one exchange with the engine
   * (no round trip per program): code mode replays a thread's log this way. A run marked
   * `carryFiles` is given the file set the run before it ended with. Resolves with the results
   * of the runs that ran: it stops after one that ends the session. Only engines that can do
   * this have it (JavaScript/TypeScript); elsewhere call `run` in a loop (Python: the round trip
   * is a small part of a run, docs/code-mode.md "Restore time").
   */
  runSequence?(runs: SequencedRun[]): Promise<ExecutionResult[]>;
  /**
   * The engine's state between runs (its memory and what the worker holds beside it), or why
   * it cannot be taken now. Only engines that can restore it have it (JavaScript/TypeScript).
   */
  snapshot?(): Promise<EngineSnapshot | string>;
  /**
   * Puts a snapshot of a session of the same language into this session before it ran
   * anything: undefined when done, else why it was refused (the session is then as it was,
   * or ended when the refusal came too late to leave it untouched).
   */
  restoreSnapshot?(snapshot: EngineSnapshot): Promise<string | undefined>;
  /** Releases the session's engine; later calls throw `SandboxDisposedError`. */
  dispose(): Promise<void>;
  readonly disposed: boolean;
}

/**
 * A session engine's state between runs (`SandboxSession.snapshot`): the non-zero pages of its
 * linear memory and the worker-side state beside them. Opaque; valid only for the engine build
 * it names. It holds whatever the session's code left in memory: keep it where you keep the
 * thread's state.
 */
export interface EngineSnapshot {
  /** The engine build it was taken by (a restore in another build refuses it). */
  engine: string;
  /** The size of the linear memory. */
  memoryBytes: number;
  /** Page numbers (of `pages`' 4 KiB pages), ascending. */
  pageIndex: Uint32Array;
  pages: Uint8Array;
  /** The worker-side state, JSON. */
  state: string;
}

/** One program of `SandboxSession.runSequence`. */
export interface SequencedRun {
  code: string;
  options?: Omit<RunOptions, "language">;
  /** Given the file set the run before it ended with (then `options.files` must be absent; not on the first run). */
  carryFiles?: boolean;
}

/** Options of a long-lived sandbox. */
export interface SandboxOptions {
  /** Worker threads for JavaScript/TypeScript. Default: the number of CPUs. */
  poolSize?: number;
  /** Defaults for every run of this sandbox (a run's own options win). */
  defaults?: Omit<RunOptions, "hostFunctions" | "globals">;
  /**
   * What a JavaScript/TypeScript pool run gets fresh. `"context"` (default): a fresh QuickJS
   * runtime and context in the worker's reused WASM instance (one linear memory for all runs
   * of that worker). `"module"`: the worker's whole WASM memory is also put back, byte for byte,
   * to what it was before any run, after every run (~0.3-0.5 ms per run; see the bench), so no
   * byte any run left or wrote reaches the next. Sessions always have their own.
   */
  isolation?: "context" | "module";
  /** Options of the Python engine. */
  python?: {
    /**
     * Paths of pure-Python wheels (`.whl`, platform tag `any`) on this machine, installed before
     * user code runs (no network: fetch them beforehand, e.g. `pip download --no-deps`). A file
     * that is not a pure-Python wheel is refused at creation with `InvalidOptionError`.
     */
    wheels?: string[];
    /**
     * Packages of Pyodide's lock by name (`["numpy", "pandas", "matplotlib"]`), loaded with
     * their dependencies before user code runs. The host downloads each file once from
     * `packageIndex`, checks its sha256 against the lock and caches it beside the interpreter
     * snapshot; the interpreter's process keeps no network permission. A name that is not in
     * the lock is refused at creation (`InvalidOptionError`); a file that cannot be had throws
     * `PythonPackageError` from the first Python use. See docs/python.md.
     */
    packages?: string[];
    /**
     * Where package files come from: an http(s) URL of a Pyodide package index or a folder
     * holding a copy of the Pyodide distribution (its `pyodide-lock.json` is used when present).
     * Default: Pyodide's own CDN for the installed version.
     */
    packageIndex?: string;
  };
}

/** A pool of warm engines. `run` is `runCode` on this pool. */
/** The options of `sandbox.createSession`. */
export interface SessionOptions {
  language?: Language;
  memoryLimitBytes?: number;
  /**
   * The session will be snapshotted (`session.snapshot()`, code mode's `snapshots`). A Python
   * session then hashes its fresh interpreter's memory before its first run (once): an
   * image carries only what the session changed since. Without it, a Python session's
   * `snapshot()` is refused. JavaScript sessions can always be snapshotted. Default false.
   */
  snapshottable?: boolean;
}

export interface Sandbox {
  run(code: string, options?: RunOptions): Promise<ExecutionResult>;
  /** Syntax and import check without running. */
  check(code: string, options?: Pick<RunOptions, "language">): Promise<CheckResult>;
  createSession(options?: SessionOptions): Promise<SandboxSession>;
  /** Starts engines ahead of the first run (Python's start-up takes seconds). */
  warm(languages?: Language[]): Promise<void>;
  /**
   * Starts the worker (JavaScript/TypeScript) or process (Python) of the next session of
   * `language` ahead, so that the next `createSession` of that language takes it ready instead
   * of starting one. At most one is held per language (a second call while one is held does
   * nothing); the sandbox disposes it. Resolves when it is ready; a failed start is reported
   * by the `createSession` that would have used it (which then starts its own). Optional for a
   * sandbox you implement yourself (code mode then starts nothing ahead); `createSandbox` has it.
   */
  prestartSession?(language: Language): Promise<void>;
  /** Stops every worker and process; later calls throw `SandboxDisposedError`. */
  dispose(): Promise<void>;
  readonly disposed: boolean;
}

/** What an engine needs to open a session: the sandbox's defaults apply to every call in it. */
export interface EngineSessionOptions {
  language: Language;
  memoryLimitBytes: number;
  /** Keep what `snapshot()` needs from the session's start (see `SessionOptions.snapshottable`). */
  snapshottable?: boolean;
  /** The sandbox's run defaults; a call's own options win. */
  defaults: Omit<RunOptions, "hostFunctions" | "globals" | "signal" | "tests" | "files">;
}

/**
 * What each language engine implements (`src/sandbox/<language>/engine.ts`). The sandbox front
 * resolves options and routes by language; it never special-cases an engine. Engines never
 * throw for failures of user code; they return a result.
 */
export interface LanguageEngine {
  /** The languages this engine runs. */
  readonly languages: readonly Language[];
  run(code: string, options: ResolvedRunOptions): Promise<ExecutionResult>;
  check(code: string, language: Language): Promise<CheckResult>;
  warm(): Promise<void>;
  /** A session with state kept between calls. */
  createSession(options: EngineSessionOptions): Promise<SandboxSession>;
  /** Starts the next session's worker or process of `language` ahead (`Sandbox.prestartSession`). */
  prestartSession(language: Language): Promise<void>;
  dispose(): Promise<void>;
}
