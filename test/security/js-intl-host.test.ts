/**
 * The Intl host operation under hostile programs, in a child process (a crash of the worker's
 * V8 side or of the engine would end it): memory limits hold while Intl answers, a flood of
 * distinct formatters stays bounded in the host, and the next run still formats. The child runs
 * in a time zone other than UTC, where the guest's Date and Intl must agree.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

interface Report {
  runs: { name: string; status: string; result?: unknown; message?: string; next: { status: string; result: unknown } }[];
  rssBytes: number;
}

function runInChild(programs: { name: string; code: string; memoryLimitBytes?: number }[], timeZone: string): Promise<{ code: number | null; report?: Report; stderr: string }> {
  const script = fileURLToPath(new URL("./fixtures/intl-child.mjs", import.meta.url));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, TZ: timeZone } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => {
      let report: Report | undefined;
      try {
        report = JSON.parse(stdout.trim().split("\n").pop() ?? "") as Report;
      } catch {
        report = undefined;
      }
      resolve({ code, report, stderr: stderr.slice(-2000) });
    });
    child.stdin.end(JSON.stringify(programs));
  });
}

const PROGRAMS = [
  {
    name: "time zone",
    code: "const d = new Date(2024, 0, 1, 12); [d.getHours(), Number(d.toLocaleTimeString('en-US', { hour: 'numeric', hour12: false })), new Intl.DateTimeFormat().resolvedOptions().timeZone, d.getTimezoneOffset(), new Date(2024, 6, 1).toLocaleString()]",
  },
  { name: "answers kept until memory runs out", code: "const a = []; for (;;) a.push(Intl.supportedValuesOf('timeZone'));" },
  { name: "segments kept until memory runs out", code: "const a = []; for (;;) a.push([...new Intl.Segmenter('en', { granularity: 'word' }).segment('ab, cd '.repeat(20000))]);" },
  { name: "a call at the memory limit", code: "const hog = []; try { for (;;) hog.push({ i: hog.length }); } catch (e) {} [Intl.supportedValuesOf('timeZone').length, (5).toLocaleString('de-DE')]", memoryLimitBytes: 2 * 1024 * 1024 },
  {
    name: "a flood of distinct formatters",
    code: "const zones = Intl.supportedValuesOf('timeZone'); for (let i = 0; ; i++) new Intl.DateTimeFormat(['en', 'de', 'fr', 'ja'][i % 4], { timeZone: zones[i % zones.length], fractionalSecondDigits: (i % 3) + 1, hour: 'numeric' }).format(i);",
  },
  { name: "long strings to case-map and compare", code: "const s = 'ß'.repeat(999999); let n = 0; for (;;) n += s.toLocaleUpperCase('de').length + s.localeCompare(s + 'a', 'de');" },
];

describe("Intl host operation under hostile programs (child process)", () => {
  it("keeps limits, stays bounded, survives, and agrees with Date on the time zone", { timeout: 120_000 }, async () => {
    const { code, report, stderr } = await runInChild(PROGRAMS, "America/New_York");
    expect(report, stderr).toBeDefined();
    expect(code).toBe(0);
    const byName = Object.fromEntries(report!.runs.map((r) => [r.name, r]));
    expect(byName["time zone"]).toMatchObject({ status: "success", result: [12, 12, "America/New_York", 300, "7/1/2024, 12:00:00 AM"] });
    // Either limit may come first on a loaded machine; the point is that one does, and cleanly.
    expect(["memory_limit", "timeout"]).toContain(byName["answers kept until memory runs out"].status);
    expect(["memory_limit", "timeout"]).toContain(byName["segments kept until memory runs out"].status);
    expect(["success", "memory_limit", "runtime_error"]).toContain(byName["a call at the memory limit"].status);
    expect(byName["a flood of distinct formatters"].status).toBe("timeout");
    expect(["timeout", "runtime_error"]).toContain(byName["long strings to case-map and compare"].status);
    for (const r of report!.runs) expect(r.next, r.name).toEqual({ status: "success", result: "1.234,5" });
    expect(report!.rssBytes).toBeLessThan(1024 * 1024 * 1024);
  });
});
