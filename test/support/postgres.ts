/**
 * A throwaway PostgreSQL cluster for persistence tests: `initdb` in a temp dir, started on a free
 * loopback port, stopped and removed by `stop()`. Uses the PostgreSQL 15 binaries installed on
 * these machines (see ../shared/FACTS.md), or any on PATH. If the cluster cannot start, `startPostgres()` throws
 * an error that says why; tests never skip.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

/** A running cluster. */
export interface PostgresCluster {
  /** `postgresql://postgres@127.0.0.1:PORT/postgres` */
  url: string;
  port: number;
  /** Stops the server (fast shutdown) and deletes its directory. */
  stop(): Promise<void>;
}

const BIN_DIRS = ["/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"];

/** Debian's versioned folders first, then PATH (Homebrew, other distributions). */
function findBinDir(): string {
  const onPath = (process.env.PATH ?? "").split(delimiter).filter((d) => d !== "");
  const dir = [...BIN_DIRS, ...onPath].find((d) => existsSync(join(d, "initdb")) && existsSync(join(d, "pg_ctl")));
  if (!dir) {
    throw new Error(
      `npm test needs PostgreSQL server binaries (initdb, pg_ctl) for its persistence tests, and found none in ${BIN_DIRS.join(", ")} or on PATH: ` +
        "install PostgreSQL 15 or later (Debian/Ubuntu: apt-get install postgresql-15; see the README's test prerequisites)",
    );
  }
  return dir;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL binary as the `postgres` user when we are root (initdb refuses root). */
function runAsPostgres(binary: string, args: string[]): string {
  const asRoot = process.getuid?.() === 0;
  const [command, commandArgs] = asRoot ? ["runuser", ["-u", "postgres", "--", binary, ...args]] : [binary, args];
  return execFileSync(command, commandArgs, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
}

/**
 * Starts a fresh cluster (about 2-3 s).
 *
 * @example
 * const pg = await startPostgres();
 * const saver = PostgresSaver.fromConnString(pg.url);
 * await saver.setup();
 * // ...
 * await saver.end();
 * await pg.stop();
 */
export async function startPostgres(): Promise<PostgresCluster> {
  const bin = findBinDir();
  const dir = mkdtempSync(join(tmpdir(), "codegen-pg-"));
  const dataDir = join(dir, "data");
  const logFile = join(dir, "log");
  if (process.getuid?.() === 0) {
    chownSync(dir, Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim()), Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim()));
  }
  chmodSync(dir, 0o700);
  const port = await freePort();
  const describe = (step: string, error: unknown) => {
    const log = existsSync(logFile) ? readFileSync(logFile, "utf8").slice(-2000) : "(no log)";
    const stderr = (error as { stderr?: string }).stderr ?? String(error);
    return new Error(`PostgreSQL could not ${step} in ${dir}: ${stderr.trim().slice(0, 1000)}\nserver log:\n${log}`);
  };
  try {
    runAsPostgres(join(bin, "initdb"), ["-D", dataDir, "-A", "trust", "-U", "postgres", "--no-sync"]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw describe("initialise a cluster (initdb)", error);
  }
  try {
    runAsPostgres(join(bin, "pg_ctl"), [
      "-D",
      dataDir,
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      "-l",
      logFile,
      "-w",
      "start",
    ]);
  } catch (error) {
    const failure = describe(`start on port ${port}`, error);
    rmSync(dir, { recursive: true, force: true });
    throw failure;
  }
  let stopped = false;
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        runAsPostgres(join(bin, "pg_ctl"), ["-D", dataDir, "-m", "fast", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
