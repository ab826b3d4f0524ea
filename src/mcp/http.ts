/**
 * Serving MCP over Streamable HTTP on `node:http`. Every request passes the `Host`/`Origin`
 * checks and the bearer token first (http-security.ts). Each MCP connection (an `initialize`
 * and its `Mcp-Session-Id`) gets its own transport on the shared server, so cancellation and
 * progress reach the right call; tools never depend on that connection (code sessions are
 * explicit handles). Connections are capped and closed when idle, and all of them close with
 * the listener.
 *
 * Before a socket has sent an authenticated request it holds little and lives briefly: sockets
 * are capped (past the cap the oldest unauthenticated one is closed, so a flood of idle sockets
 * cannot lock real clients out), an unauthenticated socket is closed after
 * `unauthenticatedTimeoutMs` (headers included: Node itself would wait 60 s for a half-sent
 * request), a refusal closes the socket without reading its body, and a body over the byte cap or
 * past the server's byte budget (run-limiter.ts) is refused before it is read.
 */
import { anyValue, arrayRule, booleanRule, checkOptions, integerRule, MAX_TIMER_MS, textRule, type OptionRules } from "../options/index.js";
import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isJSONRPCRequest, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { InvalidOptionError } from "../errors.js";
import { checkRequest, checkToken, CORS_ALLOWED_HEADERS, corsHeaders, isLoopbackHost, originPolicy } from "./http-security.js";
import type { SandboxMcpServer } from "./server.js";
import { maxRequestBytesFor, requestBudgetOf } from "./run-limiter.js";

/** Default port of `codegen-sandbox mcp --http`. */
export const DEFAULT_MCP_PORT = 8765;
/** Default cap on MCP connections (clients) one HTTP listener keeps at once. */
export const DEFAULT_MAX_HTTP_CONNECTIONS = 32;
/** Default cap on TCP sockets one HTTP listener keeps open at once (well under a process's usual 1,024+ descriptors). */
export const DEFAULT_MAX_HTTP_SOCKETS = 256;
/** Default time a socket may stay open before it sends an authenticated request (headers included). */
export const DEFAULT_UNAUTHENTICATED_TIMEOUT_MS = 5_000;
/** Time an authenticated request has to arrive whole (headers and body): 52 MB over a slow link. */
const REQUEST_TIMEOUT_MS = 120_000;

/** Options of `startMcpHttpServer`. */
export interface McpHttpOptions {
  /** Address to listen on. Default `127.0.0.1`. Another than loopback needs `allowRemote`. */
  host?: string;
  /** Port. Default 8765; 0 picks a free one (read it from `url`). */
  port?: number;
  /** The bearer token clients must send. Default: 32 random bytes, returned as `token`. */
  token?: string;
  /** Allow a non-loopback `host` (other machines can then reach the server). Default false. */
  allowRemote?: boolean;
  /** Browser origins allowed besides the server's own loopback origins. Default none. */
  allowedOrigins?: string[];
  /** MCP connections kept at once; past it the longest-idle one is closed. Default 32. */
  maxConnections?: number;
  /** A connection with no open request for this long is closed. Default: the server's `sessionIdleMs`. */
  connectionIdleMs?: number;
  /** TCP sockets kept open at once; past it the oldest one not yet authenticated is closed (or the new one, when all are). Default 256. */
  maxSockets?: number;
  /** A socket that has not sent an authenticated request (its headers included) within this is closed. Default 5,000. */
  unauthenticatedTimeoutMs?: number;
}

