import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { InvalidTaskFileError } from "../../src/eval/errors.js";
import { detectTaskFormat, loadTaskFile, parseTaskFile } from "../../src/eval/task-set.js";
import { referenceSolutions } from "./reference-solutions.js";

const HUMANEVAL = "test/eval/fixtures/humaneval/HumanEval-sample.jsonl";
const HUMANEVAL_X_JS = "test/eval/fixtures/humaneval-x-js/humaneval_js-sample.jsonl";

describe("evals/tasks.jsonl", () => {
  it("has at least 30 tasks in every language and difficulty, each with a reference solution", async () => {
    const tasks = await loadTaskFile("evals/tasks.jsonl");
    expect(tasks.length).toBeGreaterThanOrEqual(30);
    for (const language of ["javascript", "typescript", "python"]) {
      const own = tasks.filter((t) => t.language === language);
      expect(own.length, language).toBeGreaterThanOrEqual(8);
      expect(new Set(own.map((t) => t.difficulty)), language).toEqual(new Set(["easy", "medium", "hard"]));
    }
    for (const task of tasks) {
      expect(task.entryPoint, task.id).toBeTruthy();
      expect(referenceSolutions[task.id], `reference solution of ${task.id}`).toBeTruthy();
      expect(task.task).toContain(task.entryPoint!);
    }
    expect(Object.keys(referenceSolutions).sort()).toEqual(tasks.map((t) => t.id).sort());
  });
});

describe("parseTaskFile", () => {
  it("reads our format and keeps optional fields", () => {
    const text =
      JSON.stringify({ id: "a", language: "python", task: "t", tests: "assert f() == 1", details: "c", difficulty: "easy" }) +
      "\n\n" +
      JSON.stringify({ id: "b", language: "typescript", task: "t2", tests: "x" }) +
      "\n";
    expect(parseTaskFile(text)).toEqual([
      { id: "a", language: "python", task: "t", tests: "assert f() == 1", details: "c", difficulty: "easy" },
      { id: "b", language: "typescript", task: "t2", tests: "x" },
    ]);
  });

  it("names the file and line of a bad row", () => {
    const good = JSON.stringify({ id: "a", language: "javascript", task: "t", tests: "x" });
    const cases: Array<[string, RegExp]> = [
      [`${good}\n{not json`, /line 2: not JSON/],
      [`${good}\n${JSON.stringify({ id: "b", language: "ruby", task: "t", tests: "x" })}`, /line 2: "language" must be one of/],
      [`${good}\n${good}`, /line 2: duplicate task id "a"/],
      [`${good}\n${JSON.stringify({ hello: 1 })}`, /line 2: not a task/],
      [`${good}\n[1]`, /line 2: expected a JSON object/],
      [`${good}\n${JSON.stringify({ id: "b", language: "javascript", task: "t", tests: "x", context: "c" })}`, /line 2: "context" is now "details"/],
    ];
    for (const [text, message] of cases) {
      let caught: unknown;
      try {
        parseTaskFile(text, { file: "x.jsonl" });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InvalidTaskFileError);
      expect((caught as Error).message).toMatch(message);
      expect((caught as Error).message).toContain("x.jsonl");
    }
  });

  it("refuses a row of another format than the one asked for", () => {
    const row = JSON.stringify({ id: "a", language: "javascript", task: "t", tests: "x" });
    expect(() => parseTaskFile(row, { format: "humaneval" })).toThrow(/looks like "tasks" but the file is read as "humaneval"/);
  });

  it("converts HumanEval (Python): prompt in the task, test + check(entry_point) as tests", () => {
    const tasks = parseTaskFile(readFileSync(HUMANEVAL, "utf8"));
    expect(tasks.length).toBeGreaterThanOrEqual(3);
    const first = tasks[0]!;
    expect(first).toMatchObject({ id: "HumanEval/0", language: "python", entryPoint: "has_close_elements" });
    expect(first.task).toContain("def has_close_elements(numbers: List[float], threshold: float) -> bool:");
    expect(first.tests.trimEnd().endsWith("check(has_close_elements)")).toBe(true);
  });

  it("converts HumanEval-X JavaScript with a console.assert that throws", () => {
    const tasks = parseTaskFile(readFileSync(HUMANEVAL_X_JS, "utf8"));
    expect(tasks.length).toBeGreaterThanOrEqual(3);
    expect(tasks[0]).toMatchObject({ id: "JavaScript/0", language: "javascript", entryPoint: "hasCloseElements" });
    expect(tasks[0]!.tests).toContain("console.assert = ");
    expect(detectTaskFormat(JSON.parse(readFileSync(HUMANEVAL_X_JS, "utf8").split("\n")[0]!))).toBe("humaneval-x-js");
  });
});
