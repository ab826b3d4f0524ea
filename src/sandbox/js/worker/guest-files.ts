/**
 * The `files` global of a run given `files`: a small synchronous API over the worker's
 * FileStore. The guest-side object is a thin shim; every check is made by the worker.
 *
 * API (all synchronous): `files.read(path)` (UTF-8 text), `files.readBytes(path)`
 * (Uint8Array), `files.write(path, data)` (string or Uint8Array), `files.list()` (sorted
 * paths), `files.exists(path)`, `files.delete(path)` (true when a file was removed).
 */
import type { QuickJSHandle } from "quickjs-emscripten-core";
import { FileError, type FileStore } from "./file-store.js";
import { MAX_PATH_CHARS } from "../shared/file-rules.js";
import type { GuestRuntime } from "./guest-runtime.js";
import { installShim } from "./guest-shim.js";
import { tagged } from "./host-function-kinds.js";

/** The guest side of `files` (part of the engine build a snapshot is valid for). */
export const FILES_SHIM_SOURCE = String.raw`(function (op) {
  "use strict";
  const U8 = Uint8Array;
  const api = {
    read(path) { return op(0, path); },
    readBytes(path) { return new U8(op(1, path)); },
    write(path, data) {
      if (typeof data === "string") return void op(2, path, data);
      if (data instanceof U8) return void op(3, path, data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
      throw new TypeError("files.write(path, data): data must be a string or a Uint8Array");
    },
    list() { return op(4); },
    exists(path) { return op(5, path); },
    delete(path) { return op(6, path); },
  };
  Object.freeze(api);
  Object.defineProperty(globalThis, "files", { value: api, writable: false, configurable: true, enumerable: false });
})`;

const decoder = new TextDecoder("utf-8", { fatal: false });
const encoder = new TextEncoder();

/** Installs `files` in a context and serves its operations from the current run's store. */
export class GuestFiles {
  private installed = false;
  /** The `files` operation's closure, made once per context (see host-function-kinds.ts). */
  readonly operation: (code: QuickJSHandle, path?: QuickJSHandle, data?: QuickJSHandle) => QuickJSHandle | { error: QuickJSHandle } | undefined;

  constructor(
    private readonly guest: GuestRuntime,
    private readonly store: () => FileStore | undefined,
  ) {
    this.operation = tagged("files", (code: QuickJSHandle, path?: QuickJSHandle, data?: QuickJSHandle) => {
      const ctx = this.guest.context;
      try {
        return this.operate(ctx.getNumber(code), path, data);
      } catch (error) {
        const message = error instanceof FileError ? error.message : `files: ${(error as Error).message}`;
        return { error: ctx.newError({ name: error instanceof FileError ? "FileError" : "Error", message }) };
      }
    });
  }

  /** Whether `files` was installed in this context (part of a snapshot's state). */
  get isInstalled(): boolean {
    return this.installed;
  }

  /** Marks `files` installed as in a restored snapshot (the guest side is in the restored heap). */
  set isInstalled(value: boolean) {
    this.installed = value;
  }

  /** Defines the `files` global (once per context). Returns a thrown handle if the guest failed. */
  install(): QuickJSHandle | undefined {
    if (this.installed) return undefined;
    this.installed = true;
    const ctx = this.guest.context;
    using op = ctx.newFunction("files", this.operation);
    return installShim(ctx, FILES_SHIM_SOURCE, "sandbox-files.js", [op]);
  }

  /** The path text, exact (a NUL inside is kept, and refused later), or over-long text when too long. */
  private readPath(handle: QuickJSHandle): string | undefined {
    const read = this.guest.readBoundedString(handle, MAX_PATH_CHARS * 3);
    if (read.overLimitBytes !== undefined) return "x".repeat(MAX_PATH_CHARS + 1);
    return read.text;
  }

  private operate(code: number, pathHandle: QuickJSHandle | undefined, data: QuickJSHandle | undefined): QuickJSHandle | undefined {
    const ctx = this.guest.context;
    const store = this.store();
    if (!store) throw new FileError("files are not available in this call (pass the files option to use them)");
    const path = pathHandle ? this.readPath(pathHandle) : undefined;
    switch (code) {
      case 0:
        return this.guest.newExactString(decoder.decode(store.read(path)));
      case 1: {
        const bytes = store.read(path);
        return ctx.newArrayBuffer(bytes.slice().buffer);
      }
      case 2: {
        // Measured before it is copied out of the guest: a string over the cap never is.
        const text = data ? this.guest.readBoundedString(data, store.limits.maxFileBytes) : { text: undefined };
        if (text.overLimitBytes !== undefined) store.assertFits(path, text.overLimitBytes);
        store.write(path, encoder.encode(text.text ?? ""));
        return undefined;
      }
      case 3: {
        if (!data) throw new FileError("files.write: no data");
        using view = ctx.getArrayBuffer(data);
        store.assertFits(path, view.value.byteLength);
        store.write(path, new Uint8Array(view.value));
        return undefined;
      }
      case 4: {
        const list = ctx.newArray();
        store.list().forEach((p, i) => {
          using item = ctx.newString(p);
          ctx.setProp(list, i, item);
        });
        return list;
      }
      case 5:
        return store.exists(path) ? ctx.true : ctx.false;
      case 6:
        return store.delete(path) ? ctx.true : ctx.false;
      default:
        throw new FileError("unknown operation");
    }
  }
}
