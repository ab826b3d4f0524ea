/**
 * Large values end a run with a true status, and the worker that read them keeps serving. A test
 * comparing a million-element array used to kill the worker thread (`EngineCrash`, "JS heap out
 * of memory"): once the engine's memory had grown, quickjs-emscripten's key listing read a stale
 * view of it and made a handle for every word of the memory (src/sandbox/js/worker/engine-reads.ts).
 * Each case runs in a fresh pool, so its run is the one that grows the memory.
 */
import { describe, expect, it } from "vitest";
import { createSandbox } from "../../../src/sandbox/index.js";
import type { ExecutionResult, RunOptions } from "../../../src/sandbox/index.js";

const MILLION = "function big() { return Array.from({ length: 1e6 }, (_, i) => i) }";
const CUT_NOTE = /too large or too deep to compare outside the program/;

/** A run in a fresh one-worker pool, and a small run after it in the same pool. */
async function runThenAgain(code: string, options: RunOptions): Promise<{ first: ExecutionResult; after: ExecutionResult }> {
  const sandbox = createSandbox({ poolSize: 1 });
  try {
    const first = await sandbox.run(code, options);
    const after = await sandbox.run("1 + 1");
    return { first, after };
  } finally {
    await sandbox.dispose();
  }
}

describe("large values in JavaScript results and test comparisons", { timeout: 60_000 }, () => {
  it("a million-element array as the result ends output_limit, saying why", async () => {
    const { first, after } = await runThenAgain("Array.from({ length: 1e6 }, (_, i) => i)", {});
    expect(first).toMatchObject({ status: "output_limit", error: { message: expect.stringMatching(/result's JSON is at least \d+ bytes/) } });
    expect(after).toMatchObject({ status: "success", result: 2 });
  });

  it("a million-element array in a test comparison: the test fails with the cut note, the worker lives", async () => {
    const { first, after } = await runThenAgain(MILLION, { tests: "assert.deepStrictEqual(big(), big())\nassert.ok(big())\nassert.strictEqual(big().length, 1e6)" });
    expect(first.status).toBe("success");
    expect(first.tests?.cases?.map((c) => c.status)).toEqual(["failed", "passed", "passed"]);
    expect(first.tests?.cases?.[0]).toMatchObject({ actual: "...", expected: "...", note: expect.stringMatching(CUT_NOTE) });
    expect(after).toMatchObject({ status: "success", result: 2 });
  });

  it("an object with a million keys in a test comparison ends with a status, not a dead worker", async () => {
    const program = "function keys() { const o = {}; for (let i = 0; i < 1e6; i++) o['k' + i] = i; return o }";
    const { first, after } = await runThenAgain(program, { tests: "assert.deepStrictEqual(keys(), {})", memoryLimitBytes: 256 * 1024 * 1024 });
    expect(first.error?.name).not.toBe("EngineCrash");
    expect(first.status).toBe("success");
    expect(first.tests?.cases?.[0]).toMatchObject({ status: "failed", note: expect.stringMatching(CUT_NOTE) });
    expect(after).toMatchObject({ status: "success", result: 2 });
  });

  it("deep nesting and a huge string in test comparisons are cut, and their tests fail", async () => {
    const program = "function deep(n) { let a = []; for (let i = 0; i < n; i++) a = [a]; return a }\nfunction huge() { return 'x'.repeat(3e7) }";
    const tests = "assert.deepStrictEqual(deep(1e5), [])\nassert.strictEqual(huge(), 'x')\nassert.strictEqual(huge().length, 3e7)\nassert.deepStrictEqual(deep(20), deep(30))";
    const { first, after } = await runThenAgain(program, { tests });
    expect(first.status).toBe("success");
    expect(first.tests?.cases?.map((c) => c.status)).toEqual(["failed", "failed", "passed", "failed"]);
    expect(first.tests?.cases?.[0]!.note).toMatch(CUT_NOTE);
    // Two nestings past the depth bound are not equal for being cut at the same depth (the
    // deepest array once read as empty, and these two passed).
    expect(first.tests?.cases?.[3]!.note).toMatch(CUT_NOTE);
    // The string is not copied out of the engine: shown as cut, and never compared.
    expect(first.tests?.cases?.[1]).toMatchObject({ actual: '""...', note: expect.stringMatching(CUT_NOTE) });
    expect(after).toMatchObject({ status: "success", result: 2 });
  });

  it("a deeply nested or huge result ends with a status naming why", async () => {
    const deep = await runThenAgain("let a = []; for (let i = 0; i < 1e5; i++) a = [a]; a", {});
    expect(deep.first).toMatchObject({ status: "runtime_error", error: { message: expect.stringMatching(/cannot be serialised as JSON: stack overflow/) } });
    expect(deep.after).toMatchObject({ status: "success", result: 2 });
    const huge = await runThenAgain("'x'.repeat(5e7)", {});
    expect(["memory_limit", "output_limit"]).toContain(huge.first.status);
    expect(huge.after).toMatchObject({ status: "success", result: 2 });
  });
});
