/**
 * Host memory in code mode stays bounded under each attack of issue 21 (huge tool results from
 * JavaScript and Python, 250 calls of 900 kB in one cell, thousands of files with long names,
 * `a` and `a/b`): each attack runs in its own child process (fixtures/memory-attack.mjs, through
 * the built package), which must survive with its RSS peak within the documented bound, and
 * with a log, an artifact and files that hold only what the caps let through.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_CELL_RECORD_BYTES } from "../../src/code-mode/replay/host-call-log.js";
import { DEFAULT_MAX_THREAD_FILES, DEFAULT_MAX_THREAD_FILES_BYTES } from "../../src/code-mode/thread/files.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const fixture = fileURLToPath(new URL("./fixtures/memory-attack.mjs", import.meta.url));
const MiB = 1024 * 1024;
/** The documented bound (docs/code-mode.md, "Caps"): twice what the caps let through, plus 64 MiB. */
const RSS_BOUND = 2 * (DEFAULT_MAX_CELL_RECORD_BYTES + DEFAULT_MAX_THREAD_FILES_BYTES) + 64 * MiB;

interface Report {
  attack: string;
  peakOverBaselineBytes: number;
  logBytes: number;
  artifactBytes: number;
  filesBytes: number;
  fileCount: number;
  refused: string[];
  status: string;
  result: unknown;
  content: string;
}

function attack(name: string): Promise<Report> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--expose-gc", fixture, name], { cwd: root, env: { PATH: process.env.PATH } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`attack ${name}: the child exited with ${code}: ${stderr.slice(-2000)} | ${stdout.slice(-1000)}`));
      else resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as Report);
    });
  });
}

/** Runs the attacks two at a time (a child each). */
async function all(names: string[]): Promise<Map<string, Report>> {
  const out = new Map<string, Report>();
  for (let i = 0; i < names.length; i += 2) {
    for (const r of await Promise.all(names.slice(i, i + 2).map(attack))) out.set(r.attack, r);
  }
  return out;
}

describe("host memory under attack (child processes)", { timeout: 600_000 }, () => {
  it("every attack leaves the host within its bound, and stores only what the caps let through", async () => {
    const reports = await all(["js-huge", "py-huge", "js-many", "py-many", "js-names", "py-names", "js-nested"]);
    for (const r of reports.values()) {
      expect(r.peakOverBaselineBytes, `${r.attack}: RSS peak over the baseline`).toBeLessThan(RSS_BOUND);
      expect(r.logBytes, `${r.attack}: the log`).toBeLessThan(DEFAULT_MAX_CELL_RECORD_BYTES + 64 * 1024);
      // The artifact holds what the run wrote (within the file caps) and tool outputs of at most 4 KiB each.
      expect(r.artifactBytes, `${r.attack}: the artifact`).toBeLessThan(2 * DEFAULT_MAX_THREAD_FILES_BYTES);
      expect(r.fileCount).toBeLessThanOrEqual(DEFAULT_MAX_THREAD_FILES);
      expect(r.filesBytes).toBeLessThan(2 * DEFAULT_MAX_THREAD_FILES_BYTES);
    }
    // A result over the cap never reaches the guest, whichever language.
    expect(reports.get("js-huge")!.result).toEqual(Array(6).fill("HostResultLimitError"));
    expect(reports.get("py-huge")!.content).toContain("HostFunctionError");
    // 250 calls of 900 kB: the first calls fit the cell's cap, the rest are refused.
    for (const name of ["js-many", "py-many"]) {
      const [ok, refused] = reports.get(name)!.result as [number, number];
      expect(ok + refused).toBe(250);
      expect(ok * 900_000).toBeLessThanOrEqual(DEFAULT_MAX_CELL_RECORD_BYTES);
    }
    // Names count: paths longer than 1024 characters are refused at write time; of 3,600 files
    // with the longest names allowed, the thread keeps as many as its caps allow and says so.
    expect(reports.get("js-names")!.result).toEqual([3600, 3600]);
    for (const name of ["js-names", "py-names"]) {
      const r = reports.get(name)!;
      expect(r.fileCount + r.refused.length, name).toBe(3600);
      expect(r.refused[0], name).toMatch(/maxThreadFiles/);
      expect(r.content, name).toContain("file not saved: ");
    }
    // a and a/b cannot both be files: refused at write time with a message.
    expect(reports.get("js-nested")!.result).toBe("files.write: /a is a file, so /a/b cannot be written under it: choose another name or delete /a");
  });
});
