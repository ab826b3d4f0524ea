/**
 * The `files` global for JavaScript/TypeScript cells while the JavaScript engine does not
 * provide one itself (`RunOptions.files` is implemented by the Python engine; the QuickJS engine
 * does not read it yet). Backed by host functions over an in-memory file set per run, so nothing
 * touches the host's disk. When the engine defines `files`, the setup leaves it alone and the
 * engine's `result.files` is used.
 */
import type { HostFunction, JsonValue } from "../sandbox/types.js";

const HOST_NAME = "__files_op";

/** An in-memory file set for one run, and the host function the guest's `files` calls. */
export class RunFiles {
  private readonly files: Map<string, Uint8Array>;
  /** True once the guest used the fallback (the engine had no `files` of its own). */
  used = false;

  constructor(initial: Record<string, Uint8Array>, private readonly maxFileBytes: number) {
    this.files = new Map(Object.entries(initial));
  }

  /** The file set now (what `result.files` would hold). */
  snapshot(): Record<string, Uint8Array> {
    return Object.fromEntries(this.files);
  }

  hostFunctions(): Record<string, HostFunction> {
    return {
      [HOST_NAME]: (op: JsonValue, path: JsonValue, data?: JsonValue) => {
        this.used = true;
        if (op === "list") return [...this.files.keys()].sort();
        if (typeof path !== "string" || path === "" || path.split("/").includes("..")) {
          throw Object.assign(new Error(`invalid path ${JSON.stringify(path)}: use a relative path without ".."`), { name: "FileError" });
        }
        const key = path.replace(/^\.?\/+/, "");
        const existing = this.files.get(key);
        switch (op) {
          case "exists":
            return existing !== undefined;
          case "read":
          case "readBytes": {
            if (!existing) throw Object.assign(new Error(`no such file: ${key}`), { name: "FileNotFoundError" });
            return op === "read" ? new TextDecoder().decode(existing) : Array.from(existing);
          }
          case "write": {
            const bytes =
              typeof data === "string" ? new TextEncoder().encode(data) : Array.isArray(data) ? Uint8Array.from(data as number[]) : undefined;
            if (!bytes) throw Object.assign(new Error("files.write(path, data): data must be a string or a Uint8Array"), { name: "TypeError" });
            if (bytes.byteLength > this.maxFileBytes) {
              throw Object.assign(new Error(`${key} would be ${bytes.byteLength} bytes, over the cap of ${this.maxFileBytes}: write less`), { name: "FileTooLargeError" });
            }
            this.files.set(key, bytes);
            return null;
          }
          case "delete":
            return this.files.delete(key);
          default:
            throw Object.assign(new Error(`unknown file operation ${String(op)}`), { name: "TypeError" });
        }
      },
    };
  }
}

/** One-line guest code that defines `files` over the host function unless the engine has one. */
export function filesSetupCode(): string {
  return (
    `if (typeof globalThis.files === "undefined") globalThis.files = Object.freeze({ ` +
    `read: (p) => ${HOST_NAME}("read", p), readBytes: async (p) => new Uint8Array(await ${HOST_NAME}("readBytes", p)), ` +
    `write: (p, d) => ${HOST_NAME}("write", p, typeof d === "string" ? d : Array.from(d)), list: () => ${HOST_NAME}("list", ""), ` +
    `exists: (p) => ${HOST_NAME}("exists", p), delete: (p) => ${HOST_NAME}("delete", p) });`
  );
}
