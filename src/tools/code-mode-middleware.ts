/**
 * `codeModeMiddleware`: turns a LangChain v1 agent into a code-mode agent. It adds the code
 * tool, a system-prompt section with the signatures of the tools callable from code and how
 * state and files work, and the state channels (`codeCells`, and `files` unless the files live
 * in a deepagents `backend`) that keep a thread's definitions and files in its checkpoint.
 * Inside `createDeepAgent` the `files` channel is deepagents' own (the same data): code and
 * the file tools share the thread's files; an agent whose files live in another backend needs that
 * backend given here too, and without it is refused before its first model call (code and the file
 * tools would each see their own files). Tools given by name (`"task"`, `"read_file"`) are the
 * agent's own, resolved from the tools the agent gives its model on each model call.
 */
import { InvalidOptionError } from "../errors.js";
import { createMiddleware } from "langchain";
import { AIMessage, SystemMessage } from "@langchain/core/messages";
import type { ToolRuntime } from "@langchain/core/tools";
import { Command, StateSchema } from "@langchain/langgraph";
import {
  CODE_INTERPRETER_OPTION_RULES,
  codeModePromptSection,
  codeModeStateFields,
  codeModeToolSignatures,
  contentsGoToStore,
  graphScope,
  holdsStoredFiles,
  isGraphStore,
  middlewareToolDescription,
  moveFilesToStore,
  parseToolSpecs,
  resolveToolSpecs,
  unresolvedTools,
  type CodeInterpreterToolOptions,
  type CodeModeTool,
  type CodeModeToolSpec,
  type ResolvedTools,
  type ToolSpecs,
} from "../code-mode/index.js";
import { buildCodeInterpreterTool, prestartCodeThread } from "./code-interpreter-tool.js";
import { BoundedMap } from "../common/bounded-map.js";
import { checkOptions, rule, type OptionRules } from "../options/index.js";
import { resolveLanguages } from "../sandbox/options.js";
import { backendNotGivenError, filesLiveInState, hasDeepagentsFileTools, type ProbeRuntime } from "./deepagents-backend.js";

/** Options of `codeModeMiddleware`: those of `createCodeInterpreterTool`, with `"thread"` persistence by default. */
export type CodeModeMiddlewareOptions = Omit<CodeInterpreterToolOptions, "description" | "tools"> & {
  /**
   * Tools code may call: LangChain tool instances (used as given), and names of the agent's own
   * tools (resolved from the tools the agent gives its model, so deepagents' `task`, `read_file`,
   * `write_file`, … work by name). A name the agent does not have is left out of the prompt, and
   * calling it raises `ToolNotAvailableError` in the code.
   */
  tools?: CodeModeToolSpec[];
};

/**
 * Which tools each code call gets. The model call that wrote a code call saw the agent's tools:
 * they are kept by that call's id (exact, even when one middleware serves several agents), and
 * by thread and graph run for calls whose model call happened before this process started.
 */
class AgentTools {
  private readonly byCall = new BoundedMap<string, Map<string, CodeModeTool>>(1024);
  private readonly byRun = new BoundedMap<string, Map<string, CodeModeTool>>(256);
  private readonly warned = new Set<string>();

  constructor(
    private readonly specs: ToolSpecs,
    private readonly codeToolName: string,
  ) {}

  private static runKey(configurable: Record<string, unknown> | undefined): string {
    const scope = graphScope(configurable ? { configurable } : undefined) ?? "";
    return `${String(configurable?.thread_id ?? "")}\u0000${scope}`;
  }

  /** Resolves the specs against the tools of one model call and remembers them for its code calls. */
  resolve(agentTools: readonly unknown[], configurable: Record<string, unknown> | undefined): ResolvedTools {
    const resolved = resolveToolSpecs(this.specs, agentTools);
    this.byRun.set(AgentTools.runKey(configurable), resolved.tools);
    // At the top of the graph a missing name is most likely a typo; a nested agent (a subagent)
    // may well lack a tool its parent has.
    if (graphScope(configurable ? { configurable } : undefined) === "") {
      for (const name of resolved.missing) {
        if (this.warned.has(name)) continue;
        this.warned.add(name);
        console.warn(`codeModeMiddleware: tools lists "${name}", but the agent has no tool of that name; code cannot call it`);
      }
    }
    return resolved;
  }

  /** Keeps `tools` for the code calls in `response`. */
  remember(response: unknown, tools: Map<string, CodeModeTool>): void {
    if (!AIMessage.isInstance(response)) return;
    for (const call of response.tool_calls ?? []) {
      if (call.name === this.codeToolName && typeof call.id === "string") this.byCall.set(call.id, tools);
    }
  }

