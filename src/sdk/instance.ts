/**
 * A live instance of generated code: one sandbox session that keeps the code's state, whose
 * top-level functions can be called many times.
 */
import { InvalidOptionError, SandboxDisposedError } from "../errors.js";
import type { ExecutionResult, JsonValue, Language, RunOptions, SandboxSession } from "../sandbox/types.js";
import { GeneratedFunctionError, UnknownFunctionError } from "./errors.js";

/** Prefix of the helper names the SDK defines in a session; hidden from `functionNames()`. */
export const INTERNAL_PREFIX = "__codegen_";

/** Name of the session function that calls the template class's `eval`. */
export const EVAL_ENTRY = `${INTERNAL_PREFIX}eval`;

/** Signatures the caller expects the generated code to define (for the typed proxy). */
export type GeneratedFunctions = Record<string, (...args: never[]) => unknown>;

/** What an instance offers when the caller declares no signatures: any name, JSON in and out. */
export type DynamicFunctions = Record<string, (...args: JsonValue[]) => JsonValue | undefined>;

/** The proxy form: each generated function as an async host function. */
export type AsyncProxy<F extends GeneratedFunctions> = {
  [K in keyof F]: (...args: Parameters<F[K]>) => Promise<Awaited<ReturnType<F[K]>>>;
};

/** The files of one generation: `main.js` / `main.ts` / `main.py`, `dependencies.json`, and for Python `requirements.txt`. */
export type GeneratedFiles = Record<string, string>;

/** Per-call limits of an instance (the session's own defaults apply to the rest). */
export type CallLimits = Pick<RunOptions, "timeoutMs" | "memoryLimitBytes" | "maxOutputBytes">;

/**
 * A live instance of generated code. `call(name, ...args)` returns the function's value and
 * throws `GeneratedFunctionError` when the run fails; `invoke(name, args)` returns the whole
 * `ExecutionResult` without throwing for failures of the code. After `dispose()` every call
 * throws `SandboxDisposedError`.
 *
 * @example
 * ```ts
 * const instance = await sandbox.generateAndInstantiate<{ add(a: number, b: number, c: number): number }>("Create add(a, b, c)");
 * await instance.call("add", 10, 20, 30); // 60
 * await instance.functions.add(1, 2, 3);   // 6
 * ```
 */
export class GeneratedInstance<F extends GeneratedFunctions = DynamicFunctions> {
  /** The generated functions as async methods: `instance.functions.add(1, 2, 3)`. */
  readonly functions: AsyncProxy<F>;
  private names: string[];

  constructor(
    private readonly session: SandboxSession,
    /** The code that was loaded. */
    readonly code: string,
    /** The files of the generation that produced this instance. */
    readonly files: GeneratedFiles,
    /** Top-level function names defined by the code, as seen at instantiation. */
    functionNames: string[],
    /** Whether the template's eval entry point was installed. */
    readonly hasEvalEntry: boolean,
    private readonly limits: CallLimits = {},
    /**
     * Functions the code declares that the session cannot list (JavaScript's
     * `const f = () => ...`), callable by name all the same.
     */
    private readonly declaredNames: readonly string[] = [],
  ) {
    this.names = this.withDeclared(functionNames);
    this.functions = new Proxy({} as AsyncProxy<F>, {
      get: (_target, property) => {
        // `then` must stay undefined, or `await instance.functions` would treat it as a promise.
        if (typeof property !== "string" || property === "then") return undefined;
        return (...args: JsonValue[]) => this.call(property, ...(args as Parameters<F[string]>));
      },
    });
  }

  /** Language of the code. */
  get language(): Language {
    return this.session.language;
  }

  /** True after `dispose()` (or after the owning sandbox's `cleanup()`). */
  get disposed(): boolean {
    return this.session.disposed;
  }

  /** Names of the functions the generated code defines. */
  async functionNames(): Promise<string[]> {
    this.assertLive();
    this.names = this.withDeclared(await this.session.functionNames());
    return [...this.names];
  }

  /**
   * Calls generated function `name` with JSON arguments and returns its (awaited) value.
   * Throws `UnknownFunctionError` when the code defines no such function and
   * `GeneratedFunctionError` when the call fails (the full run is on the error).
   */
  async call<K extends keyof F & string>(name: K, ...args: Parameters<F[K]>): Promise<Awaited<ReturnType<F[K]>>> {
    const result = await this.invoke(name, args as JsonValue[]);
    if (result.status !== "success") throw new GeneratedFunctionError(name, result);
    return result.result as Awaited<ReturnType<F[K]>>;
  }

  /** Calls generated function `name` and returns the whole run; failures of the code are statuses. */
  async invoke(name: string, args: JsonValue[] = []): Promise<ExecutionResult> {
    this.assertLive();
    if (typeof name !== "string" || name === "" || name.startsWith(INTERNAL_PREFIX)) {
      throw new InvalidOptionError("name", name, "the name of a function the generated code defines");
    }
    if (!Array.isArray(args)) throw new InvalidOptionError("args", args, "an array of JSON values");
    if (!this.names.includes(name)) {
      // The code may have defined more functions since instantiation (e.g. lazily); ask again once.
      await this.functionNames();
      if (!this.names.includes(name)) throw new UnknownFunctionError(name, this.names);
    }
    return this.session.call(name, args, this.limits);
  }

  /** Calls the template class's `eval(parameters, inputData, context)`; `executeFunction` uses this. */
  async evaluate(parameters: JsonValue, inputData: JsonValue, context: JsonValue): Promise<ExecutionResult> {
    this.assertLive();
    return this.session.call(EVAL_ENTRY, [parameters, inputData, context], this.limits);
  }

  /** Releases the session. Safe to call twice. */
  async dispose(): Promise<void> {
    if (!this.session.disposed) await this.session.dispose();
  }

  private withDeclared(listed: string[]): string[] {
    return visible([...new Set([...listed, ...this.declaredNames])]);
  }

  private assertLive(): void {
    if (this.session.disposed) throw new SandboxDisposedError("This generated instance (its sandbox session)");
  }
}

function visible(names: string[]): string[] {
  return names.filter((name) => !name.startsWith(INTERNAL_PREFIX));
}
