/**
 * `codegen-sandbox mcp [--http]`: the sandbox as an MCP server, on stdio (for a desktop
 * client's config) or Streamable HTTP. stdout is the protocol on stdio: everything this command
 * says goes to stderr. Exit codes: 0 after a clean shutdown, 2 usage error.
 */
import type { Command } from "./command.js";
import { numberFlag, parseCommandArgs, textFlag } from "./args.js";
import { integerRule, textRule } from "../options/index.js";
import { LIMIT_RULES, MAX_MEMORY_LIMIT_BYTES } from "../sandbox/options.js";
import { UsageError } from "./usage-error.js";
import { InvalidOptionError } from "../errors.js";

const HELP = `usage: codegen-sandbox mcp [options]
Serves the sandbox as an MCP server: tools run_code, check_code, solve, open_session, close_session.
Default: stdio (put "npx codegen-sandbox mcp" in your MCP client's config).

transport:
  --http                     serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio
  --host H                   address to listen on (default 127.0.0.1; loopback only unless --allow-remote)
  --port N                   port (default 8765; 0 picks a free one)
  --allow-remote             allow a --host other machines can reach (anyone with the token can run code)
  --allow-origin ORIGIN      also accept browser requests from ORIGIN, e.g. http://localhost:3000 (repeatable)
  Every HTTP request needs "Authorization: Bearer <token>": CODEGEN_MCP_TOKEN, else a token printed at start.

limits (defaults are the sandbox's):
  --timeout-ms N             time limit of each run, and the most a call may ask for (default 5000)
  --memory-mb N              memory limit of each run and session in MiB (default 64)
  --max-output-bytes N       stdout + stderr kept per run (default 1048576)
  --max-file-bytes N         bytes of one file in or out (default 8388608)
  --max-total-file-bytes N   bytes of all files of one run (default 33554432)
  --max-sessions N           code sessions open at once (default 8)
  --session-idle-ms N        a session unused this long is closed (default 600000)
  --max-concurrent-runs N    tool calls that run code at once; more wait in line (default 4)

python:
  --python-package NAME      a package of Pyodide's lock for Python runs, e.g. numpy (repeatable)
  --python-package-index U   where package files come from: a URL or a folder (default Pyodide's CDN)

solve:
  --model M                  provider:model for the solve tool (default: CODEGEN_MODEL;
                             OPENAI_API_KEY, or OPENAI_BASE_URL for an OpenAI-compatible server)
Exit code: 0 after a clean shutdown, 2 usage error.`;

const HTTP_ONLY = ["host", "port", "allow-remote", "allow-origin"] as const;

function say(line: string): void {
  process.stderr.write(`codegen-sandbox mcp: ${line}\n`);
}

/** `--memory-mb`: `memoryLimitBytes` in MiB, with the same ceiling (4 GiB). */
const MEMORY_MB_RULE = integerRule({ min: 1, max: MAX_MEMORY_LIMIT_BYTES / 1024 ** 2, unit: "MiB", maxReason: "4 GiB: the engines are 32-bit WebAssembly" });
const PORT_RULE = integerRule({ min: 0, max: 65535, unit: "port number" });

