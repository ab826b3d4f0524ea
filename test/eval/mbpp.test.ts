import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MBPP_SANITIZED_SHA256, looksLikeMbpp, parseMbppFile, sampleTasks } from "../../src/eval/mbpp.js";
import { parseTaskFile } from "../../src/eval/task-set.js";
import { taskTests } from "../../src/eval/shown-tests.js";
import { InvalidTaskFileError } from "../../src/eval/errors.js";

const text = readFileSync(new URL("./fixtures/mbpp/sanitized-mbpp-fixture.json", import.meta.url), "utf8");

describe("MBPP files", () => {
  it("reads the test split (ids 11 to 510) as Python tasks with their asserts as test cases", () => {
    const { tasks, known, sha256 } = parseMbppFile(text, { file: "fixture.json" });
    expect(tasks.map((t) => t.id)).toEqual(["mbpp/11", "mbpp/42", "mbpp/510"]);
    expect(known).toBe(false);
    expect(sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(MBPP_SANITIZED_SHA256).toMatch(/^ca95deaa[0-9a-f]{52}c8e9$/);
    const distance = tasks[1]!;
    expect(distance).toMatchObject({ language: "python", entryPoint: "point_distance", testSetup: "import math" });
    expect(distance.testCases).toHaveLength(3);
    expect(distance.tests).toBe(`import math\n${distance.testCases!.join("\n")}\n`);
    expect(parseMbppFile(text, { split: "all" }).tasks).toHaveLength(5);
  });

  it("is detected by parseTaskFile, and a bad row is named", () => {
    expect(looksLikeMbpp(text)).toBe(true);
    expect(looksLikeMbpp('{"id": "x"}')).toBe(false);
    expect(parseTaskFile(text).map((t) => t.id)).toEqual(["mbpp/11", "mbpp/42", "mbpp/510"]);
    expect(() => parseMbppFile('[{"task_id": 12, "prompt": "p", "test_list": [1]}]', { file: "bad.json" })).toThrow(InvalidTaskFileError);
    expect(() => parseTaskFile('[{"task_id": 12}]', { format: "mbpp" })).toThrow(/problem 0 is not an MBPP row/);
  });

  it("shows the model the first K asserts and judges on all of them", () => {
    const [, distance] = parseMbppFile(text).tasks;
    const split = taskTests(distance!, 1);
    expect(split.shown).toBe("import math\nassert point_distance(0, 0, 3, 4) == 5.0\n");
    expect(split.judged).toBe(distance!.tests);
    expect(split.split).toBe(true);
    expect(taskTests(distance!).split).toBe(false);
    expect(taskTests(distance!, 3).split).toBe(false);
    expect(taskTests({ ...distance!, hiddenTests: "assert point_distance(0, 0, 0, 0) == 0" }).judged).toMatch(/0, 0, 0, 0/);
  });

  it("samples with a seed: the same seed gives the same tasks, in file order", () => {
    const ids = Array.from({ length: 257 }, (_, i) => i + 11);
    const a = sampleTasks(ids, 50, 20261203);
    expect(a).toEqual(sampleTasks(ids, 50, 20261203));
    expect(a).toHaveLength(50);
    expect(new Set(a).size).toBe(50);
    expect([...a].sort((x, y) => x - y)).toEqual(a);
    expect(sampleTasks(ids, 50, 7)).not.toEqual(a);
    expect(sampleTasks(ids, 500, 1)).toHaveLength(257);
    expect(() => sampleTasks(ids, 5, -1)).toThrow(/seed/);
  });
});
