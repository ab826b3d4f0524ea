/**
 * A JavaScript restore replays the log in batches (one `runSequence` exchange with the worker
 * per run of cells), split only before a cell that was given other files than the cell before
 * it ended with; the restored session answers as the live one, with every cell judged by its
 * own recording (a replay that diverges in the middle of a batch is reported for that cell).
 */
import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { CodeModeRunner, type CellRequest } from "../../src/code-mode/replay/runner.js";
import type { CodeCell } from "../../src/code-mode/replay/cell-log.js";
import type { Sandbox, SandboxSession } from "../../src/sandbox/types.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

/** The sandbox, counting how the sessions it opens are used. */
function counting(): { sandbox: Pick<Sandbox, "run" | "createSession">; sequences: number[]; runs: number } {
  const counts = { sequences: [] as number[], runs: 0 };
  return Object.assign(counts, {
    sandbox: {
      run: sandbox.run.bind(sandbox),
      async createSession(options?: Parameters<Sandbox["createSession"]>[0]): Promise<SandboxSession> {
        const s = await sandbox.createSession(options);
        return {
          get language() {
            return s.language;
          },
          get disposed() {
            return s.disposed;
          },
          run: (code, o) => (counts.runs++, s.run(code, o)),
          call: (name, args, o) => s.call(name, args, o),
          runSequence: (runs) => (counts.sequences.push(runs.length), s.runSequence!(runs)),
          functionNames: () => s.functionNames(),
          dispose: () => s.dispose(),
        };
      },
    },
  });
}

let answers = 0;
function runnerOn(on: Pick<Sandbox, "run" | "createSession">): CodeModeRunner {
  return new CodeModeRunner({
    tools: new Map(),
    hostFunctions: { lookup: (key) => `${String(key)}#${++answers}` },
    sandbox: on,
    limits: {},
    caps: { maxFileBytes: 1 << 20, maxThreadFilesBytes: 10 << 20, maxThreadFiles: 1000 },
    record: { maxHostResultBytes: 1 << 20, maxCellRecordBytes: 8 << 20 },
    maxSessions: 2,
  });
}

const encode = (s: string) => new TextEncoder().encode(s);

describe("restore in batches", () => {
  it("replays runs of cells in one exchange each, split where a cell saw other files, and answers as the live session", async () => {
    const cells: CodeCell[] = [];
    const files = new Map<string, Uint8Array>([["/in.txt", encode("first")]]);
    const request = (code: string): CellRequest => ({ code, language: "javascript", persistence: "thread", threadId: "batches", cells, files });
    const live = runnerOn(sandbox);
    const program = [
      "var seen = [files.read('/in.txt')];\nvar r = Math.random();",
      "var looked = await lookup('a');\nfiles.write('/out.txt', looked);",
      "x = 100;\nthrow new Error('after assigning');",
      // Before this cell the thread's files change from outside: it saw another /in.txt.
      "seen.push(files.read('/in.txt'), files.read('/out.txt'));",
      "var t = Date.now();\nvar looked2 = await lookup('b');",
      "function twice(v) { return 2 * v; }",
    ];
    for (const [i, code] of program.entries()) {
      if (i === 3) files.set("/in.txt", encode("second"));
      const outcome = await live.run(request(code));
      cells.push(outcome.cell!);
      for (const [path, bytes] of outcome.files.written) files.set(path, bytes);
    }
    expect(cells.map((c) => c.status)).toEqual(["success", "success", "runtime_error", "success", "success", "success"]);
    expect(cells.map((c) => c.filesIn !== undefined)).toEqual([true, false, false, true, false, false]);
    const query = "JSON.stringify({ seen, r, looked, x, t, looked2, six: twice(3), files: files.list() })";
    const liveAnswer = (await live.run(request(query))).result.result;
    await live.dispose();

    const counts = counting();
    const fresh = runnerOn(counts.sandbox);
    const restored = await fresh.run(request(query));
    await fresh.dispose();
    expect(restored.restore).toMatchObject({ replayed: 6, failures: [] });
    expect(restored.result.result).toBe(liveAnswer);
    expect(counts.sequences).toEqual([3, 3]);
    expect(counts.runs).toBe(1);
  });

  it("reports a cell of a batch that diverged, and replays the ones after it as they ran", async () => {
    const cells: CodeCell[] = [];
    const request = (code: string): CellRequest => ({ code, language: "javascript", persistence: "thread", threadId: "diverges", cells, files: new Map() });
    const live = runnerOn(sandbox);
    for (const code of ["var a = 1;", "var b = await lookup('b');", "var c = a + 1;"]) cells.push((await live.run(request(code))).cell!);
    await live.dispose();
    // The log says the second cell called lookup with other arguments than its code does.
    cells[1] = { ...cells[1]!, hostCalls: cells[1]!.hostCalls!.map((h) => ({ ...h, args: ["other"] })) };

    const counts = counting();
    const fresh = runnerOn(counts.sandbox);
    const restored = await fresh.run(request("JSON.stringify({ a, c, b: typeof b })"));
    await fresh.dispose();
    expect(counts.sequences).toEqual([3]);
    expect(restored.restore!.failures).toHaveLength(1);
    expect(restored.restore!.failures[0]).toMatch(/^cell 2 of 3 .*failed on replay: the replayed cell called lookup where the recording has lookup with other arguments/);
    expect(restored.result.result).toBe(JSON.stringify({ a: 1, c: 2, b: "undefined" }));
  });

  it("leaves out a cell of a batch that ended its session on replay, and replays the rest in a new session", async () => {
    const cells: CodeCell[] = [];
    const request = (code: string): CellRequest => ({ code, language: "javascript", persistence: "thread", threadId: "ends", cells, files: new Map() });
    const live = runnerOn(sandbox);
    for (const code of ["var a = 1;", "var spin = 1;", "var c = a + 1;"]) cells.push((await live.run(request(code))).cell!);
    await live.dispose();
    // A log edited by hand: the second cell now never ends (its replay budget is ~1 s).
    cells[1] = { ...cells[1]!, code: "var spin = 1;\nwhile (true) {}", ran: { ...cells[1]!.ran!, timeoutMs: 1, durationMs: 0 } };

    const counts = counting();
    const fresh = runnerOn(counts.sandbox);
    const restored = await fresh.run(request("JSON.stringify({ a, c, spin: typeof spin })"));
    await fresh.dispose();
    expect(restored.restore!.failures).toEqual([expect.stringMatching(/^cell 2 of 3 \(var spin = 1;\) ended timeout on replay .*; it was left out$/)]);
    expect(restored.result.result).toBe(JSON.stringify({ a: 1, c: 2, spin: "undefined" }));
    // The first batch stopped at the cell that ended its session; the new session ran cell 1, then cell 3.
    expect(counts.sequences).toEqual([3]);
    expect(counts.runs).toBe(3);
  });
});