  /** The tools of one code call. */
  forCall(runtime: Partial<ToolRuntime> | undefined): Map<string, CodeModeTool> {
    if (this.specs.byName.length === 0) return new Map(this.specs.instances);
    if (runtime === undefined) return unresolvedTools(this.specs);
    const id = runtime.toolCallId ?? runtime.toolCall?.id;
    const configurable = runtime.configurable as Record<string, unknown> | undefined;
    return (typeof id === "string" ? this.byCall.get(id) : undefined) ?? this.byRun.get(AgentTools.runKey(configurable)) ?? unresolvedTools(this.specs);
  }
}

/**
 * A LangChain v1 agent middleware for code mode: the agent gets an `execute_code` tool whose
 * programs can call `tools` (instances, or the agent's own tools by name: `"task"` runs a
 * subagent), keep their definitions and files across calls of the same thread (saved in the
 * checkpoint, so the thread continues in another process), and a system-prompt section that
 * shows the tool signatures.
 *
 * @example
 * ```ts
 * import { createAgent } from "langchain";
 * import { MemorySaver } from "@langchain/langgraph";
 * const agent = createAgent({ model, middleware: [codeModeMiddleware({ tools: [getWeather] })], checkpointer: new MemorySaver() });
 * await agent.invoke({ messages: [{ role: "user", content: "Weather in 10 cities?" }] }, { configurable: { thread_id: "t1" } });
 * ```
 */