/** Resolves when the process is asked to stop (SIGINT, SIGTERM). */
function stopRequested(): { promise: Promise<void>; dispose(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  const onSignal = () => resolve();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  return {
    promise,
    dispose() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/** The `mcp` subcommand. */
export const mcpCommand: Command = {
  help: HELP,
  summary: "serve the sandbox as an MCP server (stdio, or --http)",
  async run(argv) {
    const { values } = parseCommandArgs("mcp", {
      args: argv,
      options: {
        http: { type: "boolean" },
        host: { type: "string" },
        port: { type: "string" },
        "allow-remote": { type: "boolean" },
        "allow-origin": { type: "string", multiple: true },
        "timeout-ms": { type: "string" },
        "memory-mb": { type: "string" },
        "max-output-bytes": { type: "string" },
        "max-file-bytes": { type: "string" },
        "max-total-file-bytes": { type: "string" },
        "max-sessions": { type: "string" },
        "session-idle-ms": { type: "string" },
        "max-concurrent-runs": { type: "string" },
        model: { type: "string" },
        "python-package": { type: "string", multiple: true },
        "python-package-index": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
    if (values.help) {
      process.stdout.write(HELP + "\n");
      return 0;
    }
    if (!values.http) {
      const given = HTTP_ONLY.filter((name) => values[name] !== undefined);
      if (given.length > 0) throw new UsageError(`mcp: ${given.map((name) => `--${name}`).join(", ")} only apply with --http`);
    }
    textFlag("mcp", "model", values.model, textRule({ what: 'a "provider:model" name, e.g. openai:gpt-4o-mini' }));
    const port = numberFlag("mcp", "port", values.port, PORT_RULE);
    // The server's own rules (the same as createMcpServer's), loaded after --help.
    const { MCP_OPTION_RULES: rules } = await import("../mcp/options.js");
    const memoryMb = numberFlag("mcp", "memory-mb", values["memory-mb"], MEMORY_MB_RULE);
    const limits = {
      timeoutMs: numberFlag("mcp", "timeout-ms", values["timeout-ms"], LIMIT_RULES.timeoutMs),
      memoryLimitBytes: memoryMb === undefined ? undefined : memoryMb * 1024 * 1024,
      maxOutputBytes: numberFlag("mcp", "max-output-bytes", values["max-output-bytes"], LIMIT_RULES.maxOutputBytes),
      maxFileBytes: numberFlag("mcp", "max-file-bytes", values["max-file-bytes"], LIMIT_RULES.maxFileBytes),
      maxTotalFileBytes: numberFlag("mcp", "max-total-file-bytes", values["max-total-file-bytes"], LIMIT_RULES.maxTotalFileBytes),
      maxSessions: numberFlag("mcp", "max-sessions", values["max-sessions"], rules.maxSessions),
      sessionIdleMs: numberFlag("mcp", "session-idle-ms", values["session-idle-ms"], rules.sessionIdleMs),
      maxConcurrentRuns: numberFlag("mcp", "max-concurrent-runs", values["max-concurrent-runs"], rules.maxConcurrentRuns),
    };
    const envToken = process.env.CODEGEN_MCP_TOKEN?.trim() || undefined;

    const { createMcpServer, serveStdio, startMcpHttpServer } = await import("../mcp/index.js");
    const { isLoopbackHost } = await import("../mcp/http-security.js");
    let server;
    try {
      server = createMcpServer({
        ...Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined)),
        ...(values.model === undefined ? {} : { model: values.model }),
        ...(values["python-package"] === undefined && values["python-package-index"] === undefined
          ? {}
          : { python: { packages: values["python-package"] ?? [], ...(values["python-package-index"] === undefined ? {} : { packageIndex: values["python-package-index"] }) } }),
      });
    } catch (error) {
      if (error instanceof InvalidOptionError) throw new UsageError(`mcp: ${error.message}`);
      throw error;
    }
    const stop = stopRequested();
    try {
      if (!values.http) {
        say("serving MCP on stdio (tools: run_code, check_code, solve, open_session, close_session)");
        void stop.promise.then(() => server.close());
        await serveStdio(server);
        say("the client disconnected; shutting down");
        return 0;
      }
      let http;
      try {
        http = await startMcpHttpServer(server, {
          ...(values.host === undefined ? {} : { host: values.host }),
          ...(port === undefined ? {} : { port }),
          ...(envToken === undefined ? {} : { token: envToken }),
          allowRemote: values["allow-remote"] === true,
          allowedOrigins: values["allow-origin"] ?? [],
        });
      } catch (error) {
        if (error instanceof InvalidOptionError) {
          const flag = error.option === "token" ? "CODEGEN_MCP_TOKEN" : error.option === "host" ? "--host" : error.option.startsWith("allowedOrigins") ? "--allow-origin" : error.option;
          throw new UsageError(`mcp: ${flag}: ${error.message}`);
        }
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EADDRINUSE" || code === "EACCES" || code === "EADDRNOTAVAIL") throw new UsageError(`mcp: cannot listen on ${values.host ?? "127.0.0.1"}:${port ?? 8765} (${code}); choose another --port or --host`);
        throw error;
      }
      if (!isLoopbackHost(values.host ?? "127.0.0.1")) {
        say(`WARNING: --allow-remote: ${values.host} may be reachable from other machines. Anyone with the token can run code here, and plain HTTP carries the token unencrypted: put a TLS proxy in front.`);
      }
      if (http.tokenGenerated) say(`token (send "Authorization: Bearer <token>"; set CODEGEN_MCP_TOKEN to choose it): ${http.token}`);
      else say("token: the one in CODEGEN_MCP_TOKEN");
      // Last, so that whoever waits for this line has everything above it.
      say(`serving MCP (Streamable HTTP) at ${http.url.href}`);
      await stop.promise;
      say("stopping");
      await http.close();
      return 0;
    } finally {
      stop.dispose();
      await server.close();
    }
  },
};
