/**
 * Which files a deepagents agent's file tools act on, asked of the agent's own `ls` tool. Code mode
 * without a `backend` shares the agent's files through the `files` state channel; that holds only
 * while deepagents keeps its files there (its default `StateBackend`). deepagents keeps the backend
 * in its tools' closures, out of a middleware's reach, so the agent's `ls` is asked once what it
 * lists when the state holds one probe file and nothing else: a state backend lists exactly that
 * file; any other backend (a `FilesystemBackend`, a sandbox, a store, a `CompositeBackend` with
 * routes) lists its own files, or its routes beside the probe.
 */
import { randomUUID } from "node:crypto";
import type { RunnableConfig } from "@langchain/core/runnables";
import { InvalidOptionError } from "../errors.js";

/** deepagents' file tools: an agent that has them all is a deepagents agent with a file system. */
export const DEEPAGENTS_FILE_TOOLS = ["ls", "read_file", "write_file", "edit_file", "glob", "grep"] as const;

/** deepagents' channel read/write hooks (LangGraph's `__pregel_read` / `__pregel_send`), used by a zero-argument `StateBackend`. */
const PREGEL_READ = "__pregel_read";
const PREGEL_SEND = "__pregel_send";

type Invocable = { name?: unknown; invoke: (input: unknown, config?: RunnableConfig) => Promise<unknown> };

/** The runtime pieces of a model call a backend factory may read (its thread, store, context). */
export type ProbeRuntime = { configurable?: Record<string, unknown>; store?: unknown; context?: unknown } | undefined;

/** The agent's tool named `name`, if it has one that can be invoked. */
function toolNamed(tools: readonly unknown[], name: string): Invocable | undefined {
  for (const t of tools) {
    const candidate = t as Partial<Invocable> | null;
    if (candidate?.name === name && typeof candidate.invoke === "function") return candidate as Invocable;
  }
  return undefined;
}

/** Whether `tools` are deepagents' file tools (all of them). */
export function hasDeepagentsFileTools(tools: readonly unknown[]): boolean {
  const names = new Set(tools.map((t) => (t as { name?: unknown } | null)?.name));
  return DEEPAGENTS_FILE_TOOLS.every((name) => names.has(name));
}

/**
 * Asks the agent's `ls` what `/` holds when the state's `files` hold only a probe file: `true`
 * when it lists exactly that file (its files are the state's, shared with code mode), `false`
 * otherwise (or when `ls` fails, which leaves it unknown).
 */
export async function filesLiveInState(tools: readonly unknown[], runtime: ProbeRuntime): Promise<boolean> {
  const ls = toolNamed(tools, "ls");
  if (!ls) return false;
  const probePath = `/.codegen-sandbox-probe-${randomUUID()}`;
  const now = new Date(0).toISOString();
  const files = { [probePath]: { content: "x", mimeType: "text/plain", created_at: now, modified_at: now } };
  const configurable: Record<string, unknown> = {
    ...(runtime?.configurable ?? {}),
    // A zero-argument StateBackend reads the channel through LangGraph's read hook.
    [PREGEL_READ]: (channel: string) => (channel === "files" ? files : undefined),
    [PREGEL_SEND]: () => undefined,
  };
  let listed: unknown;
  try {
    // No callbacks: the probe is not one of the agent's runs (and is not traced as one).
    listed = await ls.invoke({ path: "/" }, { configurable, state: { files }, store: runtime?.store, context: runtime?.context, callbacks: undefined } as RunnableConfig);
  } catch {
    return false;
  }
  const lines = String(typeof listed === "string" ? listed : ((listed as { content?: unknown } | null)?.content ?? ""))
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return lines.length === 1 && (lines[0] === probePath || lines[0]!.startsWith(`${probePath} `));
}

/**
 * The refusal of a code mode without `backend` in a deepagents agent whose files live elsewhere:
 * code would read and write a file system of its own while `write_file` and `execute` use the agent's.
 */
export function backendNotGivenError(): InvalidOptionError {
  return new InvalidOptionError(
    "backend",
    undefined,
    "the backend you gave createDeepAgent, given to code mode too: createDeepAgent({ backend, middleware: [codeModeMiddleware({ backend, ... })] })",
    {
      problem:
        "not given, but this deepagents agent keeps its files in a backend other than its state (its ls does not list the state's files), which code mode cannot reach by itself; without it code would not see what write_file wrote, nor execute what code wrote",
    },
  );
}
