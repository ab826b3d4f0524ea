/**
 * A Python session: one interpreter in its own Deno process whose globals survive between
 * calls, so generated functions can be defined once and called many times.
 */
import { InvalidOptionError, SandboxDisposedError } from "../../errors.js";
import { assertJsonValue, serializeGlobals } from "../options.js";
import type { ExecutionResult, JsonValue, RunOptions, SandboxSession } from "../types.js";
import type { PythonPaths } from "./deno-paths.js";
import { DenoProcess } from "./deno-process.js";
import { resolvePythonLimits } from "./limits.js";
import { extrasOfSessionCall } from "./run-extras.js";

/**
 * Starts a session process and waits until its interpreter is ready.
 *
 * @example
 * const session = await createPythonSession(resolvePythonPaths(), { memoryLimitBytes: 64 * 1024 * 1024 });
 * await session.run("def add(a, b):\n    return a + b");
 * (await session.call("add", [1, 2])).result; // 3
 * await session.dispose();
 */
export async function createPythonSession(
  paths: PythonPaths,
  options: { memoryLimitBytes: number; defaults?: Omit<RunOptions, "hostFunctions" | "globals"> },
): Promise<SandboxSession> {
  const process = new DenoProcess(paths, true);
  try {
    await process.whenReady();
  } catch (error) {
    process.dispose();
    throw error;
  }
  return new PythonSession(paths, process, options.memoryLimitBytes, options.defaults ?? {});
}

class PythonSession implements SandboxSession {
  readonly language = "python" as const;
  readonly #paths: PythonPaths;
  readonly #memoryLimitBytes: number;
  readonly #defaults: Omit<RunOptions, "hostFunctions" | "globals">;
  #process: DenoProcess;
  #queue: Promise<unknown> = Promise.resolve();
  #disposed = false;

  constructor(paths: PythonPaths, process: DenoProcess, memoryLimitBytes: number, defaults: Omit<RunOptions, "hostFunctions" | "globals">) {
    this.#paths = paths;
    this.#process = process;
    this.#memoryLimitBytes = memoryLimitBytes;
    this.#defaults = defaults;
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  run(code: string, options: Omit<RunOptions, "language"> = {}): Promise<ExecutionResult> {
    this.#assertAlive();
    if (typeof code !== "string") throw new InvalidOptionError("code", code, "a string of Python source");
    const { globals, ...rest } = options;
    const limits = resolvePythonLimits(rest, this.#memoryLimitBytes);
    const extras = extrasOfSessionCall(rest, this.#defaults);
    const values = JSON.parse(serializeGlobals(globals)) as Record<string, JsonValue>;
    return this.#serial(async (process) => process.run(code, values, limits, extras));
  }

  call(name: string, args: JsonValue[] = [], options: Omit<RunOptions, "language" | "globals"> = {}): Promise<ExecutionResult> {
    this.#assertAlive();
    if (typeof name !== "string" || name.length === 0) throw new InvalidOptionError("name", name, "the name of a function defined in the session");
    if (!Array.isArray(args)) throw new InvalidOptionError("args", args, "an array of JSON values");
    const limits = resolvePythonLimits(options, this.#memoryLimitBytes);
    const extras = extrasOfSessionCall(options, this.#defaults);
    assertJsonValue(args, "args");
    return this.#serial(async (process) => process.call(name, args, limits, extras));
  }

  functionNames(): Promise<string[]> {
    this.#assertAlive();
    return this.#serial(async (process) => process.functionNames());
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    await this.#queue.catch(() => undefined);
    this.#process.dispose();
    await this.#process.exited;
  }

  /** One request at a time; a process killed by a host limit is replaced (its state is lost). */
  #serial<T>(work: (process: DenoProcess) => Promise<T>): Promise<T> {
    const next = this.#queue.then(async () => {
      if (!this.#process.alive) {
        this.#process = new DenoProcess(this.#paths, true);
      }
      await this.#process.whenReady();
      return work(this.#process);
    });
    this.#queue = next.catch(() => undefined);
    return next;
  }

  #assertAlive(): void {
    if (this.#disposed) throw new SandboxDisposedError("The Python session");
  }
}
