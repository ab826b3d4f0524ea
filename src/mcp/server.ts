/**
 * `createMcpServer`: the sandbox as an MCP server. One server owns one sandbox, one registry of
 * code sessions and one run limiter; every transport connected to it (stdio, each Streamable
 * HTTP session, an in-memory pair) gets its own protocol-level `McpServer` over that shared
 * state, so a session handle opened on one connection works on any other of the same server.
 */
import { createRequire } from "node:module";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { SandboxDisposedError } from "../errors.js";
import { createSandbox } from "../sandbox/sandbox.js";
import { refuseMalformedCalls } from "./call-params.js";
import { resolveMcpOptions, type ResolvedMcpOptions, type SandboxMcpServerOptions } from "./options.js";
import { RunLimiter } from "./run-limiter.js";
import { toolInputSchemas } from "./schemas.js";
import { SessionRegistry } from "./sessions.js";
import type { ToolContext } from "./tool-context.js";
import { registerTools, SERVER_INSTRUCTIONS } from "./tools.js";

/**
 * Array elements plus object members one `tools/call` may carry: far above any real call (a
 * program is one string), far below what would stall the server while it is checked.
 */
const MAX_TOOL_INPUT_ELEMENTS = 10_000;
/** How long `close()` waits for aborted runs to end before it disposes the sandbox under them. */
const CLOSE_GRACE_MS = 5000;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** The sandbox as an MCP server: connect transports to it, close it when done. */
export interface SandboxMcpServer {
  /** The limits and settings this server runs with (every default filled in). */
  readonly options: Readonly<Omit<ResolvedMcpOptions, "sandbox" | "model" | "env">>;
  /**
   * Serves MCP on `transport` (a `StdioServerTransport`, a `StreamableHTTPServerTransport`, an
   * in-memory transport...). Resolves once the transport is started; the connection ends when
   * the transport closes or the server does.
   *
   * @throws SandboxDisposedError after `close()`.
   */
  connect(transport: Transport): Promise<void>;
  /** Connections open now. */
  readonly connectionCount: number;
  /** Code sessions open now. */
  readonly sessionCount: number;
  readonly closed: boolean;
  /**
   * Closes every connection (in-flight calls are aborted: their runs end `cancelled`), every
   * code session and its timer, and the sandbox when the server created it.
   */
  close(): Promise<void>;
}

function packageVersion(): string {
  try {
    return (createRequire(import.meta.url)("codegen-sandbox/package.json") as { version: string }).version;
  } catch {
    return "0.0.0";
  }
}

/**
 * Creates the sandbox's MCP server with the tools `run_code`, `check_code`, `solve`,
 * `open_session` and `close_session`. Nothing starts until a transport connects; the sandbox
 * starts engines on first use.
 *
 * @throws InvalidOptionError for a bad option.
 * @example
 * ```ts
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
 * import { createMcpServer } from "codegen-sandbox/mcp";
 *
 * const server = createMcpServer({ timeoutMs: 2000, maxSessions: 4 });
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createMcpServer(options: SandboxMcpServerOptions = {}): SandboxMcpServer {
  const resolved = resolveMcpOptions(options);
  const ownsSandbox = resolved.sandbox === undefined;
  const sandbox =
    resolved.sandbox ??
    createSandbox({
      defaults: {
        timeoutMs: resolved.timeoutMs,
        memoryLimitBytes: resolved.memoryLimitBytes,
        maxOutputBytes: resolved.maxOutputBytes,
        maxFileBytes: resolved.maxFileBytes,
        maxTotalFileBytes: resolved.maxTotalFileBytes,
      },
      ...(resolved.python ? { python: resolved.python } : {}),
    });
  const sessions = new SessionRegistry({
    maxSessions: resolved.maxSessions,
    idleMs: resolved.sessionIdleMs,
    create: (language) => sandbox.createSession({ language, memoryLimitBytes: resolved.memoryLimitBytes }),
  });
  const context: ToolContext = { options: resolved, sandbox, sessions, limiter: new RunLimiter(resolved.maxConcurrentRuns, resolved.maxConcurrentRuns * resolved.maxTotalFileBytes) };
  const inputs = toolInputSchemas(resolved);
  const version = packageVersion();
  const connections = new Set<McpServer>();
  let closing: Promise<void> | undefined;
  const { sandbox: _sandbox, model: _model, env: _env, ...publicOptions } = resolved;

  return {
    options: Object.freeze(publicOptions),
    get connectionCount() {
      return connections.size;
    },
    get sessionCount() {
      return sessions.size;
    },
    get closed() {
      return closing !== undefined;
    },

    async connect(transport: Transport): Promise<void> {
      if (closing !== undefined) throw new SandboxDisposedError("This MCP server");
      const server = new McpServer(
        { name: "codegen-sandbox", version },
        { capabilities: { tools: {} }, instructions: SERVER_INSTRUCTIONS, maxToolInputElements: MAX_TOOL_INPUT_ELEMENTS },
      );
      registerTools(server, context, inputs);
      connections.add(server);
      server.server.onclose = () => connections.delete(server);
      try {
        await server.connect(transport);
        refuseMalformedCalls(transport);
      } catch (error) {
        connections.delete(server);
        throw error;
      }
    },

    close(): Promise<void> {
      closing ??= (async () => {
        // Closing a connection aborts its in-flight handlers; their runs end `cancelled` before
        // the sessions and the sandbox go (bounded, so a stuck engine cannot hold close forever).
        await Promise.allSettled([...connections].map((server) => server.close()));
        await Promise.race([context.limiter.whenIdle(), delay(CLOSE_GRACE_MS)]);
        await sessions.dispose();
        if (ownsSandbox) await sandbox.dispose();
      })();
      return closing;
    },
  };
}
