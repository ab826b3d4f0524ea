import { afterAll, describe, expect, it } from "vitest";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { createCodeGenGraph } from "../../src/graph/index.js";
import { disposeDefaultSandbox } from "../../src/sandbox/index.js";
import { promptRecorder } from "../support/scripted-model.js";

afterAll(async () => {
  await disposeDefaultSandbox();
});

const fence = "```";
const scripted = (...replies: string[]) => new FakeListChatModel({ responses: replies });

describe("the graph reads one program per reply", () => {
  it("a reply that quotes the buggy line and then gives the fixed program succeeds at once", async () => {
    const reply = [
      "The bug is this line:",
      `${fence}js`,
      "  return a - b;",
      fence,
      "Fixed program:",
      `${fence}js`,
      "function add(a, b) {",
      "  return a + b;",
      "}",
      "console.log(add(2, 3));",
      fence,
    ].join("\n");
    const state = await createCodeGenGraph({ model: scripted(reply) }).invoke({ task: "Print add(2, 3)", expectedOutput: "5" });
    expect(state.status).toBe("success");
    expect(state.attempts.map((a) => [a.phase, a.status])).toEqual([["execute", "success"]]);
  });

  it("a prose-only reply goes to refine with 'no program found' and the reason", async () => {
    const { prompts, callbacks } = promptRecorder();
    const model = scripted("I would loop over the numbers and add them up.", `${fence}javascript\nconsole.log([1, 2, 3].reduce((a, b) => a + b, 0));\n${fence}`);
    const state = await createCodeGenGraph({ model }).invoke({ task: "Print the sum of 1, 2, 3" }, { callbacks });
    expect(state.status).toBe("success");
    expect(state.attempts.map((a) => [a.number, a.phase, a.status])).toEqual([
      [1, "validate", "no_program"],
      [2, "execute", "success"],
    ]);
    expect(prompts[1]).toContain("No program was found in the reply. Why: the reply is prose only: it has no code block and no code.");
    expect(prompts[1]).toContain("Answer with one fenced code block, tagged with the language, holding the whole program.");
  });

  it("a block of another language is not run: the model is told which blocks it sent", async () => {
    const { prompts, callbacks } = promptRecorder();
    const model = scripted(`${fence}python\nprint(1)\n${fence}`, `${fence}js\nconsole.log(1);\n${fence}`);
    const state = await createCodeGenGraph({ model }).invoke({ task: "Print 1", language: "javascript" }, { callbacks });
    expect(state.attempts.map((a) => a.status)).toEqual(["no_program", "success"]);
    expect(prompts[1]).toContain("the reply has no JavaScript code block (its blocks: python)");
  });

  it("TypeScript with a type error goes to refine with line and column before it runs", async () => {
    const { prompts, callbacks } = promptRecorder();
    const model = scripted(
      `${fence}ts\nconst total: number = "6";\nconsole.log(total);\n${fence}`,
      `${fence}ts\nconst total: number = 6;\nconsole.log(total);\n${fence}`,
    );
    const state = await createCodeGenGraph({ model }).invoke({ task: "Print 6", language: "typescript" }, { callbacks });
    expect(state.status).toBe("success");
    expect(state.attempts.map((a) => [a.number, a.phase, a.status])).toEqual([
      [1, "validate", "type_error"],
      [2, "execute", "success"],
    ]);
    expect(state.attempts[0]!.error).toBe("line 1:7 TS2322: Type 'string' is not assignable to type 'number'. (`const total: number = \"6\";`)");
    expect(prompts[1]).toContain("The code does not type-check. line 1:7 TS2322: Type 'string' is not assignable to type 'number'.");
    expect(prompts[1]).toContain("status `type_error`");
  }, 60_000);

  it("a type error on the last attempt fails the run with the explanation", async () => {
    const model = scripted(`${fence}ts\nlet n: number = "x";\n${fence}`);
    const state = await createCodeGenGraph({ model, maxRetries: 0 }).invoke({ task: "Anything", language: "typescript" });
    expect(state.status).toBe("failed");
    expect(state.explanation).toMatch(/^No working code after 1 attempt \(type_error on the last one\)\. The code does not type-check\. line 1:5 TS2322/);
  }, 60_000);

  it("a run that shows nothing for a task that asks for output is no_output, and refine quotes the task", async () => {
    const { prompts, callbacks } = promptRecorder();
    const model = scripted(
      `${fence}js\nfunction factorial(n) {\n  return n <= 1 ? 1 : n * factorial(n - 1);\n}\n${fence}`,
      `${fence}js\nfunction factorial(n) {\n  return n <= 1 ? 1 : n * factorial(n - 1);\n}\nconsole.log(factorial(10));\n${fence}`,
    );
    const state = await createCodeGenGraph({ model }).invoke({ task: "Calculate the factorial of 10 and print the result." }, { callbacks });
    expect(state.attempts.map((a) => [a.phase, a.status])).toEqual([
      ["execute", "no_output"],
      ["execute", "success"],
    ]);
    expect(state.attempts[0]!.error).toBe(
      'The program ran but printed nothing and its last expression has no value. The task asks: "Calculate the factorial of 10 and print the result". Print the answer (print() in Python, console.log() in JavaScript and TypeScript): defining a function is not enough, call it.',
    );
    expect(prompts[1]).toContain("status `no_output`");
    expect(prompts[1]).toContain('The task asks: "Calculate the factorial of 10 and print the result"');
    expect(state.result?.stdout).toBe("3628800\n");
  });

  it("with no repairs left, a silent run of a print task fails instead of succeeding", async () => {
    const state = await createCodeGenGraph({ model: scripted(`${fence}js\nconst f = 3628800;\n${fence}`), maxRetries: 0 }).invoke({ task: "Print the factorial of 10." });
    expect(state.status).toBe("failed");
    expect(state.explanation).toMatch(/^No working code after 1 attempt \(no_output on the last one\)\. The program ran but printed nothing/);
  });
});

