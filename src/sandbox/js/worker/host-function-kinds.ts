/**
 * What each function the worker hands QuickJS (`newFunction`) is, by kind, so that a session's
 * snapshot can name the host functions its context holds and a fresh context can map the same
 * ids to its own closures of the same kinds (see session-snapshot.ts). Every such closure is
 * made once per context and tagged here; a closure without a kind makes a context refuse a
 * snapshot.
 */

/** Kinds of host functions; those ending in `run` belong to one run and are never snapshotted. */
export type HostFunctionKind =
  | "console.get"
  | "console.set"
  | `console.${"log" | "info" | "debug" | "warn" | "error" | "trace" | "assert"}`
  | "bridge"
  | "files"
  | "intl"
  | "throw-mark"
  | "tests-mark"
  | "tests-keep-run"
  | "tests-case-run";

const kinds = new WeakMap<object, HostFunctionKind>();

/** Tags `fn` with `kind` and returns it. */
export function tagged<T extends (...args: never[]) => unknown>(kind: HostFunctionKind, fn: T): T {
  kinds.set(fn, kind);
  return fn;
}

/** The kind of a function given to QuickJS, if it was tagged. */
export function kindOf(fn: unknown): HostFunctionKind | undefined {
  return typeof fn === "function" ? kinds.get(fn) : undefined;
}

/** Kinds a restored context has closures for (see `GuestContext.adoptState`). */
export const RESTORABLE_KINDS: ReadonlySet<string> = new Set<HostFunctionKind>([
  "console.get",
  "console.set",
  "console.log",
  "console.info",
  "console.debug",
  "console.warn",
  "console.error",
  "console.trace",
  "console.assert",
  "bridge",
  "files",
  "intl",
  "throw-mark",
  "tests-mark",
]);