/** A listening MCP HTTP endpoint. */
export interface McpHttpServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:8765/mcp`. */
  readonly url: URL;
  /** The bearer token clients must send. */
  readonly token: string;
  /** True when the token was generated here (print it once for the user). */
  readonly tokenGenerated: boolean;
  /** MCP connections open now. */
  readonly connectionCount: number;
  /** TCP sockets open now (at most `maxSockets`). */
  readonly socketCount: number;
  /** Stops listening and closes every connection. The `SandboxMcpServer` stays open (close it yourself). */
  close(): Promise<void>;
}

interface Connection {
  transport: StreamableHTTPServerTransport;
  openRequests: number;
  lastUsed: number;
}

/** The HTTP response a message is being read for, so the calls it carries can be cancelled with it. */
const arrivingWith = new AsyncLocalStorage<ServerResponse>();

/**
 * Cancels the calls of a POST whose client went away before their answers (a closed
 * connection, an aborted fetch): the SDK only stops a call on `notifications/cancelled` or
 * when the whole MCP connection closes, so such a run held its slot to its end (its whole time limit).
 * Each call of the request gets the cancellation a client would have sent.
 */
function cancelCallsOfAbandonedRequests(transport: StreamableHTTPServerTransport): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) return;
  const calls = new WeakMap<ServerResponse, RequestId[]>();
  transport.onmessage = (message, extra) => {
    const res = arrivingWith.getStore();
    if (res !== undefined && isJSONRPCRequest(message)) {
      let ids = calls.get(res);
      if (ids === undefined) {
        ids = [];
        calls.set(res, ids);
        const carried = ids;
        res.once("close", () => {
          // Answered in full: nothing to cancel. Cancelling an answered call is a no-op anyway.
          if (res.writableFinished) return;
          for (const requestId of carried) {
            deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: "the HTTP request was closed before its answer" } });
          }
        });
      }
      ids.push(message.id);
    }
    deliver(message, extra);
  };
}

function jsonError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

const HTTP_OPTION_RULES = {
  host: textRule({ what: "a host name or address" }),
  port: integerRule({ min: 0, max: 65535, unit: "port number" }),
  token: anyValue, // checked below (its length and characters)
  allowRemote: booleanRule,
  allowedOrigins: arrayRule(textRule({ what: "an origin, e.g. http://localhost:3000" }), { what: "an array of origins" }),
  maxConnections: integerRule({ min: 1, max: 100_000, unit: "connections" }),
  connectionIdleMs: integerRule({ min: 1, max: MAX_TIMER_MS, unit: "milliseconds", maxReason: "timers cannot wait longer" }),
  maxSockets: integerRule({ min: 2, max: 100_000, unit: "sockets" }),
  unauthenticatedTimeoutMs: integerRule({ min: 100, max: REQUEST_TIMEOUT_MS - 1, unit: "milliseconds", maxReason: "an authenticated request has 120,000 ms to arrive" }),
} satisfies OptionRules<McpHttpOptions>;

/**
 * Serves `server` over Streamable HTTP at `/mcp`.
 *
 * @throws InvalidOptionError for a non-loopback host without `allowRemote`, a short token or a bad origin.
 * @example
 * ```ts
 * const server = createMcpServer();
 * const http = await startMcpHttpServer(server, { port: 0 });
 * console.error(`MCP at ${http.url}, token ${http.token}`);
 * ```
 */
export async function startMcpHttpServer(server: SandboxMcpServer, given: McpHttpOptions = {}): Promise<McpHttpServer> {
  const options = checkOptions<McpHttpOptions>(given, HTTP_OPTION_RULES, "startMcpHttpServer");
  const host = options.host ?? "127.0.0.1";
  if (!isLoopbackHost(host) && options.allowRemote !== true) {
    throw new InvalidOptionError("host", host, "a loopback address (127.0.0.1, ::1 or localhost), or allowRemote: true (--allow-remote) to let other machines reach the server");
  }
  const port = options.port ?? DEFAULT_MCP_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidOptionError("port", port, "a port number from 0 to 65535");
  const tokenGenerated = options.token === undefined;
  const token = tokenGenerated ? randomBytes(32).toString("base64url") : checkToken(options.token!);
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_HTTP_CONNECTIONS;
  if (!Number.isInteger(maxConnections) || maxConnections < 1) throw new InvalidOptionError("maxConnections", maxConnections, "a whole number of at least 1");
  const idleMs = options.connectionIdleMs ?? server.options.sessionIdleMs;
  if (!Number.isInteger(idleMs) || idleMs < 1 || idleMs > 2 ** 31 - 1) throw new InvalidOptionError("connectionIdleMs", idleMs, "a whole number of milliseconds from 1 to 2147483647");
  const maxRequestBodySize = maxRequestBytesFor(server.options.maxTotalFileBytes);
  const budget = requestBudgetOf(server);
  const maxSockets = options.maxSockets ?? DEFAULT_MAX_HTTP_SOCKETS;
  const unauthenticatedTimeoutMs = options.unauthenticatedTimeoutMs ?? DEFAULT_UNAUTHENTICATED_TIMEOUT_MS;
  /** Sockets that have not sent an authenticated request, oldest first (a Set keeps insertion order). */
  const unauthenticated = new Set<Socket>();
  const authenticated = new Set<Socket>();
  const connections = new Map<string, Connection>();
  let policy = originPolicy(host, port, options.allowedOrigins ?? []);
  let closing = false;

  function closeConnection(id: string): void {
    const connection = connections.get(id);
    connections.delete(id);
    void connection?.transport.close();
  }

  /** Room for one more connection: the longest-idle one goes, or none can be made. */
  function makeRoom(): boolean {
    if (connections.size < maxConnections) return true;
    let oldest: [string, Connection] | undefined;
    for (const entry of connections) {
      if (entry[1].openRequests === 0 && (oldest === undefined || entry[1].lastUsed < oldest[1].lastUsed)) oldest = entry;
    }
    if (oldest === undefined) return false;
    closeConnection(oldest[0]);
    return true;
  }

  function track(connection: Connection, res: ServerResponse): void {
    connection.openRequests++;
    connection.lastUsed = Date.now();
    res.once("close", () => {
      connection.openRequests--;
      connection.lastUsed = Date.now();
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/mcp") return jsonError(res, 404, "Not found: the MCP endpoint is /mcp.");
    const preflight = req.method === "OPTIONS" && req.headers.origin !== undefined && req.headers["access-control-request-method"] !== undefined;
    const refusal = checkRequest(
      { host: req.headers.host, origin: req.headers.origin, authorization: req.headers.authorization },
      policy,
      token,
      preflight,
    );
    if (refusal !== undefined) {
      // A 401 to an allowed origin carries CORS headers, so a browser page can tell the user why.
      // The socket is closed after the answer: its body is never read.
      const cors = refusal.status === 401 ? corsHeaders(req.headers.origin) : {};
      return jsonError(res, refusal.status, refusal.message, { connection: "close", ...(refusal.status === 401 ? { ...cors, "www-authenticate": 'Bearer realm="codegen-sandbox"' } : {}) });
    }
    // A preflight passes without the token: its socket stays unauthenticated.
    if (!preflight) authenticate(req.socket);
    if (req.method === "POST") {
      const declared = req.headers["content-length"] === undefined ? undefined : Number(req.headers["content-length"]);
      if (declared !== undefined && declared > maxRequestBodySize) {
        return jsonError(res, 413, `Request body too large: ${declared} bytes, over the ${maxRequestBodySize}-byte limit (maxTotalFileBytes of files as base64 plus 8 MiB).`, { connection: "close" });
      }
      // A streamed body reserves the largest size (the transport stops reading it there).
      const release = budget.reserve(declared ?? maxRequestBodySize);
      if (release === undefined) {
        return jsonError(res, 503, `The server is busy: requests in progress hold ${budget.heldBytes} bytes of its ${budget.maxBytes}-byte budget. Try again in a moment.`, { connection: "close", "retry-after": "1" });
      }
      res.once("close", release);
    }
    for (const [name, value] of Object.entries(corsHeaders(req.headers.origin))) res.setHeader(name, value);
    if (preflight) {
      res.writeHead(204, {
        "access-control-allow-methods": "GET, POST, DELETE",
        "access-control-allow-headers": CORS_ALLOWED_HEADERS,
        "access-control-max-age": "600",
      });
      res.end();
      return;
    }
    if (closing) return jsonError(res, 503, "The server is shutting down.");
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const connection = connections.get(sessionId);
      if (connection === undefined) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found: initialize a new MCP connection." }, id: null }));
        return;
      }
      track(connection, res);
      await arrivingWith.run(res, () => connection.transport.handleRequest(req, res));
      return;
    }
    if (req.method !== "POST") return jsonError(res, 400, "Bad Request: send initialize in a POST first, then the Mcp-Session-Id header it returns.");
    if (!makeRoom()) return jsonError(res, 503, `Too many MCP connections (${maxConnections}) with requests open; try again later.`);
    const connection: Connection = { transport: undefined as unknown as StreamableHTTPServerTransport, openRequests: 0, lastUsed: Date.now() };
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomBytes(16).toString("hex"),
      maxRequestBodySize,
      onsessioninitialized: (id) => {
        connections.set(id, connection);
      },
      onsessionclosed: (id) => {
        connections.delete(id);
      },
    });
    connection.transport = transport;
    transport.onclose = () => {
      if (transport.sessionId !== undefined && connections.get(transport.sessionId) === connection) connections.delete(transport.sessionId);
    };
    await server.connect(transport);
    cancelCallsOfAbandonedRequests(transport);
    track(connection, res);
    await arrivingWith.run(res, () => transport.handleRequest(req, res));
    // A first request that was not `initialize` made no connection: drop its transport.
    if (transport.sessionId === undefined) await transport.close();
  }

  /** A socket whose request passed the token: no longer first to be closed, and kept while idle up to `idleMs`. */
  function authenticate(socket: Socket): void {
    if (!unauthenticated.delete(socket)) return;
    authenticated.add(socket);
    socket.setTimeout(idleMs);
  }

  const httpServer = createServer(
    // Node's own bounds as a backstop of the ones below: headers must arrive before the
    // unauthenticated timeout, and a whole request within REQUEST_TIMEOUT_MS.
    { headersTimeout: unauthenticatedTimeoutMs, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: Math.min(1_000, unauthenticatedTimeoutMs) },
    (req, res) => {
      handle(req, res).catch((error: unknown) => {
        jsonError(res, 500, `Internal error: ${error instanceof Error ? error.message : String(error)}`);
      });
    },
  );
  // A descriptor apiece: the server refuses sockets past twice the cap outright (the cap below closes the oldest first).
  httpServer.maxConnections = 2 * maxSockets;
  httpServer.on("connection", (socket: Socket) => {
    socket.once("close", () => {
      unauthenticated.delete(socket);
      authenticated.delete(socket);
    });
    if (unauthenticated.size + authenticated.size >= maxSockets) {
      const oldest = unauthenticated.values().next().value as Socket | undefined;
      if (oldest === undefined) {
        socket.destroy();
        return;
      }
      unauthenticated.delete(oldest);
      oldest.destroy();
    }
    unauthenticated.add(socket);
    // Inactivity before authentication; a socket sending its headers a byte at a time is ended by headersTimeout.
    socket.setTimeout(unauthenticatedTimeoutMs, () => socket.destroy());
    const deadline = setTimeout(() => {
      if (unauthenticated.has(socket)) socket.destroy();
    }, unauthenticatedTimeoutMs);
    deadline.unref();
    socket.once("close", () => clearTimeout(deadline));
  });
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, connection] of connections) {
        if (connection.openRequests === 0 && now - connection.lastUsed >= idleMs) closeConnection(id);
      }
    },
    Math.min(idleMs, 60_000),
  );
  sweep.unref();

  try {
    await new Promise<void>((resolve, reject) => {
      httpServer.once("error", reject);
      httpServer.listen(port, host, () => {
        httpServer.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    clearInterval(sweep);
    throw error;
  }
  const address = httpServer.address() as AddressInfo;
  // Port 0 picks one: the policy must name the real port.
  policy = originPolicy(host, address.port, options.allowedOrigins ?? []);
  const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = new URL(`http://${urlHost}:${address.port}/mcp`);

  return {
    url,
    token,
    tokenGenerated,
    get connectionCount() {
      return connections.size;
    },
    get socketCount() {
      return unauthenticated.size + authenticated.size;
    },
    async close(): Promise<void> {
      if (closing) return;
      closing = true;
      clearInterval(sweep);
      await Promise.allSettled([...connections.values()].map((connection) => connection.transport.close()));
      connections.clear();
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}
