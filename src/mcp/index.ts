/**
 * codegen-sandbox/mcp: the sandbox as a Model Context Protocol server, for any MCP client
 * (desktop assistants, IDEs, other frameworks, LangChain.js through `@langchain/mcp-adapters`).
 * `createMcpServer` makes the server; `serveStdio` and `startMcpHttpServer` serve it. The CLI's
 * `codegen-sandbox mcp [--http]` is these three calls. Loads the MCP SDK; no other entry does.
 */
export { createMcpServer, type SandboxMcpServer } from "./server.js";
export { serveStdio, type StdioServeOptions } from "./stdio.js";
export { startMcpHttpServer, DEFAULT_MCP_PORT, type McpHttpOptions, type McpHttpServer } from "./http.js";
export { MCP_TOOL_NAMES } from "./tools.js";
export {
  DEFAULT_MAX_CONCURRENT_RUNS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_MS,
  type SandboxMcpServerOptions,
} from "./options.js";
export type { McpFileContent } from "./files.js";
