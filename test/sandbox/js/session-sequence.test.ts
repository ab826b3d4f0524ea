/**
 * `session.runSequence`: a session's runs in one exchange with its worker (code mode replays a
 * thread's log this way). Each run is answered exactly as the same run alone would be: its own
 * options, host functions, seed and limits; a `carryFiles` run gets the files the run before it
 * ended with; the sequence stops after a run that ends the session.
 */
import { afterAll, describe, expect, it } from "vitest";
import { InvalidOptionError, SandboxSessionEndedError } from "../../../src/errors.js";
import { createSandbox } from "../../../src/sandbox/index.js";
import type { ExecutionResult, SequencedRun } from "../../../src/sandbox/types.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const text = (bytes: Uint8Array | undefined) => (bytes ? new TextDecoder().decode(bytes) : undefined);

/** What a run's caller can see, without timings. */
function seen(r: ExecutionResult) {
  const files = r.files ? Object.fromEntries(Object.entries(r.files).map(([p, b]) => [p, text(b)])) : undefined;
  return { status: r.status, result: r.result, stdout: r.stdout, stderr: r.stderr, error: r.error?.message, files, hostCalls: r.hostCalls };
}

describe("session.runSequence", () => {
  it("answers each run as the same run alone would (options, host functions, seed, files carried over)", async () => {
    const asked: string[] = [];
    const runs = (): SequencedRun[] => [
      { code: "var n = 1;\nfiles.write('a.txt', 'one');\nvar r = Math.random();\nconsole.log('first');", options: { files: { "seed.txt": new TextEncoder().encode("s") }, inputs: { seed: "0123456789abcdef0123456789abcdef" } } },
      { code: "var twice = await double(21);\nfiles.write('b.txt', files.read('a.txt') + '+two');\ntwice", carryFiles: true, options: { hostFunctions: { double: (x) => (asked.push(`double ${String(x)}`), Number(x) * 2) } } },
      { code: "typeof double === 'function' ? await double(1) : 'no double here'", carryFiles: true },
      { code: "n += g;\nfiles.delete('seed.txt');\nJSON.stringify({ n, r, list: files.list() })", carryFiles: true, options: { globals: { g: 41 } } },
    ];
    const one = await sandbox.createSession();
    const alone: ExecutionResult[] = [];
    let files: Record<string, Uint8Array> | undefined;
    for (const { code, options, carryFiles } of runs()) {
      const r = await one.run(code, { ...options, ...(carryFiles ? { files } : {}) });
      files = r.files;
      alone.push(r);
    }
    await one.dispose();
    const askedAlone = asked.splice(0);

    const session = await sandbox.createSession();
    const together = await session.runSequence!(runs());
    expect(together.map(seen)).toEqual(alone.map(seen));
    expect(asked).toEqual(askedAlone);
    expect(together[1]).toMatchObject({ status: "success", result: 42 });
    expect(together[2]!.status).toBe("runtime_error");
    expect(JSON.parse(together[3]!.result as string)).toMatchObject({ n: 42, list: ["a.txt", "b.txt"] });
    expect(text(together[3]!.files!["b.txt"])).toBe("one+two");
    // The session goes on with what the sequence defined.
    expect((await session.run("n")).result).toBe(42);
    await session.dispose();
  });

  it("goes on after a run that failed by itself, and stops after one that ends the session", async () => {
    const session = await sandbox.createSession();
    const results = await session.runSequence!([
      { code: "var a = 1;\nthrow new Error('failed by itself');" },
      { code: "var b = a + 1;\nb" },
      { code: "while (true) {}", options: { timeoutMs: 200 } },
      { code: "var never = 1;" },
    ]);
    expect(results.map((r) => r.status)).toEqual(["runtime_error", "success", "timeout"]);
    expect(results[1]!.result).toBe(2);
    await expect(session.run("never")).rejects.toThrow(SandboxSessionEndedError);
    await expect(session.runSequence!([{ code: "1" }])).rejects.toThrow(SandboxSessionEndedError);
    await session.dispose();
  });

  it("ends the session at a run cancelled before its turn (the worker has it already), and stops there", async () => {
    const session = await sandbox.createSession();
    const controller = new AbortController();
    const results = await session.runSequence!([
      // The first run cancels the second while it runs (through a host function): the second's turn comes with its signal aborted.
      { code: "var first = 1;\nawait stop();", options: { hostFunctions: { stop: () => controller.abort() } } },
      { code: "var second = 2;", options: { signal: controller.signal } },
      { code: "var third = 3;" },
    ]);
    expect(results.map((r) => r.status)).toEqual(["success", "cancelled"]);
    await expect(session.run("second")).rejects.toThrow(SandboxSessionEndedError);
    await session.dispose();
  });

  it("refuses bad runs before any of them runs, with an error that names the option", async () => {
    const session = await sandbox.createSession();
    await expect(session.runSequence!([{ code: "var ran = 1;", carryFiles: true }])).rejects.toThrow(InvalidOptionError);
    await expect(session.runSequence!([{ code: "var ran = 1;" }, { code: "2", carryFiles: true, options: { files: {} } }])).rejects.toThrow(/carryFiles/);
    await expect(session.runSequence!([{ code: "var ran = 1;" }, { code: "2", options: { timeoutMs: -1 } }])).rejects.toThrow(/timeoutMs/);
    await expect(session.runSequence!([{ code: "var ran = 1;" }, { code: "2", options: { language: "python" } as never }])).rejects.toThrow(InvalidOptionError);
    await expect(session.runSequence!("1" as never)).rejects.toThrow(InvalidOptionError);
    expect((await session.run("typeof ran")).result).toBe("undefined");
    expect(await session.runSequence!([])).toEqual([]);
    await session.dispose();
  });

  it("times each run against its own limit, from when it starts", async () => {
    const session = await sandbox.createSession();
    // Three runs of ~150 ms under a 400 ms limit each: the sequence takes longer than any one limit.
    const busy = "{ const end = Date.now() + 150; while (Date.now() < end) {} }\n'ok'";
    const results = await session.runSequence!([busy, busy, busy].map((code) => ({ code, options: { timeoutMs: 400 } })));
    expect(results.map((r) => r.status)).toEqual(["success", "success", "success"]);
    await session.dispose();
  });
});
