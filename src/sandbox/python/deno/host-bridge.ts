/**
 * The worker's end of host calls: the JavaScript object Python gets as `_cs_hooks` (see
 * prelude-run.ts), with one method, `hostCall`. It is made, with `post` captured, before any
 * user code runs; the guest can reach it (it is the capability the run was granted), but only to
 * ask for a host call of the current run, which the runner and the host bound, count and time.
 * Nothing reachable from Python can end a run, set its phase, its status or its tests' verdict:
 * the worker decides those itself (worker.ts).
 */
import { MAX_HOST_ARGS_CHARS, MAX_HOST_NAME_CHARS } from "../shared/bounds.js";
import type { HostReply, WorkerMessage } from "../shared/protocol.js";

/** What Python calls; every argument is checked, since the guest can call it too. */
export interface PythonHooks {
  hostCall(name: unknown, argsJson: unknown): number | string;
}

/** The reply as the JSON text Python reads: `{"ok":true,"value":...}` or `{"ok":false,"name":...,"message":...}`. */
export function replyText(reply: HostReply): string {
  if (reply.ok) return reply.valueJson === undefined ? '{"ok":true}' : `{"ok":true,"value":${reply.valueJson}}`;
  return JSON.stringify({ ok: false, name: reply.name, message: reply.message });
}

/**
 * Per-worker bridge: one run at a time; `begin` grants run `id` its host functions, `end`
 * takes them back.
 *
 * @example
 * const bridge = createHostBridge((m) => postMessage(m));
 * runtimeNamespace.set("_cs_hooks", bridge.hooks);
 */
export function createHostBridge(post: (message: WorkerMessage) => void) {
  let run = -1;
  let nextCallId = 1;
  let hostNames = new Set<string>();

  const hooks: PythonHooks = Object.freeze<PythonHooks>({
    hostCall(name, argsJson) {
      if (run < 0) return "no run is active: host functions can be called only while the run that received them lasts";
      if (typeof name !== "string" || !hostNames.has(name)) return `no host function named ${String(name).slice(0, 80)} in this run`;
      if (typeof argsJson !== "string") return "host call arguments must be JSON text";
      if (argsJson.length > MAX_HOST_ARGS_CHARS) {
        return `the arguments of ${name}() are ${argsJson.length} characters of JSON, over the ${MAX_HOST_ARGS_CHARS}-character limit; pass less data`;
      }
      const callId = nextCallId++;
      post({ type: "host-call", run, callId, name, argsJson });
      return callId;
    },
  });

  return {
    hooks,
    /** Starts run `id` with these host function names. */
    begin(id: number, names: readonly string[]): void {
      run = id;
      hostNames = new Set(names.filter((n) => n.length <= MAX_HOST_NAME_CHARS));
    },
    /** True when `id` is the run in progress. */
    isCurrent(id: number): boolean {
      return id === run && run >= 0;
    },
    end(): void {
      run = -1;
      hostNames = new Set();
    },
  };
}

export type HostBridge = ReturnType<typeof createHostBridge>;
