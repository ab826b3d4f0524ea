/**
 * The evaluation harness's verdicts on programs that would fool a text join of program and
 * tests: a program that exits before its tests fails; a program whose tests print passes.
 * Through the real graph, the real sandbox and `graphSolver`, with scripted models.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createCodeGenGraph } from "../../src/graph/graph.js";
import { graphSolver } from "../../src/eval/graph-solver.js";
import { runEvaluation } from "../../src/eval/run-evaluation.js";
import type { EvalTask } from "../../src/eval/task-set.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { fence, scriptedModel } from "../support/scripted-model.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const tasks: EvalTask[] = [
  { id: "exits-before-tests", language: "python", task: "Write add(a, b)", tests: "assert add(2, 3) == 5" },
  { id: "tests-print", language: "python", task: "Write add(a, b)", tests: "print('checking add')\nassert add(2, 3) == 5\nprint('ok')" },
  { id: "js-tests-print", language: "javascript", task: "Write add(a, b)", tests: "console.log('checking add')\nif (add(2, 3) !== 5) throw new Error('add(2, 3) should be 5')" },
];

const replies: Record<string, string> = {
  // Wrong, and exits before the tests could catch it.
  "exits-before-tests": fence("python", "import sys\n\ndef add(a, b):\n    return a - b\n\nsys.exit(0)"),
  "tests-print": fence("python", "def add(a, b):\n    return a + b"),
  "js-tests-print": fence("javascript", "function add(a, b) {\n  return a + b\n}"),
};

describe("evaluation verdicts through the graph", { timeout: 180_000 }, () => {
  it("fails a program that exits before its tests and passes one whose tests print", async () => {
    const report = await runEvaluation({
      tasks,
      solve: (task, signal) =>
        graphSolver(createCodeGenGraph({ model: scriptedModel(replies[task.id]!), sandbox, maxRetries: 0, timeoutMs: 60_000 }))(task, signal),
    });
    const byId = Object.fromEntries(report.results.map((r) => [r.id, r]));
    expect(byId["exits-before-tests"]).toMatchObject({ passedFirstAttempt: false, passedAfterRepair: false, attemptStatuses: ["tests_not_run"] });
    expect(byId["exits-before-tests"]!.explanation).toMatch(/The tests did not run\. Why: the program called sys\.exit\(0\)/);
    expect(byId["tests-print"]).toMatchObject({ passedFirstAttempt: true, passedAfterRepair: true, attemptStatuses: ["success"] });
    expect(byId["js-tests-print"]).toMatchObject({ passedFirstAttempt: true, passedAfterRepair: true, attemptStatuses: ["success"] });
    expect(report.summary).toMatchObject({ tasks: 3, passedAfterRepair: 2 });
  });
});
