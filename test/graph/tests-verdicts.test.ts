/**
 * Tests run as tests: the program first, then the task's tests as their own evaluation in the
 * same scope (`RunOptions.tests`). Verdicts through the whole graph with scripted models and
 * the real sandbox, for JavaScript, TypeScript and Python: the final status, each attempt's
 * phase and status, and what the refine prompt told the model.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createCodeGenGraph } from "../../src/graph/index.js";
import { disposeDefaultSandbox } from "../../src/sandbox/index.js";
import { fence, scriptedModel, promptRecorder } from "../support/scripted-model.js";

afterAll(async () => {
  await disposeDefaultSandbox();
});

const phases = (attempts: { phase: string; status: string }[]) => attempts.map((a) => [a.phase, a.status]);

describe("tests run as tests (JavaScript and TypeScript)", () => {
  it("correct JavaScript without a final semicolon, followed by tests that start with `[`, succeeds", async () => {
    const code = "function add(a, b) {\n  return a + b\n}\nconsole.log(add(1, 2))";
    const tests = "[[1, 2, 3], [2, 2, 4]].forEach(([a, b, sum]) => {\n  if (add(a, b) !== sum) throw new Error(`add(${a}, ${b}) should be ${sum}`)\n})";
    const state = await createCodeGenGraph({ model: scriptedModel(fence("js", code)), maxRetries: 0 }).invoke({ task: "Write add(a, b)", tests });
    expect(phases(state.attempts)).toEqual([["execute", "success"]]);
    expect(state.status).toBe("success");
    expect(state.result?.stdout).toBe("3\n");
  });

  it("the same in TypeScript", async () => {
    const code = "function add(a: number, b: number): number {\n  return a + b\n}\nconsole.log(add(1, 2))";
    const tests = "[[1, 2, 3], [2, 2, 4]].forEach(([a, b, sum]) => {\n  if (add(a, b) !== sum) throw new Error(`add(${a}, ${b}) should be ${sum}`)\n})";
    const state = await createCodeGenGraph({ model: scriptedModel(fence("ts", code)), maxRetries: 0 }).invoke({ task: "Write add(a, b)", language: "typescript", tests });
    expect(phases(state.attempts)).toEqual([["execute", "success"]]);
    expect(state.status).toBe("success");
  });

  it("tests that print do not break expectedOutput: it is compared with the program's own stdout", async () => {
    const code = "const answer = 6 * 7;\nconsole.log(answer);";
    const tests = "if (answer !== 42) throw new Error('answer should be 42');\nconsole.log('tests passed');";
    const state = await createCodeGenGraph({ model: scriptedModel(fence("js", code)), maxRetries: 0 }).invoke({ task: "Print 42", tests, expectedOutput: "42" });
    expect(phases(state.attempts)).toEqual([["execute", "success"]]);
    expect(state.result?.stdout).toBe("42\n");
    expect(state.result?.tests).toMatchObject({ status: "passed", stdout: "tests passed\n" });
  });

  it("a test that throws a string is test_failed with the test's line, never the code's runtime_error", async () => {
    const wrong = "function add(a, b) {\n  return a - b;\n}";
    const right = "function add(a, b) {\n  return a + b;\n}";
    const tests = "if (add(0, 0) !== 0) throw 'add(0, 0) should be 0';\nif (add(2, 3) !== 5) throw 'add(2, 3) should be 5';";
    const { prompts, callbacks } = promptRecorder();
    // The repair prompt (the default asks afresh after a failed test) carries the verdict.
    const graph = createCodeGenGraph({ model: scriptedModel(fence("js", wrong), fence("js", right)), repair: { prompt: "repair" } });
    const state = await graph.invoke({ task: "Write add(a, b)", tests }, { callbacks });
    expect(phases(state.attempts)).toEqual([
      ["execute", "test_failed"],
      ["execute", "success"],
    ]);
    // Run one by one: the first test passed, the second failed at its line with its message.
    expect(state.attempts[0]!.error).toMatch(/^1 of 2 tests passed\. Failing:\n- line 2: `if \(add\(2, 3\) !== 5\) throw 'add\(2, 3\) should be 5';` failed: .*add\(2, 3\) should be 5/);
    expect(prompts[1]).toMatch(/1 of 2 tests passed\. Failing:\n- line 2: .*add\(2, 3\) should be 5/);
    expect(prompts[1]).not.toMatch(/threw an error while running/);
    expect(state.status).toBe("success");
  });

  it("TypeScript: a failing test is located in the tests", async () => {
    const wrong = "function add(a: number, b: number): number {\n  return a - b;\n}";
    const tests = "const got: number = add(2, 3);\nif (got !== 5) throw new Error(`add(2, 3) gave ${got}`);";
    const state = await createCodeGenGraph({ model: scriptedModel(fence("ts", wrong)), maxRetries: 0 }).invoke({ task: "Write add", language: "typescript", tests });
    expect(phases(state.attempts)).toEqual([["execute", "test_failed"]]);
    expect(state.attempts[0]!.error).toMatch(/0 of 1 test passed\. Failing:\n- line 2: `if \(got !== 5\) throw new Error\(`add\(2, 3\) gave \$\{got\}`\);` failed: Error: add\(2, 3\) gave -1/);
    expect(state.status).toBe("failed");
  });
});
