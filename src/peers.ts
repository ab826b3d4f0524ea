/**
 * The peer packages each entry point needs, and the check that names the missing ones before an
 * entry loads them: without it a missing peer is Node's `ERR_MODULE_NOT_FOUND` for whichever
 * package happened to be imported first, with no word of what to install. Node built-ins only,
 * so the check itself loads nothing.
 */
import { createRequire } from "node:module";
import { MissingPeerError } from "./errors.js";

/** LangChain's packages every LangChain-facing entry loads. */
const LANGCHAIN = ["@langchain/core", "@langchain/langgraph", "langchain", "zod"] as const;

/**
 * What each entry needs to load (or, for the CLI's commands and MCP's `solve`, to run): the
 * graph's front doors also need `@langchain/openai`, the default model's provider.
 */
export const PEERS = {
  "codegen-sandbox/tools": LANGCHAIN,
  "codegen-sandbox/graph": LANGCHAIN,
  "codegen-sandbox/mcp": ["zod"],
  // The SDK runs the graph to generate and instantiate (the model is its own backend).
  "codegen-sandbox/sdk generateAndInstantiate": LANGCHAIN,
  "codegen-sandbox mcp solve": [...LANGCHAIN, "@langchain/openai"],
  "codegen-sandbox solve": [...LANGCHAIN, "@langchain/openai"],
  "codegen-sandbox demo": [...LANGCHAIN, "@langchain/openai"],
  "codegen-sandbox eval": [...LANGCHAIN, "@langchain/openai"],
} as const satisfies Record<string, readonly string[]>;

/** An entry point with peers. */
export type PeerEntry = keyof typeof PEERS;

// Resolved from this package's own place, as its imports are.
const resolver = createRequire(new URL("./peers.js", import.meta.url));

/** Whether `name` resolves from this package (present even when its root is not `require`-able). */
function installed(name: string): boolean {
  try {
    resolver.resolve(name);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code !== "MODULE_NOT_FOUND";
  }
}

/** The packages of `entry` that are not installed. */
export function missingPeers(entry: PeerEntry): string[] {
  return PEERS[entry].filter((name) => !installed(name));
}

/** Throws `MissingPeerError` naming what `entry` lacks and the `npm install` line, if it lacks anything. */
export function requirePeers(entry: PeerEntry): void {
  const missing = missingPeers(entry);
  if (missing.length > 0) throw new MissingPeerError(entry, missing, PEERS[entry]);
}
