/**
 * The converted HumanEval sets decide correctly in the real sandbox: canonical solutions pass,
 * and the JavaScript set's known-broken canonical solution fails (its `console.assert` throws).
 */
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { parseTaskFile } from "../../src/eval/task-set.js";
import { createSandbox } from "../../src/sandbox/index.js";

type Row = { task_id: string; prompt: string; canonical_solution: string };
const rows = (path: string) => readFileSync(path, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Row);
const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

async function runCanonical(path: string, ids: string[]) {
  const text = readFileSync(path, "utf8");
  const tasks = parseTaskFile(text);
  const canonical = new Map(rows(path).map((r) => [r.task_id, r.prompt + r.canonical_solution]));
  const statuses: Record<string, string> = {};
  for (const id of ids) {
    const task = tasks.find((t) => t.id === id)!;
    // The same program the graph builds: the code, a blank line, the tests.
    const result = await sandbox.run(`${canonical.get(id)}\n\n${task.tests.trim()}\n`, { language: task.language, timeoutMs: 20_000 });
    statuses[id] = result.status === "success" ? "success" : `${result.status}: ${result.error?.message}`;
  }
  return statuses;
}

describe("HumanEval conversions in the sandbox", () => {
  it("HumanEval-X JavaScript: canonical solutions pass, the broken JavaScript/112 fails", { timeout: 120_000 }, async () => {
    const passing = ["JavaScript/0", "JavaScript/1", "JavaScript/2", "JavaScript/10", "JavaScript/53", "JavaScript/163"];
    const statuses = await runCanonical("test/eval/fixtures/humaneval-x-js/humaneval_js-sample.jsonl", [...passing, "JavaScript/112"]);
    for (const id of passing) expect(statuses[id], id).toBe("success");
    expect(statuses["JavaScript/112"]).toMatch(/^runtime_error: Assertion failed/);
  });

  it("HumanEval (Python): canonical solutions pass with check(entry_point)", { timeout: 120_000 }, async () => {
    const ids = ["HumanEval/0", "HumanEval/32", "HumanEval/163"];
    const statuses = await runCanonical("test/eval/fixtures/humaneval/HumanEval-sample.jsonl", ids);
    for (const id of ids) expect(statuses[id], id).toBe("success");
  });
});
