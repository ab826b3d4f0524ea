/**
 * Every task of evals/tasks.jsonl is checked in the real sandbox, the way the graph runs it
 * (the model's code, then the task's tests appended): the reference solution must pass and a
 * stub of the entry point must fail, so each task can be solved and each test can fail.
 */
import { afterAll, describe, expect, it } from "vitest";
import { loadTaskFile, type EvalTask } from "../../src/eval/task-set.js";
import { createSandbox } from "../../src/sandbox/index.js";
import type { ExecutionResult } from "../../src/sandbox/types.js";
import { referenceSolutions } from "./reference-solutions.js";

const tasks = await loadTaskFile("evals/tasks.jsonl");
const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

function stubOf(task: EvalTask): string {
  const name = task.entryPoint!;
  return task.language === "python"
    ? `def ${name}(*args, **kwargs):\n    return None\n`
    : `function ${name}(..._args) {\n  return null;\n}\n`;
}

async function runWithTests(task: EvalTask, code: string): Promise<ExecutionResult> {
  return sandbox.run(`${code}\n\n${task.tests.trim()}\n`, { language: task.language, timeoutMs: 20_000 });
}

function describeFailure(result: ExecutionResult): string {
  return `${result.status}: ${result.error?.name}: ${result.error?.message} (line ${result.error?.line})\n${result.stderr}`;
}

for (const language of ["javascript", "typescript", "python"] as const) {
  describe(`${language} tasks`, () => {
    for (const task of tasks.filter((t) => t.language === language)) {
      it(`${task.id}: reference passes, stub fails`, { timeout: 120_000 }, async () => {
        const good = await runWithTests(task, referenceSolutions[task.id]!);
        expect(good.status, describeFailure(good)).toBe("success");
        const stub = await runWithTests(task, stubOf(task));
        expect(stub.status, `the tests of ${task.id} accepted a stub`).not.toBe("success");
        expect(["runtime_error"]).toContain(stub.status);
      });
    }
  });
}
