/**
 * The checks every HTTP request passes before MCP sees it: the `Host` and `Origin` headers
 * (DNS-rebinding protection, as the MCP spec's security section asks) and the bearer token.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import { InvalidOptionError } from "../errors.js";

/** Shortest token accepted from the caller (a generated one has 256 bits). */
export const MIN_TOKEN_CHARS = 16;

/**
 * True for addresses only this machine can reach: `localhost`, 127.0.0.0/8 and `::1`.
 *
 * @example
 * ```ts
 * isLoopbackHost("127.0.0.1"); // true
 * isLoopbackHost("0.0.0.0"); // false: every interface
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === "localhost") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (isIP(bare) === 6) return bare === "::1" || bare === "0:0:0:0:0:0:0:1";
  return false;
}

/**
 * Checks a token given by the caller.
 *
 * @throws InvalidOptionError for a token shorter than {@link MIN_TOKEN_CHARS} or with spaces.
 */
export function checkToken(token: string, option = "token"): string {
  if (typeof token !== "string" || token.length < MIN_TOKEN_CHARS || /\s/.test(token)) {
    throw new InvalidOptionError(option, token === undefined ? undefined : "(hidden)", `a secret of at least ${MIN_TOKEN_CHARS} characters without spaces (e.g. from \`openssl rand -hex 32\`)`);
  }
  return token;
}

/**
 * Compares `Authorization: Bearer <token>` with `token` in constant time (both sides are
 * hashed first, so neither the content nor the length leaks through timing).
 *
 * @example
 * ```ts
 * bearerTokenMatches("Bearer s3cret-s3cret-s3cret", "s3cret-s3cret-s3cret"); // true
 * ```
 */
export function bearerTokenMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "");
  const given = createHash("sha256").update(match?.[1] ?? "").digest();
  const expected = createHash("sha256").update(token).digest();
  return timingSafeEqual(given, expected) && match !== null;
}

/** What the `Host` and `Origin` checks accept for one listening server. */
export interface OriginPolicy {
  /** `Host` header values accepted; `undefined` accepts any (a server bound for remote use). */
  hosts?: ReadonlySet<string>;
  /** Origins accepted when a request carries an `Origin` header. */
  origins: ReadonlySet<string>;
}

/**
 * The policy of a server listening on `host:port`: on a loopback address only its own loopback
 * names (`127.0.0.1`, `localhost`, `[::1]` with the port) as `Host`, and its own loopback
 * origins plus `extraOrigins`; on another address any `Host` (names differ per network) and only
 * `extraOrigins`.
 *
 * @throws InvalidOptionError for an extra origin that is not an `http(s)://host[:port]` origin.
 * @example
 * ```ts
 * originPolicy("127.0.0.1", 8765, []).origins.has("http://localhost:8765"); // true
 * ```
 */
export function originPolicy(host: string, port: number, extraOrigins: readonly string[]): OriginPolicy {
  const origins = new Set<string>();
  extraOrigins.forEach((origin, i) => origins.add(normalizeOrigin(origin, `allowedOrigins[${i}]`)));
  if (!isLoopbackHost(host)) return { origins };
  const hosts = new Set<string>();
  const names = ["127.0.0.1", "localhost", "[::1]"];
  if (isIP(host) === 4 && host !== "127.0.0.1") names.push(host);
  for (const name of names) {
    hosts.add(`${name}:${port}`);
    origins.add(`http://${name}:${port}`);
    // On port 80 clients leave the port out of Host, and browsers out of Origin.
    if (port === 80) {
      hosts.add(name);
      origins.add(`http://${name}`);
    }
  }
  return { hosts, origins };
}

function normalizeOrigin(origin: string, option: string): string {
  let url: URL | undefined;
  try {
    url = new URL(origin);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:") || url.origin !== origin.replace(/\/$/, "")) {
    throw new InvalidOptionError(option, origin, 'an origin such as "http://localhost:3000" (scheme, host and port; no path)');
  }
  return url.origin;
}

/** Why a request is refused before MCP sees it: the HTTP status and a one-line reason. */
export interface Refusal {
  status: 401 | 403;
  message: string;
}

/**
 * Checks one request's `Host`, `Origin` and `Authorization` headers; `undefined` when it may pass.
 *
 * @example
 * ```ts
 * checkRequest({ host: "evil.example:8765" }, policy, token); // { status: 403, message: "..." }
 * ```
 */
export function checkRequest(
  headers: { host?: string; origin?: string; authorization?: string },
  policy: OriginPolicy,
  token: string,
  /** A CORS preflight (`OPTIONS`): a browser never sends credentials with one, so no token is asked. */
  preflight = false,
): Refusal | undefined {
  if (policy.hosts !== undefined && !policy.hosts.has((headers.host ?? "").toLowerCase())) {
    return { status: 403, message: "Forbidden: this server answers only requests addressed to its own loopback address (Host header)." };
  }
  if (headers.origin !== undefined && !policy.origins.has(headers.origin)) {
    return { status: 403, message: `Forbidden: origin ${JSON.stringify(headers.origin.slice(0, 100))} is not allowed (start the server with --allow-origin to allow it).` };
  }
  if (!preflight && !bearerTokenMatches(headers.authorization, token)) {
    return { status: 401, message: "Unauthorized: send the server's token as 'Authorization: Bearer <token>' (CODEGEN_MCP_TOKEN, or the token printed at start)." };
  }
  return undefined;
}

/**
 * CORS response headers for a request from `origin`, which passed `checkRequest` (so it is one
 * of the policy's origins): a browser page of an allowed origin may then read the answer and
 * the `Mcp-Session-Id` header. Without an `Origin` header (not a browser), none.
 *
 * @example
 * ```ts
 * corsHeaders("http://localhost:6274")["access-control-allow-origin"]; // "http://localhost:6274"
 * ```
 */
export function corsHeaders(origin: string | undefined): Record<string, string> {
  if (origin === undefined) return {};
  return {
    "access-control-allow-origin": origin,
    "access-control-expose-headers": "Mcp-Session-Id, WWW-Authenticate",
    vary: "Origin",
  };
}

/** Headers a browser may send to the MCP endpoint, as a preflight answer lists them. */
export const CORS_ALLOWED_HEADERS = "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID";
