/**
 * How a run's result is kept in the graph's state. Checkpointers serialize state with
 * LangChain's serializer, which revives objects shaped like `{lc: 1, type: "constructor", ...}`
 * into classes, drops `{lc: 2, type: "undefined"}` and can turn a `__proto__` key into a
 * prototype. Whatever the guest produced is therefore stored only as strings under keys we
 * choose: the JSON result as JSON text, files as `[path, base64]` pairs.
 */
import type { ExecutionResult, JsonValue } from "../sandbox/types.js";

/** A file the run left behind, as stored in state. */
export interface StoredResultFile {
  path: string;
  /** The file's bytes, base64. */
  base64: string;
}

/**
 * `ExecutionResult` as the graph's state keeps it: the same fields, except that the program's
 * JSON value is `resultJson` (text; read it with {@link runResultValue}) and files are a list
 * of {@link StoredResultFile} (read them with {@link runResultFiles}).
 */
export interface StoredRunResult extends Omit<ExecutionResult, "result" | "files"> {
  /** `JSON.stringify` of the program's result; absent when it had none. */
  resultJson?: string;
  files?: StoredResultFile[];
}

/**
 * The form of `result` kept in state (see {@link StoredRunResult}).
 *
 * @example
 * ```ts
 * storeRunResult(result).resultJson; // '{"lc":1}' for a result {lc: 1}
 * ```
 */
export function storeRunResult(result: ExecutionResult): StoredRunResult {
  const { result: value, files, ...rest } = result;
  const stored: StoredRunResult = { ...rest };
  if (value !== undefined) stored.resultJson = JSON.stringify(value);
  if (files !== undefined) {
    stored.files = Object.keys(files)
      .sort()
      .map((path) => ({ path, base64: Buffer.from(files[path]!).toString("base64") }));
  }
  return stored;
}

/**
 * The program's JSON value from a stored result (`undefined` when it had none). `JSON.parse`
 * keeps every key as data: `__proto__` stays an own property, `lc` objects stay plain.
 *
 * @example
 * ```ts
 * const value = runResultValue(state.result);
 * ```
 */
export function runResultValue(stored: Pick<StoredRunResult, "resultJson"> | undefined): JsonValue | undefined {
  return stored?.resultJson === undefined ? undefined : (JSON.parse(stored.resultJson) as JsonValue);
}

/**
 * The files a run left behind, as bytes by path (`undefined` when the run was not given files).
 *
 * @example
 * ```ts
 * const files = runResultFiles(state.result);
 * ```
 */
export function runResultFiles(stored: Pick<StoredRunResult, "files"> | undefined): Map<string, Uint8Array> | undefined {
  if (stored?.files === undefined) return undefined;
  return new Map(stored.files.map((file) => [file.path, new Uint8Array(Buffer.from(file.base64, "base64"))]));
}

/**
 * The `ExecutionResult` back from its stored form (for code that formats runs).
 *
 * @example
 * ```ts
 * formatExecutionForModel(restoreRunResult(state.result), state.code);
 * ```
 */
export function restoreRunResult(stored: StoredRunResult): ExecutionResult {
  const { resultJson: _json, files: _files, ...rest } = stored;
  const result: ExecutionResult = { ...rest };
  const value = runResultValue(stored);
  if (value !== undefined) result.result = value;
  const files = runResultFiles(stored);
  if (files !== undefined) result.files = Object.fromEntries(files);
  return result;
}
