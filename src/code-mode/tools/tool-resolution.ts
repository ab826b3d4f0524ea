/**
 * Tools code may call, given as instances or as names of the agent's own tools (`"task"`,
 * `"read_file"`): names are resolved against the tools the agent gives its model, which the
 * middleware sees on every model call. The `tools` namespace of the guest always lists every
 * name; a name the agent does not have answers with an error that says so.
 */
import { z } from "zod";
import { InvalidOptionError } from "../../errors.js";
import { checkToolName } from "./tool-bridge.js";
import { GuestToolError, NOT_AVAILABLE_ERROR } from "./tool-errors.js";
import type { CodeModeTool } from "./tool-types.js";

/** A tool code may call: an instance, or the name of one of the agent's tools. */
export type CodeModeToolSpec = CodeModeTool | string;

/** Checked specs: instances by name, and the names to resolve from the agent. */
export interface ToolSpecs {
  /** Every name, in the order given. */
  names: string[];
  instances: Map<string, CodeModeTool>;
  /** Names resolved from the agent's tools. */
  byName: string[];
}

function isTool(value: unknown): value is CodeModeTool {
  return value !== null && typeof value === "object" && typeof (value as CodeModeTool).invoke === "function" && typeof (value as CodeModeTool).name === "string";
}

/**
 * Checks `specs`: instances must be LangChain tools, names identifiers; no name twice; never the
 * code tool itself (`selfName`). Strings are allowed only where an agent resolves them.
 *
 * @throws InvalidOptionError naming `option`.
 */
export function parseToolSpecs(specs: readonly CodeModeToolSpec[] | undefined, option: string, selfName: string, namesAllowed: boolean): ToolSpecs {
  const out: ToolSpecs = { names: [], instances: new Map(), byName: [] };
  if (specs === undefined) return out;
  if (!Array.isArray(specs)) throw new InvalidOptionError(option, specs, "an array of LangChain tools (made with tool() or StructuredTool) or names of the agent's tools");
  for (const [index, spec] of specs.entries()) {
    const name = typeof spec === "string" ? spec : isTool(spec) ? spec.name : undefined;
    if (name === undefined) {
      throw new InvalidOptionError(`${option}[${index}]`, spec, namesAllowed ? "a LangChain tool or the name of one of the agent's tools" : "a LangChain tool (made with tool() or StructuredTool)");
    }
    if (typeof spec === "string" && !namesAllowed) {
      throw new InvalidOptionError(
        `${option}[${index}]`,
        spec,
        "a LangChain tool instance: names of the agent's tools are resolved by codeModeMiddleware, which sees the agent's tools",
      );
    }
    checkToolName(name, typeof spec === "string" ? `${option}[${index}]` : `${option}[${index}].name`);
    if (name === selfName) throw new InvalidOptionError(`${option}[${index}]`, name, `a tool other than the code tool itself (${selfName})`);
    if (out.names.includes(name)) throw new InvalidOptionError(option, name, "tools with distinct names (a name and an instance of the same name count as two)");
    out.names.push(name);
    if (typeof spec === "string") out.byName.push(name);
    else out.instances.set(name, spec);
  }
  return out;
}

/** A stand-in for a name the agent has no tool for: calling it raises `ToolNotAvailableError`. */
export function unavailableTool(name: string, reason: string): CodeModeTool {
  return {
    name,
    description: `(not available: ${reason})`,
    schema: z.object({}).passthrough(),
    invoke: async () => {
      throw new GuestToolError(NOT_AVAILABLE_ERROR, `tools.${name} cannot be called: ${reason}`);
    },
  } as unknown as CodeModeTool;
}

/** The tools of `specs` for one agent: instances as given, names from `agentTools`. */
export interface ResolvedTools {
  /** Every name of the specs: resolved tools, or stand-ins that raise `ToolNotAvailableError`. */
  tools: Map<string, CodeModeTool>;
  /** The tools that are really there (for the signatures the model reads). */
  available: CodeModeTool[];
  /** Names the agent does not have. */
  missing: string[];
}

/**
 * Resolves `specs` against the agent's tools (what `wrapModelCall` sees in `request.tools`;
 * provider-side tools without `invoke` are not callable from code and are skipped).
 *
 * @example
 * ```ts
 * const resolved = resolveToolSpecs(parseToolSpecs(["read_file", myTool], "tools", "execute_code", true), request.tools);
 * resolved.tools.get("read_file"); // deepagents' read_file tool
 * ```
 */
export function resolveToolSpecs(specs: ToolSpecs, agentTools: readonly unknown[]): ResolvedTools {
  const byName = new Map<string, CodeModeTool>();
  for (const t of agentTools) if (isTool(t) && !byName.has(t.name)) byName.set(t.name, t);
  const tools = new Map<string, CodeModeTool>();
  const available: CodeModeTool[] = [];
  const missing: string[] = [];
  const agentNames = [...byName.keys()].filter((n) => !specs.instances.has(n));
  for (const name of specs.names) {
    const found = specs.instances.get(name) ?? byName.get(name);
    if (found) {
      tools.set(name, found);
      available.push(found);
    } else {
      missing.push(name);
      tools.set(name, unavailableTool(name, `this agent has no tool named ${name} (its tools: ${agentNames.join(", ").slice(0, 300) || "none"})`));
    }
  }
  return { tools, available, missing };
}

/** The specs with every name not yet resolved (before the agent's first model call in this process). */
export function unresolvedTools(specs: ToolSpecs): Map<string, CodeModeTool> {
  const tools = new Map<string, CodeModeTool>();
  for (const name of specs.names) {
    tools.set(
      name,
      specs.instances.get(name) ??
        unavailableTool(
          name,
          "it names one of the agent's tools, which code mode learns from the agent's model calls, and this process has not seen one for this run yet (e.g. the run resumed here right at the code tool); call the tool directly, or run the cell again",
        ),
    );
  }
  return tools;
}
