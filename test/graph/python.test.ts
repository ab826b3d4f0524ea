import { afterAll, describe, expect, it } from "vitest";
import { createCodeGenGraph } from "../../src/graph/index.js";
import { disposeDefaultSandbox } from "../../src/sandbox/index.js";
import { fence as fenceIn, scriptedModel } from "../support/scripted-model.js";

afterAll(async () => {
  await disposeDefaultSandbox();
});

const fence = (code: string) => fenceIn("python", code);

describe("the graph with Python (Pyodide in Deno)", () => {
  it("refines a forbidden import and a failing test into working Python", async () => {
    const model = scriptedModel(
      fence("import numpy as np\n\ndef sum_even_squares(n):\n    return int(np.sum([i * i for i in range(2, n + 1, 2)]))"),
      fence("def sum_even_squares(n):\n    return sum(i * i for i in range(1, n + 1, 2))"),
      fence("def sum_even_squares(n):\n    return sum(i * i for i in range(2, n + 1, 2))\n\nprint(sum_even_squares(20))"),
    );
    // A generous run limit: on a loaded machine a run that times out restarts the interpreter, which takes seconds.
    // One candidate per round: each scripted reply is one round.
    const state = await createCodeGenGraph({ model, maxRetries: 2, timeoutMs: 60_000, repair: { samples: 1 } }).invoke({
      task: "Write sum_even_squares(n): the sum of the squares of the even numbers from 1 to n",
      language: "python",
      tests: "assert sum_even_squares(20) == 1540, sum_even_squares(20)\nassert sum_even_squares(1) == 0",
    });
    expect(state.attempts.map((a) => [a.phase, a.status])).toEqual([
      ["validate", "forbidden"],
      ["execute", "test_failed"],
      ["execute", "success"],
    ]);
    expect(state.attempts[0].error).toMatch(/numpy/);
    expect(state.attempts[1].error).toMatch(/`sum_even_squares\(20\)` returned `1330`; the test expects `1540`/);
    expect(state.status).toBe("success");
    expect(state.result?.stdout.trim()).toBe("1540");
  }, 240_000);
});
