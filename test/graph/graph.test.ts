import { afterAll, describe, expect, it } from "vitest";
import { fakeModel } from "@langchain/core/testing";
import { AIMessage } from "@langchain/core/messages";
import { Command, MemorySaver } from "@langchain/langgraph";
import { codeGenRunContext, createCodeGenGraph, createCodeGenGraphBuilder } from "../../src/graph/index.js";
import type { ApprovalRequest, CodeGenEvent } from "../../src/graph/index.js";
import { disposeDefaultSandbox } from "../../src/sandbox/index.js";
import { InvalidOptionError } from "../../src/errors.js";
import { partialSandbox } from "../support/partial-sandbox.js";
import { fence, scriptedModel as scripted, promptRecorder } from "../support/scripted-model.js";

afterAll(async () => {
  await disposeDefaultSandbox();
});

const noWait = { sleep: async () => {} };

describe("code-generation graph (real sandbox, scripted models)", () => {
  it("solves a task on the first attempt", async () => {
    const graph = createCodeGenGraph({ model: scripted(fence("js", "let f = 1;\nfor (let i = 2; i <= 10; i++) f *= i;\nconsole.log(f);")) });
    const state = await graph.invoke({ task: "Print the factorial of 10" });
    expect(state.status).toBe("success");
    expect(state.result?.stdout.trim()).toBe("3628800");
    expect(state.code).toContain("f *= i");
    expect(state.attempts).toHaveLength(1);
    expect(state.attempts[0]).toMatchObject({ number: 1, phase: "execute", status: "success" });
    expect(state.explanation).toBeUndefined();
    expect(state.language).toBe("javascript");
  });

  it("refines a first attempt with a bug, quoting the failing line to the model", async () => {
    const model = scripted(
      fence("javascript", "const values = [1, 2, 3];\nconsole.log(totl(values));"),
      fence("javascript", "const values = [1, 2, 3];\nconsole.log(values.reduce((a, b) => a + b, 0));"),
    );
    const { prompts, callbacks } = promptRecorder();
    const state = await createCodeGenGraph({ model }).invoke({ task: "Print the sum of 1, 2, 3" }, { callbacks });
    expect(state.status).toBe("success");
    expect(state.result?.stdout.trim()).toBe("6");
    expect(state.attempts.map((a) => [a.number, a.phase, a.status])).toEqual([
      [1, "execute", "runtime_error"],
      [2, "execute", "success"],
    ]);
    expect(state.attempts[0].error).toMatch(/ReferenceError.*totl/);
    expect(prompts).toHaveLength(2);
    expect(prompts[1]).toContain("2 | console.log(totl(values));");
    expect(prompts[1]).toMatch(/line 2(:\d+)?: `console\.log\(totl\(values\)\);`/);
  });

  it("sends a syntax error to refine without executing it", async () => {
    const model = scripted(fence("js", "const x = (1 + ;\nconsole.log(x);"), fence("js", "const x = 1 + 1;\nconsole.log(x);"));
    const { prompts, callbacks } = promptRecorder();
    const state = await createCodeGenGraph({ model }).invoke({ task: "Print 2" }, { callbacks });
    expect(state.status).toBe("success");
    expect(state.attempts.map((a) => [a.phase, a.status])).toEqual([
      ["validate", "syntax_error"],
      ["execute", "success"],
    ]);
    expect(state.attempts[0].stdout).toBe("");
    expect(prompts[1]).toMatch(/does not parse/);
  });

  it("catches a forbidden import before running and asks for built-ins only", async () => {
    const model = scripted(
      fence("js", 'import fs from "fs";\nconsole.log(fs.readFileSync("/etc/passwd", "utf8"));'),
      fence("js", 'console.log("no files here");'),
    );
    const { prompts, callbacks } = promptRecorder();
    const state = await createCodeGenGraph({ model }).invoke({ task: "Read a file" }, { callbacks });
    expect(state.attempts[0]).toMatchObject({ phase: "validate", status: "forbidden" });
    expect(state.attempts[0].error).toMatch(/fs/);
    expect(prompts[1]).toMatch(/built-ins/);
    expect(state.status).toBe("success");
  });

  it("reports a timeout and gives up after the retries with every attempt kept", async () => {
    // Two different programs: the same one again would be a repeat, never run.
    const loop = fence("js", "let n = 0;\nwhile (true) { n++; }");
    const otherLoop = fence("js", "let m = 0;\nfor (;;) { m += 2; }");
    const graph = createCodeGenGraph({ model: scripted(loop, otherLoop), maxRetries: 1, timeoutMs: 300 });
    const state = await graph.invoke({ task: "Count forever" });
    expect(state.status).toBe("failed");
    expect(state.attempts.map((a) => [a.number, a.status])).toEqual([
      [1, "timeout"],
      [2, "timeout"],
    ]);
    expect(state.result?.status).toBe("timeout");
    expect(state.explanation).toMatch(/after 2 attempts/);
    expect(state.explanation).toMatch(/time limit of 300 ms/);
  });

  it("runs the tests after the program and tells the model which test failed", async () => {
    const tests = "if (isEven(3) !== false) throw new Error('isEven(3) should be false');\nif (isEven(4) !== true) throw new Error('isEven(4) should be true');";
    const model = scripted(fence("js", "function isEven(n) {\n  return true;\n}"), fence("js", "function isEven(n) {\n  return n % 2 === 0;\n}"));
    const { prompts, callbacks } = promptRecorder();
    // The repair prompt (not the default's fresh sample after a failed test) shows the failure.
    const state = await createCodeGenGraph({ model, repair: { prompt: "repair" } }).invoke({ task: "Write isEven(n)", tests }, { callbacks });
    expect(state.attempts.map((a) => a.status)).toEqual(["test_failed", "success"]);
    expect(state.attempts[0].error).toMatch(/1 of 2 tests passed\. Failing:\n- line 1: .*failed: Error: isEven\(3\) should be false/);
    expect(prompts[0]).toContain("isEven(4) !== true");
    expect(prompts[1]).toMatch(/1 of 2 tests passed/);
    expect(state.status).toBe("success");
  });

  it("treats output that differs from expectedOutput as a failed attempt", async () => {
    const model = scripted(fence("js", "console.log('Hello world')"), fence("js", "console.log('Hello, World!')"));
    const state = await createCodeGenGraph({ model }).invoke({ task: "Greet", expectedOutput: "Hello, World!\n" });
    expect(state.attempts.map((a) => a.status)).toEqual(["wrong_output", "success"]);
    expect(state.attempts[0].error).toMatch(/Expected:\nHello, World!\nGot:\nHello world/);
    expect(state.status).toBe("success");
  });

  it("ends with status failed, an explanation and all attempts once retries are exhausted", async () => {
    const bad = fence("js", "const o = null;\nconsole.log(o.name);");
    const state = await createCodeGenGraph({
      model: scripted(fence("js", "const p = undefined;\nconsole.log(p.name);"), fence("js", "let q = null;\nconsole.log(q.first);"), bad),
    }).invoke({ task: "Print a name" });
    expect(state.status).toBe("failed");
    expect(state.attempts.map((a) => a.number)).toEqual([1, 2, 3]);
    expect(state.attempts.every((a) => a.status === "runtime_error")).toBe(true);
    expect(state.explanation).toMatch(/No working code after 3 attempts \(runtime_error/);
    expect(state.explanation).toMatch(/TypeError/);
    expect(state.explanation).toContain("console.log(o.name);");
  });

  it("extracts code from a reply with prose around it", async () => {
    const reply = "Of course. Here is a short program:\n\n```typescript\nconst n: number = 6 * 7;\nconsole.log(n);\n```\n\nIt prints 42 to the console.";
    const state = await createCodeGenGraph({ model: scripted(reply) }).invoke({ task: "Print 42", language: "typescript" });
    expect(state.code).toBe("const n: number = 6 * 7;\nconsole.log(n);");
    expect(state.result?.stdout.trim()).toBe("42");
  });

  it("type-checks TypeScript with the globals its runner declares (typeDeclarations)", async () => {
    const { runCode, checkCode } = await import("../../src/sandbox/index.js");
    const code = "const rate: number = settings.rate;\nconsole.log(rate * 2);";
    const runner = (declared: boolean) =>
      Object.assign(
        partialSandbox({ run: (source, options) => runCode(source, { ...options, globals: { settings: { rate: 21 } } }), check: checkCode }),
        declared ? { typeDeclarations: (source: string) => (source.includes("settings") ? "declare const settings: { rate: number };" : "") } : {},
      );
    const ok = await createCodeGenGraph({ model: scripted(fence("ts", code)), sandbox: runner(true), maxRetries: 0 }).invoke({ task: "Print twice the rate", language: "typescript" });
    expect(ok.status).toBe("success");
    expect(ok.result?.stdout.trim()).toBe("42");
    const undeclared = await createCodeGenGraph({ model: scripted(fence("ts", code)), sandbox: runner(false), maxRetries: 0 }).invoke({ task: "Print twice the rate", language: "typescript" });
    expect(undeclared.attempts.at(-1)).toMatchObject({ phase: "validate", status: "type_error" });
  });

  it("streams node updates and one custom event per step", async () => {
    const model = scripted(fence("js", "console.log(undefinedThing)"), fence("js", "console.log('ok')"));
    const graph = createCodeGenGraph({ model });
    const nodes: string[] = [];
    const events: CodeGenEvent[] = [];
    for await (const [mode, chunk] of await graph.stream({ task: "Print ok" }, { streamMode: ["updates", "custom"] })) {
      if (mode === "updates") nodes.push(...Object.keys(chunk as object));
      else events.push(chunk as CodeGenEvent);
    }
    expect(nodes).toEqual(["generate", "validate", "execute", "refine", "validate", "execute", "finalize"]);
    expect(events.map((e) => [e.node, e.attempt, e.status])).toEqual([
      ["generate", 1, "generated"],
      ["validate", 1, "valid"],
      ["execute", 1, "runtime_error"],
      ["refine", 2, "generated"],
      ["validate", 2, "valid"],
      ["execute", 2, "success"],
      ["finalize", 2, "success"],
    ]);
    expect(events[5].stdout?.trim()).toBe("ok");
    expect(events[2].message).toMatch(/undefinedThing/);
  });

  it("retries a model call that answered 429, then counts the tokens of the reply", async () => {
    const model = fakeModel()
      .respond(Object.assign(new Error("Rate limit reached"), { status: 429 }))
      .respond(new AIMessage({ content: fence("js", "console.log(5)"), usage_metadata: { input_tokens: 120, output_tokens: 9, total_tokens: 129 } }));
    const retries: number[] = [];
    const graph = createCodeGenGraph({ model, modelRetry: { ...noWait, onRetry: ({ retry }) => retries.push(retry) } });
    const state = await graph.invoke({ task: "Print 5" });
    expect(state.status).toBe("success");
    expect(retries).toEqual([1]);
    expect(model.callCount).toBe(2);
    expect(state.attempts[0]).toMatchObject({ inputTokens: 120, outputTokens: 9 });
  });

  it("ends the run on a model error that retrying cannot fix, keeping earlier attempts", async () => {
    const model = fakeModel()
      .respond(new AIMessage(fence("js", "throw new Error('first try fails')")))
      .respond(Object.assign(new Error("Invalid request: context too long"), { status: 400 }));
    const state = await createCodeGenGraph({ model, modelRetry: noWait }).invoke({ task: "Anything" });
    expect(state.status).toBe("failed");
    expect(model.callCount).toBe(2);
    expect(state.attempts.map((a) => [a.number, a.status])).toEqual([
      [1, "runtime_error"],
      [2, "model_error"],
    ]);
    expect(state.explanation).toMatch(/^The model could not be used after 1 attempt of code: Model .*HTTP 400.*context too long/);
  });

  it("gives up on a model that keeps failing with 5xx after the configured retries", async () => {
    const error = () => Object.assign(new Error("upstream overloaded"), { status: 503 });
    const model = fakeModel().respond(error()).respond(error()).respond(error());
    const state = await createCodeGenGraph({ model, modelRetry: { ...noWait, maxRetries: 2 } }).invoke({ task: "Anything" });
    expect(model.callCount).toBe(3);
    expect(state.status).toBe("failed");
    expect(state.attempts).toEqual([expect.objectContaining({ status: "model_error", phase: "generate" })]);
    expect(state.explanation).toMatch(/^The model could not be used: .*kept failing with HTTP 503 after 3 calls/);
  });

  it("rejects bad options with one clear error", () => {
    expect(() => createCodeGenGraph({ maxRetries: -1 })).toThrow(InvalidOptionError);
    expect(() => createCodeGenGraph({ defaultLanguage: "ruby" as never })).toThrow(/Invalid option "defaultLanguage": got "ruby"; expected one of "javascript", "typescript", "python"/);
  });

  it("rejects an empty task", async () => {
    await expect(createCodeGenGraph({ model: scripted("x") }).invoke({ task: "  " })).rejects.toThrow(/Invalid option "task"/);
  });
});

describe("approval before execution (MemorySaver)", () => {
  const code = "console.log('original')";
  const approvalGraph = () =>
    createCodeGenGraphBuilder({ model: scripted(fence("js", code)), approveBeforeExecute: true }).compile({ checkpointer: new MemorySaver() });

  async function pause(threadId: string) {
    const graph = approvalGraph();
    const config = { configurable: { thread_id: threadId } };
    const paused = await graph.invoke({ task: "Print something" }, config);
    const snapshot = await graph.getState(config);
    const request = snapshot.tasks.flatMap((t) => t.interrupts)[0]?.value as ApprovalRequest;
    return { graph, config, paused, request };
  }

  it("pauses before running, showing the code, and runs it when approved", async () => {
    const { graph, config, paused, request } = await pause("approve");
    expect(paused.result).toBeUndefined();
    expect(paused.status).toBeUndefined();
    expect(request).toMatchObject({ type: "approve_code", code, attempt: 1, language: "javascript" });
    const state = await graph.invoke(new Command({ resume: { action: "approve" } }), config);
    expect(state.status).toBe("success");
    expect(state.result?.stdout.trim()).toBe("original");
  });

  it("runs the edited code when resumed with an edit", async () => {
    const { graph, config } = await pause("edit");
    const state = await graph.invoke(new Command({ resume: { action: "edit", code: "console.log('edited')" } }), config);
    expect(state.status).toBe("success");
    expect(state.code).toBe("console.log('edited')");
    expect(state.result?.stdout.trim()).toBe("edited");
  });

  it("validates an edit: a broken edit goes to refine, and the refined code comes back for approval", async () => {
    const model = scripted(fence("js", code), fence("js", "console.log('refined')"));
    const graph = createCodeGenGraphBuilder({ model, approveBeforeExecute: true }).compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "broken-edit" } };
    const nodes: string[] = [];
    const track = async (stream: AsyncIterable<unknown>) => {
      for await (const chunk of stream) nodes.push(...Object.keys(chunk as object));
    };
    await track(await graph.stream({ task: "Print something" }, { ...config, streamMode: "updates" }));
    await track(await graph.stream(new Command({ resume: { action: "edit", code: "console.log('edited'" } }), { ...config, streamMode: "updates" }));
    // The edit did not parse: it never ran; refine wrote new code, which waits for approval again.
    const paused = await graph.getState(config);
    const request = paused.tasks.flatMap((t) => t.interrupts)[0]?.value as ApprovalRequest;
    expect(request).toMatchObject({ attempt: 2, code: "console.log('refined')" });
    expect(paused.values.attempts.map((a: { phase: string; status: string; code: string }) => [a.phase, a.status, a.code])).toEqual([
      ["validate", "syntax_error", "console.log('edited'"],
    ]);
    await track(await graph.stream(new Command({ resume: { action: "approve" } }), { ...config, streamMode: "updates" }));
    const state = (await graph.getState(config)).values;
    expect(state.status).toBe("success");
    expect(state.result?.stdout.trim()).toBe("refined");
    expect(nodes.filter((n) => n !== "__interrupt__")).toEqual([
      "generate", "validate", "approve", "validate", "refine", "validate", "approve", "execute", "finalize",
    ]);
  });

  it("runs a valid edit without asking again", async () => {
    const { graph, config } = await pause("valid-edit");
    const state = await graph.invoke(new Command({ resume: { action: "edit", code: "const x = 2;\nconsole.log(x * 21);" } }), config);
    expect(state.status).toBe("success");
    expect(state.result?.stdout.trim()).toBe("42");
    expect((await graph.getState(config)).tasks).toHaveLength(0);
  });

  it("ends with status rejected and the reason when rejected", async () => {
    const { graph, config } = await pause("reject");
    const state = await graph.invoke(new Command({ resume: { action: "reject", reason: "prints the wrong thing" } }), config);
    expect(state.status).toBe("rejected");
    expect(state.result).toBeUndefined();
    expect(state.attempts).toEqual([expect.objectContaining({ status: "rejected" })]);
    expect(state.explanation).toMatch(/rejected before it ran: prints the wrong thing/);
  });

  it("starts a new run on the same thread with a clean slate", async () => {
    const graph = createCodeGenGraphBuilder({ model: scripted(fence("js", "console.log(1)"), fence("js", "console.log(2)")) }).compile({
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: "again" } };
    await graph.invoke({ task: "Print 1" }, config);
    const second = await graph.invoke({ task: "Print 2" }, config);
    expect(second.attempts).toHaveLength(1);
    expect(second.result?.stdout.trim()).toBe("2");
  });
});

