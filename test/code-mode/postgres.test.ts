/**
 * The thread survives its process: process A runs an agent turn whose code defines a function,
 * writes a file and calls a tool, then exits; process B, with the same thread_id and database,
 * calls that function and reads that file. On a throwaway PostgreSQL cluster (never skipped:
 * if PostgreSQL cannot start, the suite fails with the reason).
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type PostgresCluster } from "../support/postgres.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const fixture = fileURLToPath(new URL("./fixtures/agent-process.mjs", import.meta.url));

interface ProcessReport {
  pid: number;
  content: string;
  result: unknown;
  status: string;
  restore: { replayed: number; failures: string[] } | null;
  weatherCalls: number;
  cells: number;
  files: string[];
}

async function agentProcess(url: string, threadId: string, language: string, code: string): Promise<ProcessReport> {
  const child = spawn(process.execPath, [fixture, url, threadId, language, code], { cwd: root, env: { PATH: process.env.PATH } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exitCode = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (exitCode !== 0) throw new Error(`agent process exited with ${exitCode}: ${stderr.slice(-2000)}`);
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as ProcessReport;
}

let pg: PostgresCluster;
beforeAll(async () => {
  pg = await startPostgres();
}, 60_000);
afterAll(async () => {
  await pg?.stop();
});

describe("code mode across processes on PostgreSQL", { timeout: 180_000 }, () => {
  it("JavaScript: B calls A's function, reads A's file, and A's tool result is not fetched again", async () => {
    const a = await agentProcess(
      pg.url,
      "pg-js",
      "javascript",
      "function describe(city, report) { return `${city} -> ${report}`; }\nconst report = await tools.get_weather({ city: 'Paris' });\nawait files.write('reports/paris.txt', report);\nreport",
    );
    expect(a.status).toBe("success");
    expect(a.weatherCalls).toBe(1);
    expect(a.files).toEqual(["reports/paris.txt"]);
    const b = await agentProcess(pg.url, "pg-js", "javascript", "describe('Paris', await files.read('reports/paris.txt')) + ' | ' + report");
    expect(b.pid).not.toBe(a.pid);
    expect(b.status).toBe("success");
    expect(b.result).toBe(`Paris -> Paris: sunny, pid ${a.pid} | Paris: sunny, pid ${a.pid}`);
    expect(b.restore).toEqual({ replayed: 1, durationMs: expect.any(Number), failures: [] });
    expect(b.weatherCalls).toBe(0);
    expect(b.cells).toBe(2);
  });

  it("Python: B calls A's function (and its import), reads A's file", async () => {
    const a = await agentProcess(
      pg.url,
      "pg-py",
      "python",
      "import json\ndef describe(city, report):\n    return f'{city} -> {report}'\nreport = await tools.get_weather(city='Rome')\nwith open('rome.json', 'w') as f:\n    json.dump({'report': report}, f)\nreport",
    );
    expect(a.status).toBe("success");
    expect(a.files).toEqual(["rome.json"]);
    const b = await agentProcess(pg.url, "pg-py", "python", "describe('Rome', json.load(open('rome.json'))['report'])");
    expect(b.pid).not.toBe(a.pid);
    expect(b.status).toBe("success");
    expect(b.result).toBe(`Rome -> Rome: sunny, pid ${a.pid}`);
    expect(b.restore?.failures).toEqual([]);
    expect(b.weatherCalls).toBe(0);
  });
});
