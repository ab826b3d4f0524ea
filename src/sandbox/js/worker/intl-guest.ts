/**
 * `Intl` in one guest context: installs the shim (intl-shim.ts) and serves its host operation
 * from intl-host.ts. The operation reads only primitives out of the guest (numbers, and strings
 * whose size is checked before they are copied), never runs guest code and never hands the
 * guest an object of this realm: it answers with a string, a number, undefined or an error.
 *
 * Installed once per context, only when a run needs it: a pool run whose source (or tests)
 * names `Intl`, `toLocale…` or `localeCompare` (see `mentionsIntl`), and every session context.
 * A program that reaches these names only by computing them (`x["toLocale" + "String"]`) gets
 * QuickJS's own methods, which ignore locales: docs/sandbox.md says so.
 */
import type { QuickJSHandle } from "quickjs-emscripten-core";
import type { GuestRuntime } from "./guest-runtime.js";
import { installShim } from "./guest-shim.js";
import { tagged } from "./host-function-kinds.js";
import { IntlOp, IntlRefusal, intlOperation, MAX_TEXT_CHARS, type IntlArg } from "./intl-host.js";
import { INTL_NAMESPACE_SOURCE, INTL_SHIM_FILE_NAME, INTL_SHIM_SOURCE } from "./intl-shim.js";

const NAMES_INTL = /Intl|toLocale|localeCompare/;

/** True when code names what the shim defines, so the run gets `Intl` before its code runs. */
export function mentionsIntl(code: string): boolean {
  return NAMES_INTL.test(code);
}

/** Operations whose string arguments are tagged numbers ("n" BigInt digits, "s" decimal text). */
const NUMERIC_OPS = new Set<number>([IntlOp.Format, IntlOp.FormatToParts, IntlOp.FormatRange, IntlOp.FormatRangeToParts]);

/** The `Intl` of one context. */
export class GuestIntl {
  private installed = false;
  /** The shim's host operation, made once per context (see host-function-kinds.ts). */
  readonly operation: (code: QuickJSHandle, spec: QuickJSHandle, a?: QuickJSHandle, b?: QuickJSHandle) => QuickJSHandle | { error: QuickJSHandle } | undefined;

  constructor(private readonly guest: GuestRuntime) {
    this.operation = tagged("intl", (code, spec, a, b) => this.operate(code, spec, a, b));
  }

  /** Whether the shim is in this context (part of a session snapshot's state). */
  get isInstalled(): boolean {
    return this.installed;
  }

  /** Marks the shim installed as in a restored snapshot (its guest side is in the restored heap). */
  set isInstalled(value: boolean) {
    this.installed = value;
  }

  /** Installs `Intl` (once per context). Returns a thrown handle if the guest failed. */
  install(): QuickJSHandle | undefined {
    if (this.installed) return undefined;
    this.installed = true;
    const ctx = this.guest.context;
    using op = ctx.newFunction("intl", this.operation);
    using namespace = ctx.newString(INTL_NAMESPACE_SOURCE);
    return installShim(ctx, INTL_SHIM_SOURCE, INTL_SHIM_FILE_NAME, [op, namespace]);
  }

  private operate(code: QuickJSHandle, spec: QuickJSHandle, a?: QuickJSHandle, b?: QuickJSHandle): QuickJSHandle | { error: QuickJSHandle } | undefined {
    const ctx = this.guest.context;
    try {
      const opCode = ctx.typeof(code) === "number" ? ctx.getNumber(code) : -1;
      const specText = this.text(spec) ?? "";
      const numericArgs = NUMERIC_OPS.has(opCode);
      const answer = intlOperation(opCode as IntlOp, specText, this.arg(a, numericArgs), this.arg(b, numericArgs));
      if (answer === undefined) return ctx.undefined;
      if (typeof answer === "number") return ctx.newNumber(answer);
      return this.guest.newExactString(answer);
    } catch (error) {
      const refusal = error instanceof IntlRefusal ? error : new IntlRefusal("TypeError", `Intl: ${String((error as Error)?.message ?? error).slice(0, 300)}`);
      return { error: ctx.newError({ name: refusal.errorName, message: refusal.message }) };
    }
  }

  /** A guest string, read only when it fits MAX_TEXT_CHARS characters. */
  private text(handle: QuickJSHandle | undefined): string | undefined {
    if (handle === undefined || this.guest.context.typeof(handle) !== "string") return undefined;
    const read = this.guest.readBoundedString(handle, 3 * MAX_TEXT_CHARS);
    if (read.text === undefined || read.text.length > MAX_TEXT_CHARS) {
      throw new IntlRefusal("RangeError", `Intl in this sandbox takes strings of at most ${MAX_TEXT_CHARS.toLocaleString("en-US")} characters`);
    }
    return read.text;
  }

  private arg(handle: QuickJSHandle | undefined, numeric: boolean): IntlArg {
    if (handle === undefined) return undefined;
    const ctx = this.guest.context;
    const type = ctx.typeof(handle);
    if (type === "number") return ctx.getNumber(handle);
    if (type !== "string") return undefined;
    const text = this.text(handle)!;
    if (!numeric) return text;
    if (text.startsWith("n")) return { bigint: text.slice(1) };
    if (text.startsWith("s")) return { decimal: text.slice(1) };
    throw new IntlRefusal("TypeError", "Intl: malformed number");
  }
}