describe("retry budget and LangGraph's recursion limit", () => {
  const bad = "```js\nthrow new Error('still broken')\n```";
  const good = "```js\nconsole.log('fixed')\n```";

  it("runs 20 repairs without any recursionLimit from the caller: fails 20 times, then succeeds", async () => {
    // Twenty different wrong programs (the same one again would be a repeat, never run).
    const model = scripted(...Array.from({ length: 20 }, (_, i) => `\`\`\`js\nthrow new Error('still broken ${i}')\n\`\`\``), good);
    // One candidate per round: each scripted reply is one round.
    const state = await createCodeGenGraph({ model, maxRetries: 20, repair: { samples: 1 } }).invoke({ task: "x" });
    expect(state.status).toBe("success");
    expect(state.attempts).toHaveLength(21);
    expect(state.attempts.slice(0, 20).every((a) => a.status === "runtime_error")).toBe(true);
    expect(state.attempts[20]).toMatchObject({ number: 21, phase: "execute", status: "success" });
  });

  it("runs 20 repairs and fails through when every attempt fails (with approval too)", async () => {
    const state = await createCodeGenGraph({ model: scripted(bad), maxRetries: 20 }).invoke({ task: "x" });
    expect(state.status).toBe("failed");
    expect(state.attempts).toHaveLength(21);
    // With approval every attempt pauses: approve each one until the retries are spent.
    const graph = createCodeGenGraph({ model: scripted(bad), maxRetries: 20, approveBeforeExecute: true, checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "twenty" } };
    let approved = await graph.invoke({ task: "x" }, config);
    for (let i = 0; i < 21 && approved.status === undefined; i++) approved = await graph.invoke(new Command({ resume: { action: "approve" } }), config);
    expect(approved.status).toBe("failed");
    expect(approved.attempts).toHaveLength(21);
  }, 60_000);

  it("takes maxRetries from the run's context (LangGraph 1.x) and still from configurable", async () => {
    const fromContext = await createCodeGenGraph({ model: scripted(bad) }).invoke({ task: "x" }, { context: codeGenRunContext({ maxRetries: 7 }) });
    expect(fromContext.attempts).toHaveLength(8);
    const fromConfigurable = await createCodeGenGraph({ model: scripted(bad) }).invoke({ task: "x" }, { configurable: { maxRetries: 4 } });
    expect(fromConfigurable.attempts).toHaveLength(5);
    const both = await createCodeGenGraph({ model: scripted(bad) }).invoke({ task: "x" }, { context: codeGenRunContext({ maxRetries: 1 }), configurable: { maxRetries: 4 } });
    expect(both.attempts).toHaveLength(2);
    await expect(createCodeGenGraph({ model: scripted(bad) }).invoke({ task: "x" }, { context: codeGenRunContext({ maxRetries: 21 }) })).rejects.toThrow(
      /Invalid option "context\.maxRetries".*0 to 20/,
    );
  });

  it("takes run limits and the language from the context", async () => {
    const state = await createCodeGenGraph({ model: scripted(fence("js", "while (true) {}")), maxRetries: 0 }).invoke(
      { task: "loop" },
      { context: codeGenRunContext({ timeoutMs: 200, defaultLanguage: "javascript" }) },
    );
    expect(state.attempts[0]?.status).toBe("timeout");
    expect(state.language).toBe("javascript");
    expect(state.explanation).toMatch(/time limit of 200 ms/);
  });

  it("says what to pass when the caller's own recursionLimit is too small", async () => {
    const graph = createCodeGenGraph({ model: scripted(bad), maxRetries: 8 });
    await expect(graph.invoke({ task: "x" }, { recursionLimit: 25 })).rejects.toThrow(/recursionLimit \(25\) allows; pass \{ recursionLimit: 29 \}/);
    const state = await graph.invoke({ task: "x" }, { recursionLimit: 29 });
    expect(state.attempts).toHaveLength(9);
  });
});
