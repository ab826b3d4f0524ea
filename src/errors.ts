/**
 * Errors thrown for misuse by the caller or faults of the host. Failures of user code are
 * never thrown: they are `ExecutionResult` statuses.
 * One class per failure mode, each with structured fields and a message that says what to do.
 */

/** Base of every error this package throws. */
export class CodeGenSandboxError extends Error {
  override name = "CodeGenSandboxError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * An option or argument has a bad value, or is not an option at all. Names the option, what was
 * given and what to pass. One message format everywhere (the CLI names its flags the same way):
 * `Invalid option "NAME": got VALUE; expected WHAT.` for a bad value, and
 * `Invalid option "NAME": OWNER has no option of this name; did you mean "NEAR"? Expected one of A, B.`
 * for an unknown key.
 */
export class InvalidOptionError extends CodeGenSandboxError {
  override name = "InvalidOptionError";
  /** For an unknown key: the known option it most likely meant. */
  readonly suggestion: string | undefined;
  constructor(
    readonly option: string,
    readonly received: unknown,
    readonly expected: string,
    details: { problem?: string; suggestion?: string } = {},
  ) {
    const problem = details.problem ?? `got ${describeValue(received)}`;
    const near = details.suggestion === undefined ? "expected" : `did you mean ${nameOf(details.suggestion)}? Expected`;
    super(`Invalid option ${nameOf(option)}: ${problem}; ${near} ${expected}.`);
    this.suggestion = details.suggestion;
  }
}

/**
 * An option's name as a message shows it: in quotes, bounded, with control characters and lone
 * surrogates escaped (`\u000a`), so a key a caller made up stays visible and the message one line.
 */
function nameOf(option: string): string {
  const bounded = option.length <= 200 ? option : `${option.slice(0, 197)}...`;
  const escaped = bounded.replace(/[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return `"${escaped}"`;
}

/** A sandbox, session or generator was used after `dispose()`/`cleanup()`. */
export class SandboxDisposedError extends CodeGenSandboxError {
  override name = "SandboxDisposedError";
  constructor(readonly what: string) {
    super(`${what} was used after it was disposed; create a new one.`);
  }
}

/**
 * Short, bounded rendering of a value for error messages: `NaN`, `Infinity` and `-0` as
 * themselves (JSON would say `null`), strings as JSON (so a NUL byte or a lone surrogate shows
 * as `\u0000` / `\ud800`), instances by their class (`a Map`), plain data as JSON.
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "function") return "a function";
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "symbol") return value.toString();
  if (typeof value === "number") return Object.is(value, -0) ? "-0" : String(value);
  let text: string;
  try {
    const proto = typeof value === "object" && value !== null ? (Object.getPrototypeOf(value) as unknown) : undefined;
    if (proto !== undefined && proto !== null && proto !== Object.prototype && !Array.isArray(value)) {
      const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
      return typeof name === "string" && name !== "" ? `a ${name}` : "an object";
    }
    // Non-finite numbers inside data keep their names too.
    text = JSON.stringify(value, (_key, v: unknown) => (typeof v === "number" && !Number.isFinite(v) ? String(v) : v)) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  // errors.ts imports nothing of ours (it is the bottom of the house), so this short rendering
  // of a value has its own bound instead of the feedback module's truncation rule.
  return text.length <= 80 ? text : `${text.slice(0, 77)}...`;
}

/** A sandbox session ended (its run timed out, ran out of memory, or its engine crashed). */
export class SandboxSessionEndedError extends CodeGenSandboxError {
  override name = "SandboxSessionEndedError";
  constructor(readonly reason: string) {
    super(`This sandbox session has ended (${reason}); its state is gone. Create a new session and run the code again.`);
  }
}

/** A language engine could not be loaded (e.g. its module is missing from this build). */
export class EngineUnavailableError extends CodeGenSandboxError {
  override name = "EngineUnavailableError";
  constructor(
    readonly language: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`The ${language} engine is not available: ${detail}`, options);
  }
}

/** Why a Python package of `python.packages` could not be made ready. */
export type PythonPackageProblem = "unknown_name" | "missing_file" | "sha256_mismatch" | "index_unreachable";

/**
 * A package of `python.packages` could not be made ready: its name is not in the lock, its file
 * is not in the package index, its bytes do not match the lock's sha256, or the index cannot be
 * reached. Names the package, the problem and what to do. Thrown by the first Python use of the
 * sandbox (the download happens then); the next use tries again.
 */
export class PythonPackageError extends EngineUnavailableError {
  override name = "PythonPackageError";
  constructor(
    readonly packageName: string,
    readonly problem: PythonPackageProblem,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super("python", `package "${packageName}": ${detail}`, options);
  }
}

/**
 * A peer dependency an entry point needs is not installed. Names every missing package and the
 * one `npm install` line that installs them.
 */
export class MissingPeerError extends CodeGenSandboxError {
  override name = "MissingPeerError";
  constructor(
    /** The entry point that needs them, e.g. `codegen-sandbox/tools` or `codegen-sandbox solve`. */
    readonly entry: string,
    /** The packages that are not installed. */
    readonly missing: readonly string[],
    /** Every peer the entry needs (the install line names them all, so versions stay in step). */
    readonly needed: readonly string[],
  ) {
    super(`${entry} needs ${missing.join(", ")} (peer ${missing.length === 1 ? "dependency" : "dependencies"} of codegen-sandbox, not installed): run \`npm install ${needed.join(" ")}\`.`);
  }
}
