/**
 * Tests run as tests, in Python (Pyodide in Deno): `sys.exit` before the tests, tests that
 * print, a raised value in the tests. See tests-verdicts.test.ts for JavaScript and TypeScript.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createCodeGenGraph } from "../../src/graph/index.js";
import { disposeDefaultSandbox } from "../../src/sandbox/index.js";
import { fence, scriptedModel, promptRecorder } from "../support/scripted-model.js";

afterAll(async () => {
  await disposeDefaultSandbox();
});

const phases = (attempts: { phase: string; status: string }[]) => attempts.map((a) => [a.phase, a.status]);

describe("tests run as tests (Python)", { timeout: 180_000 }, () => {
  const limits = { timeoutMs: 60_000 };

  it("a program that calls sys.exit(0) before its tests fails (tests_not_run), and the model is told why", async () => {
    const exits = "import sys\n\ndef add(a, b):\n    return a - b\n\nsys.exit(0)";
    const fixed = "def add(a, b):\n    return a + b";
    const { prompts, callbacks } = promptRecorder();
    const state = await createCodeGenGraph({ model: scriptedModel(fence("python", exits), fence("python", fixed)), ...limits }).invoke(
      { task: "Write add(a, b)", language: "python", tests: "assert add(2, 3) == 5" },
      { callbacks },
    );
    expect(phases(state.attempts)).toEqual([
      ["execute", "tests_not_run"],
      ["execute", "success"],
    ]);
    expect(state.attempts[0]!.error).toMatch(/^The tests did not run\. Why: the program called sys\.exit\(0\) before the tests ran\. Let the program finish normally/);
    expect(prompts[1]).toMatch(/The tests did not run\. Why: the program called sys\.exit\(0\)/);
    expect(state.status).toBe("success");
  });

  it("with no repairs left, sys.exit(0) before the tests ends the run failed, not success", async () => {
    const exits = "import sys\n\ndef add(a, b):\n    return a - b\n\nsys.exit(0)";
    const state = await createCodeGenGraph({ model: scriptedModel(fence("python", exits)), maxRetries: 0, ...limits }).invoke({
      task: "Write add(a, b)",
      language: "python",
      tests: "assert add(2, 3) == 5",
    });
    expect(phases(state.attempts)).toEqual([["execute", "tests_not_run"]]);
    expect(state.status).toBe("failed");
    expect(state.explanation).toMatch(/tests_not_run on the last one/);
  });

  it("tests that print do not break expectedOutput, and a raised value in the tests is test_failed", async () => {
    const code = "def add(a, b):\n    return a + b\n\nprint(add(20, 22))";
    const printing = await createCodeGenGraph({ model: scriptedModel(fence("python", code)), maxRetries: 0, ...limits }).invoke({
      task: "Write add and print add(20, 22)",
      language: "python",
      tests: "assert add(2, 3) == 5\nprint('tests passed')",
      expectedOutput: "42",
    });
    expect(phases(printing.attempts)).toEqual([["execute", "success"]]);
    expect(printing.result?.tests?.stdout).toBe("tests passed\n");

    const raising = await createCodeGenGraph({ model: scriptedModel(fence("python", code)), maxRetries: 0, ...limits }).invoke({
      task: "Write add",
      language: "python",
      tests: "if add(2, 2) != 5:\n    raise ValueError('add(2, 2) should be 5')",
    });
    expect(phases(raising.attempts)).toEqual([["execute", "test_failed"]]);
    // Run one by one: the count, the test's line and source, the exception and its line.
    expect(raising.attempts[0]!.error).toMatch(/^0 of 1 test passed\. Failing:\n- line 1: `if add\(2, 2\) != 5: raise ValueError\('add\(2, 2\) should be 5'\)` raised ValueError: add\(2, 2\) should be 5 at line 2 of the tests\./);
  });
});
