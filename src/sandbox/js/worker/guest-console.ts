/**
 * The guest's `console`, made by the host on first use: its methods format strings, numbers
 * and booleans on the host; only other values go through the prelude's `inspect`. The guest
 * may replace `console`; the replacement is held until the context ends.
 */
import type { QuickJSHandle } from "quickjs-emscripten-core";
import type { GuestHelpers } from "./guest-helpers.js";
import { HelperOp } from "./guest-helpers.js";
import type { GuestRuntime } from "./guest-runtime.js";
import { tagged, type HostFunctionKind } from "./host-function-kinds.js";
import { adoptHandle } from "./engine-internals.js";

type QuickJSHandleFn = (...args: QuickJSHandle[]) => void;

const UNPRINTABLE = "[value that cannot be printed]";

/** Where console methods write. */
export interface ConsoleSink {
  /** False when no run is in progress or the run was stopped: the write is dropped unformatted. */
  accepts(): boolean;
  write(stream: "stdout" | "stderr", text: string): void;
}

/** The `console` global of one context. */
export class GuestConsole {
  /** The guest's `console` (ours, or what the guest assigned), once first read. */
  private handle: QuickJSHandle | undefined;
  /** The methods' closures, made once per context (a snapshot maps host-function ids to them by kind). */
  private readonly methods: [string, QuickJSHandleFn][];

  constructor(
    private readonly guest: GuestRuntime,
    private readonly helpers: GuestHelpers,
    private readonly sink: ConsoleSink,
  ) {
    const ctx = guest.context;
    const streams: [string, "stdout" | "stderr"][] = [
      ["log", "stdout"],
      ["info", "stdout"],
      ["debug", "stdout"],
      ["warn", "stderr"],
      ["error", "stderr"],
      ["trace", "stderr"],
    ];
    this.methods = streams.map(([name, stream]) => [
      name,
      tagged(`console.${name}` as HostFunctionKind, (...args: QuickJSHandle[]) => {
        if (this.sink.accepts()) this.sink.write(stream, `${this.format(args)}\n`);
      }),
    ]);
    this.methods.push([
      "assert",
      tagged("console.assert", (condition?: QuickJSHandle, ...rest: QuickJSHandle[]) => {
        if (condition !== undefined && this.truthy(condition)) return;
        if (!this.sink.accepts()) return;
        this.sink.write("stderr", rest.length > 0 ? `Assertion failed: ${this.format(rest)}\n` : "Assertion failed\n");
      }),
    ]);
    // Named by their variables: the accessors' names ("get", "set") are what the guest sees.
    const get = (): QuickJSHandle => {
      this.handle ??= this.make();
      return this.handle.dup();
    };
    const set = (value: QuickJSHandle): void => {
      this.handle?.dispose();
      this.handle = value.dup();
    };
    this.accessors = { get: tagged("console.get", get), set: tagged("console.set", set) };
    ctx.defineProp(ctx.global, "console", { ...this.accessors, configurable: true, enumerable: false });
  }

  private readonly accessors: { get: () => QuickJSHandle; set: (value: QuickJSHandle) => void };

  /** The closures of this console by kind (what a snapshot's host-function ids are mapped to). */
  closures(): [HostFunctionKind, unknown][] {
    return [
      ["console.get", this.accessors.get],
      ["console.set", this.accessors.set],
      ...this.methods.map(([name, fn]): [HostFunctionKind, unknown] => [`console.${name}` as HostFunctionKind, fn]),
    ];
  }

  /** The heap pointer of the held `console` value, 0 when none was read yet (part of a snapshot's state). */
  get heldPointer(): number {
    return this.handle?.alive ? (this.handle.value as unknown as number) : 0;
  }

  /** Takes the held `console` value of a restored snapshot: the value at `pointer` of the restored heap. */
  adoptHeld(pointer: number): void {
    this.handle = pointer === 0 ? undefined : adoptHandle(this.guest.context, pointer);
  }

  /** Makes the guest's `console` now (a pool worker's pristine image has it, so no run pays for it). */
  preload(): void {
    this.handle ??= this.make();
  }

  /** Releases the held `console` (before the context is disposed). */
  dispose(): void {
    this.handle?.dispose();
    this.handle = undefined;
  }

  /** Formats console arguments like Node: strings raw, numbers and booleans as text, the rest inspected. */
  format(args: QuickJSHandle[]): string {
    const ctx = this.guest.context;
    let text = "";
    for (let i = 0; i < args.length; i++) {
      const h = args[i];
      let piece: string;
      switch (ctx.typeof(h)) {
        case "string":
          piece = this.guest.exactString(h);
          break;
        case "number": {
          const n = ctx.getNumber(h);
          piece = Object.is(n, -0) ? "-0" : String(n);
          break;
        }
        case "boolean":
          piece = ctx.sameValue(h, ctx.true) ? "true" : "false";
          break;
        case "undefined":
          piece = "undefined";
          break;
        default:
          piece = this.inspect(h);
      }
      text += i > 0 ? ` ${piece}` : piece;
    }
    return text;
  }

  private make(): QuickJSHandle {
    const ctx = this.guest.context;
    const object = ctx.newObject();
    for (const [name, closure] of this.methods) {
      using fn = ctx.newFunction(name, closure as (...args: QuickJSHandle[]) => QuickJSHandle | undefined);
      ctx.setProp(object, name, fn);
    }
    return object;
  }

  private inspect(h: QuickJSHandle): string {
    return this.helpers.text(HelperOp.Inspect, h) ?? UNPRINTABLE;
  }

  private truthy(h: QuickJSHandle): boolean {
    const ctx = this.guest.context;
    switch (ctx.typeof(h)) {
      case "boolean":
        return ctx.sameValue(h, ctx.true);
      case "number": {
        const n = ctx.getNumber(h);
        return n !== 0 && !Number.isNaN(n);
      }
      case "string":
        return ctx.getString(h) !== "";
      case "undefined":
        return false;
      case "bigint":
        return this.inspect(h) !== "0n";
      default:
        return !ctx.sameValue(h, ctx.null);
    }
  }
}
