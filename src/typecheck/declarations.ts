/**
 * What the sandbox gives a JavaScript/TypeScript program, as TypeScript declarations: the
 * `console` it provides, the `files` API when the run has files, granted host functions and
 * JSON globals. Plain text; no TypeScript import.
 */
import type { JsonValue } from "../sandbox/types.js";

/** What the checked program is given besides the language's built-ins. */
export interface SandboxDeclarationsOptions {
  /**
   * Host functions the program may call as `await name(...)`: names (declared
   * `(...args: any[]) => Promise<any>`), or a map from name to a TypeScript function type
   * (e.g. `"(city: string) => Promise<{ temperature: number }>"`).
   */
  hostFunctions?: readonly string[] | Record<string, unknown>;
  /** JSON globals of the run; each is declared with the type of its value. */
  globals?: Record<string, JsonValue>;
  /** True (or the run's files) when the run is given `files`: declares the `files` global. */
  files?: boolean | Record<string, unknown>;
  /** More declarations, verbatim (e.g. the tools of code mode as `declare const tools: {...}`). */
  declarations?: string;
}

const CONSOLE = `declare const console: {
  log(...data: any[]): void;
  info(...data: any[]): void;
  debug(...data: any[]): void;
  warn(...data: any[]): void;
  error(...data: any[]): void;
  trace(...data: any[]): void;
  assert(condition?: unknown, ...data: any[]): void;
};`;

// The sandbox's virtual file API (RunOptions.files); paths are relative to its working directory.
const FILES = `declare const files: {
  read(path: string): string;
  readBytes(path: string): Uint8Array;
  write(path: string, data: string | Uint8Array): void;
  list(dir?: string): string[];
  exists(path: string): boolean;
  delete(path: string): void;
};`;

/**
 * The declarations text for a program with `options`.
 *
 * @example
 * ```ts
 * sandboxDeclarations({ hostFunctions: ["getWeather"] });
 * // "declare const console: {...};\ndeclare function getWeather(...args: any[]): Promise<any>;"
 * ```
 */
export function sandboxDeclarations(options: SandboxDeclarationsOptions = {}): string {
  const parts = [CONSOLE];
  if (options.files !== undefined && options.files !== false) parts.push(FILES);
  const host = options.hostFunctions;
  if (Array.isArray(host)) {
    for (const name of host) parts.push(`declare function ${name}(...args: any[]): Promise<any>;`);
  } else if (host !== undefined) {
    for (const [name, signature] of Object.entries(host)) {
      parts.push(typeof signature === "string" ? `declare const ${name}: ${signature};` : `declare function ${name}(...args: any[]): Promise<any>;`);
    }
  }
  for (const [name, value] of Object.entries(options.globals ?? {})) parts.push(`declare const ${name}: ${jsonType(value, 0)};`);
  if (options.declarations !== undefined && options.declarations.trim() !== "") parts.push(options.declarations);
  return parts.join("\n");
}

/** A TypeScript type for a JSON value: widened literals, arrays of the union of their items. */
function jsonType(value: JsonValue, depth: number): string {
  if (depth > 6) return "any";
  if (value === null) return "null";
  if (Array.isArray(value)) {
    const items = [...new Set(value.slice(0, 50).map((v) => jsonType(v, depth + 1)))];
    if (items.length === 0) return "any[]";
    return items.length === 1 ? `${items[0]}[]` : `(${items.join(" | ")})[]`;
  }
  if (typeof value === "object") {
    const entries = Object.entries(value).slice(0, 100);
    return `{ ${entries.map(([k, v]) => `${JSON.stringify(k)}: ${jsonType(v, depth + 1)};`).join(" ")} }`;
  }
  return typeof value;
}