export function codeModeMiddleware(given: CodeModeMiddlewareOptions = {}) {
  const { description: _description, tools: _toolsRule, ...common } = CODE_INTERPRETER_OPTION_RULES;
  // `tools` takes names of the agent's tools too; parseToolSpecs checks each entry below.
  const rules = { ...common, tools: rule("an array of LangChain tools or names of the agent's tools", Array.isArray) };
  const options = checkOptions<CodeModeMiddlewareOptions>(given, rules satisfies OptionRules<CodeModeMiddlewareOptions>, "codeModeMiddleware");
  const persistence = options.persistence ?? "thread";
  const languages = resolveLanguages(options.languages);
  const toolName = options.name ?? "execute_code";
  const hostFunctionNames = Object.keys(options.hostFunctions ?? {});
  const specs = parseToolSpecs(options.tools, "tools", toolName, true);
  const agentTools = new AgentTools(specs, toolName);
  const { tools: _tools, ...rest } = options;
  // The profile of the model that wrote each code call (its `imageToolMessage` chooses how images return).
  const profiles = new BoundedMap<string, { imageToolMessage?: boolean }>(1024);
  // Whether each code call's agent may keep contents in the store (fileContents unset):
  // not when deepagents' file tools read the `files` channel, which cannot read references.
  const storeAllowedByCall = new BoundedMap<string, boolean>(1024);
  const codeTool = buildCodeInterpreterTool(
    { ...rest, persistence, description: middlewareToolDescription(languages, hostFunctionNames, persistence, specs.names.length > 0) },
    {
      specs,
      resolveTools: (runtime) => agentTools.forCall(runtime),
      modelProfile: (runtime) => {
        const id = runtime?.toolCallId ?? runtime?.toolCall?.id;
        return typeof id === "string" ? profiles.get(id) : undefined;
      },
      // A call whose model call ran in another process: the thread's own choice, seen in its files.
      storeAllowed: (runtime, state) => {
        const id = runtime?.toolCallId ?? runtime?.toolCall?.id;
        return (typeof id === "string" ? storeAllowedByCall.get(id) : undefined) ?? (options.backend !== undefined || holdsStoredFiles(state.files));
      },
    },
  );

  // One prompt section per set of available tools (agents sharing this middleware may differ).
  const ids = new WeakMap<object, number>();
  let nextId = 0;
  const idOf = (t: CodeModeTool) => {
    let id = ids.get(t);
    if (id === undefined) ids.set(t, (id = nextId++));
    return id;
  };
  const sections = new BoundedMap<string, Promise<string>>(32);
  const promptSection = (available: CodeModeTool[]) => {
    const key = available.map(idOf).join(",");
    let section = sections.get(key);
    if (!section) {
      section = (available.length > 0 ? codeModeToolSignatures(available, languages) : Promise.resolve(undefined)).then((signatures) =>
        codeModePromptSection(languages, signatures, persistence, toolName, { subagents: available.some((t) => t.name === "task") }),
      );
      sections.set(key, section);
    }
    return section;
  };

  // Without a backend, code shares deepagents' files only through its state channel: asked once
  // per agent (its `ls` tool) whether that is where the agent's files are.
  const sharesState = new WeakMap<object, Promise<boolean>>();
  const checkSharedFiles = async (tools: readonly unknown[], runtime: ProbeRuntime) => {
    if (options.backend !== undefined || !hasDeepagentsFileTools(tools)) return;
    const ls = tools.find((t) => (t as { name?: unknown } | null)?.name === "ls") as object;
    let verdict = sharesState.get(ls);
    if (!verdict) sharesState.set(ls, (verdict = filesLiveInState(tools, runtime)));
    if (!(await verdict)) throw backendNotGivenError();
  };

  // With a backend the files are the backend's: no channel of ours holds them.
  const fields = (options.backend !== undefined ? { codeCells: codeModeStateFields.codeCells, codeFileContents: codeModeStateFields.codeFileContents } : codeModeStateFields) as typeof codeModeStateFields;
  return createMiddleware({
    name: "CodeModeMiddleware",
    stateSchema: new StateSchema(fields),
    tools: [codeTool],
    wrapModelCall: async (request, handler) => {
      // While the model writes its reply, the thread's sessions' engines start (a restart's
      // first call then restores without waiting for a worker or a Python process to start).
      prestartCodeThread(codeTool, request.state as Record<string, unknown> | undefined, request.runtime as Parameters<typeof prestartCodeThread>[2]);
      if (options.fileContents === "store" && options.backend === undefined) refuseStateBackendFileTools(request.tools ?? []);
      await checkSharedFiles(request.tools ?? [], request.runtime as ProbeRuntime);
      const resolved = agentTools.resolve(request.tools ?? [], request.runtime?.configurable as Record<string, unknown> | undefined);
      const text = await promptSection(resolved.available);
      const base = request.systemMessage;
      // A text-only system prompt stays one plain string (some providers accept nothing else).
      const textOnly = typeof base.content === "string" || base.content.every((block) => block.type === "text");
      const systemMessage = textOnly
        ? new SystemMessage(base.text.length > 0 ? `${base.text}\n\n${text}` : text)
        : base.concat(`\n\n${text}`);
      const response = await handler({ ...request, systemMessage });
      agentTools.remember(response, resolved.tools);
      const profile = modelProfileOf(request.model);
      if (!AIMessage.isInstance(response)) return response;
      const codeCalls = (response.tool_calls ?? []).filter((call) => call.name === toolName && typeof call.id === "string");
      const storeAllowed = options.backend !== undefined || !hasDeepagentsFileTools(request.tools ?? []);
      for (const call of codeCalls) {
        if (profile) profiles.set(call.id!, profile);
        storeAllowedByCall.set(call.id!, storeAllowed);
      }
      // Contents another node left inline in `files` (the graph's input) go to the store in this
      // step, so the code calls' `Send`s carry their references (content-by-digest.ts).
      const store = request.runtime?.store;
      const threadId = request.runtime?.configurable?.thread_id;
      if (codeCalls.length === 0 || persistence !== "thread" || options.backend !== undefined || threadId === undefined) return response;
      if (!isGraphStore(store) || !contentsGoToStore(options.fileContents, store, storeAllowed)) return response;
      const moved = await moveFilesToStore((request.state as { files?: unknown } | undefined)?.files, store, String(threadId));
      // The agent keeps the message: a Command from this hook is applied with it, in the same step.
      return moved ? new Command({ update: { files: moved } }) : response;
    },
  });
}

/** A chat model's LangChain profile (`model.profile`), when it has one; a getter that throws counts as none. */
function modelProfileOf(model: unknown): { imageToolMessage?: boolean } | undefined {
  try {
    const profile = (model as { profile?: unknown } | undefined)?.profile;
    return profile !== null && typeof profile === "object" ? (profile as { imageToolMessage?: boolean }) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * With `fileContents: "store"` and no `backend`, `files` holds references, which deepagents' file
 * tools cannot read (and with another deepagents backend code would not share the agent's files):
 * refused before the model runs, with the fix.
 */
function refuseStateBackendFileTools(tools: readonly unknown[]): void {
  if (!hasDeepagentsFileTools(tools)) return;
  throw new InvalidOptionError(
    "fileContents",
    "store",
    "with deepagents' file tools, also the agent's backend (codeModeMiddleware({ fileContents: \"store\", backend }), e.g. the StoreBackend you give createDeepAgent): without it the files channel holds references deepagents' read_file cannot read; or fileContents: \"checkpoint\"",
  );
}
