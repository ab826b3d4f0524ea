/**
 * The repair loop's memory and diversity: programs seen before are never run again, retries
 * sample at the strategy's temperature (in the request a real client sends), candidates are
 * chosen by the tests, and a first answer that is right costs one model call.
 */
import { describe, expect, it } from "vitest";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { createCodeGenGraph, summarizeAttempts } from "../../src/graph/index.js";
import { partialSandbox } from "../support/partial-sandbox.js";
import { runCode, checkCode } from "../../src/sandbox/run-code.js";
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from "../../src/testing/index.js";
import { fence, promptRecorder, scriptedModel, scriptedOpenAIModel } from "../support/scripted-model.js";
import { InvalidOptionError } from "../../src/errors.js";
import { Command, MemorySaver } from "@langchain/langgraph";

/** A real sandbox that counts the programs it runs. */
function countingSandbox() {
  const ran: string[] = [];
  const sandbox = partialSandbox({
    run: (code, options) => {
      ran.push(code);
      return runCode(code, options);
    },
    check: (code, options) => checkCode(code, options),
  });
  return { sandbox, ran };
}

/** A scripted model that records the call options each call got. */
class RecordingModel extends FakeListChatModel {
  readonly calls: { temperature?: number; seed?: number }[] = [];
  override async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"], runManager?: Parameters<FakeListChatModel["_generate"]>[2]): Promise<ChatResult> {
    const o = options as { temperature?: number; seed?: number };
    this.calls.push({ ...(o.temperature === undefined ? {} : { temperature: o.temperature }), ...(o.seed === undefined ? {} : { seed: o.seed }) });
    return super._generate(messages, options, runManager);
  }
}

const tests = "if (double(2) !== 4) throw new Error('double(2) should be 4');\nif (double(5) !== 10) throw new Error('double(5) should be 10');";
const wrong = "function double(n) {\n  return n + 2;\n}";
const right = "function double(n) {\n  return n * 2;\n}";

describe("repeats", () => {
  it("never runs a program again that is the same as an earlier one, says so, and retries at the higher temperature", async () => {
    const { sandbox, ran } = countingSandbox();
    // The second reply is the first with a comment and other spacing: the same program.
    const model = new RecordingModel({ responses: [fence("js", wrong), fence("js", "// try again\nfunction double( n ) {\n    return n+2; // add\n}"), fence("js", right)] });
    const { prompts, callbacks } = promptRecorder();
    // One candidate per round, so the repeat is a round of its own.
    const state = await createCodeGenGraph({ model, sandbox, maxRetries: 2, repair: { samples: 1 } }).invoke({ task: "Write double(n)", tests }, { callbacks });
    expect(state.status).toBe("success");
    expect(state.attempts.map((a) => [a.number, a.status])).toEqual([
      [1, "test_failed"],
      [2, "repeat"],
      [3, "success"],
    ]);
    expect(state.attempts[1]).toMatchObject({ phase: "generate", repeatOf: 1, repeats: 1 });
    // Two runs: the first program and the right one; the repeat never reached the sandbox.
    expect(ran).toEqual([wrong, right]);
    expect(prompts[2]).toMatch(/same as attempt 1, which failed \(test_failed: 1 of 2 tests passed.*double\(5\) should be 10.*\)\. It was not run again\. Write a different program\./s);
    // The first attempt is greedy; repairs sample at 0.8 with a seed per round.
    expect(model.calls).toEqual([{ temperature: 0 }, { temperature: 0.8, seed: 100 }, { temperature: 0.8, seed: 200 }]);
  });

  it("ends failed when every repair is a repeat, with no program run twice", async () => {
    const { sandbox, ran } = countingSandbox();
    const state = await createCodeGenGraph({ model: scriptedModel(fence("js", wrong)), sandbox, maxRetries: 3 }).invoke({ task: "Write double(n)", tests });
    expect(state.status).toBe("failed");
    expect(state.attempts.map((a) => a.status)).toEqual(["test_failed", "repeat", "repeat", "repeat"]);
    expect(ran).toHaveLength(1);
    expect(state.explanation).toMatch(/same program as attempt 1; it was not run again\. Attempt 1 failed: 1 of 2 tests passed/);
    // Repeats never reached the sandbox: one execution attempt.
    expect(summarizeAttempts(state.attempts)).toMatchObject({ executionAttempts: 1, byStatus: { test_failed: 1, repeat: 3 } });
  });

  it("sends the retry's temperature in the request of a real OpenAI client", async () => {
    const server = await startScriptedOpenAIServer({ replies: [fence("js", wrong), fence("js", right)] });
    try {
      const model = scriptedOpenAIModel(server.baseURL);
      const state = await createCodeGenGraph({ model, maxRetries: 1, repair: { temperatures: [0.1, 0.9] } }).invoke({ task: "Write double(n)", tests });
      expect(state.status).toBe("success");
      expect(server.requests.map((r) => r.body.temperature)).toEqual([0.1, 0.9]);
      expect(server.requests[1]!.body.seed).toBe(100);
      // The caller's model keeps its own setting.
      expect(model.temperature).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it("falls back to the model's own temperature, once, when it refuses one", async () => {
    let server: ScriptedOpenAIServer | undefined;
    server = await startScriptedOpenAIServer({
      handler: (request, index) =>
        request.body.temperature !== undefined
          ? { status: 400, message: "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported." }
          : fence("js", index <= 1 ? wrong : right),
    });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on("warning", onWarning);
    try {
      const state = await createCodeGenGraph({ model: scriptedOpenAIModel(server.baseURL), maxRetries: 1 }).invoke({ task: "Write double(n)", tests });
      expect(state.status).toBe("success");
      // One refused request, then every call without a temperature.
      expect(server.requests.map((r) => r.body.temperature)).toEqual([0, undefined, undefined]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => /refused a temperature/.test(w))).toHaveLength(1);
    } finally {
      process.off("warning", onWarning);
      await server.close();
    }
  });
});

describe("samples", () => {
  const other = "function double(n) {\n  return n;\n}";
  const third = "function double(n) {\n  return 4;\n}";
  const minus = "function double(n) {\n  return n - 1;\n}";

  it("keeps the candidate that passes the tests and counts the tokens of every candidate", async () => {
    const { sandbox, ran } = countingSandbox();
    const server = await startScriptedOpenAIServer({
      replies: [
        { content: fence("js", wrong), usage: { promptTokens: 100, completionTokens: 10 } },
        { content: fence("js", other), usage: { promptTokens: 101, completionTokens: 11 } },
        { content: fence("js", third), usage: { promptTokens: 102, completionTokens: 12 } },
        { content: fence("js", minus), usage: { promptTokens: 103, completionTokens: 13 } },
      ],
    });
    try {
      const state = await createCodeGenGraph({ model: scriptedOpenAIModel(server.baseURL), sandbox, maxRetries: 1, repair: { samples: 3 } }).invoke({ task: "Write double(n)", tests });
      expect(state.attempts.map((a) => a.status)).toEqual(["test_failed", "test_failed"]);
      // None of the three passes both tests; `third` passes one of two, the others none: it is kept.
      expect(state.attempts[1]).toMatchObject({ code: third, modelCalls: 3, inputTokens: 101 + 102 + 103, outputTokens: 11 + 12 + 13 });
      // Each candidate ran once; the kept one was not run again by execute.
      expect(ran).toEqual([wrong, other, third, minus]);
    } finally {
      await server.close();
    }
  });

  it("stops drawing at the first candidate that passes, keeping it", async () => {
    const { sandbox, ran } = countingSandbox();
    const model = scriptedModel(fence("js", wrong), fence("js", other), fence("js", right), fence("js", third));
    const { prompts, callbacks } = promptRecorder();
    const state = await createCodeGenGraph({ model, sandbox, maxRetries: 1, repair: { samples: 3 } }).invoke({ task: "Write double(n)", tests }, { callbacks });
    expect(state.status).toBe("success");
    expect(state.attempts[1]).toMatchObject({ code: right, status: "success", modelCalls: 2 });
    expect(prompts).toHaveLength(3);
    expect(ran).toEqual([wrong, other, right]);
  });

  it("skips a candidate that repeats an earlier attempt and runs the new ones", async () => {
    const { sandbox, ran } = countingSandbox();
    const model = scriptedModel(fence("js", wrong), fence("js", wrong), fence("js", right));
    const state = await createCodeGenGraph({ model, sandbox, maxRetries: 1, repair: { samples: 2 } }).invoke({ task: "Write double(n)", tests });
    expect(state.status).toBe("success");
    expect(state.attempts[1]).toMatchObject({ code: right, repeats: 1, modelCalls: 2 });
    expect(ran).toEqual([wrong, right]);
  });

  it("by default draws up to 3 candidates per round and stops at the first that passes", async () => {
    const { sandbox, ran } = countingSandbox();
    const model = new RecordingModel({ responses: [fence("js", wrong), fence("js", other), fence("js", minus), fence("js", third), fence("js", right), fence("js", "never asked")] });
    const state = await createCodeGenGraph({ model, sandbox, maxRetries: 2 }).invoke({ task: "Write double(n)", tests });
    expect(state.status).toBe("success");
    // Round 1: three candidates, none passes both tests; `third` passes one and is kept.
    expect(state.attempts[1]).toMatchObject({ code: third, status: "test_failed", modelCalls: 3 });
    // Round 2: the first candidate passes, so no second one is drawn.
    expect(state.attempts[2]).toMatchObject({ code: right, status: "success" });
    expect(state.attempts[2]).not.toHaveProperty("modelCalls");
    expect(model.calls).toHaveLength(5);
    expect(ran).toEqual([wrong, other, minus, third, right]);
  });

  it("with approval, draws one candidate per round by default (a person is not asked three times)", async () => {
    const { sandbox, ran } = countingSandbox();
    const model = new RecordingModel({ responses: [fence("js", wrong), fence("js", right), fence("js", other)] });
    const graph = createCodeGenGraph({ model, sandbox, maxRetries: 2, approveBeforeExecute: true, checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "approve-one" } };
    let state = await graph.invoke({ task: "Write double(n)", tests }, config);
    let approvals = 0;
    for (; approvals < 5 && state.status === undefined; approvals++) state = await graph.invoke(new Command({ resume: { action: "approve" } }), config);
    expect(state.status).toBe("success");
    expect(approvals).toBe(2);
    expect(model.calls).toHaveLength(2);
    expect(state.attempts[1]).not.toHaveProperty("modelCalls");
    // Nothing ran before it was approved: one run per approval.
    expect(ran).toEqual([wrong, right]);
  });

  it("refuses samples above 1 with approval (candidates would run before anyone approved them)", () => {
    expect(() => createCodeGenGraph({ model: scriptedModel("x"), approveBeforeExecute: true, repair: { samples: 2 } })).toThrow(InvalidOptionError);
    expect(() => createCodeGenGraph({ model: scriptedModel("x"), repair: { samples: 9 } })).toThrow(/repair\.samples/);
    expect(() => createCodeGenGraph({ model: scriptedModel("x"), repair: { temperatures: [0, 3] } })).toThrow(/repair\.temperatures\[1\]/);
    expect(() => createCodeGenGraph({ model: scriptedModel("x"), repair: { sample: 2 } as never })).toThrow(/did you mean "repair\.samples"/);
  });
});

describe("first answer right", () => {
  for (const repair of [undefined, { samples: 3, explainFirst: true, prompt: "repair" as const }]) {
    it(`makes exactly one model call (${repair === undefined ? "default strategy" : "3 samples, explain first"})`, async () => {
      const model = new RecordingModel({ responses: [fence("js", right)] });
      const state = await createCodeGenGraph({ model, ...(repair === undefined ? {} : { repair }) }).invoke({ task: "Write double(n)", tests });
      expect(state.status).toBe("success");
      expect(model.calls).toHaveLength(1);
      expect(state.attempts).toHaveLength(1);
      expect(state.attempts[0]).not.toHaveProperty("modelCalls");
    });
  }
});

describe("prompts of a repair round", () => {
  it("shows the earlier attempts, condensed, in the repair prompt", async () => {
    const second = "function double(n) {\n  return n - 2;\n}";
    const model = scriptedModel(fence("js", wrong), fence("js", second), fence("js", right));
    const { prompts, callbacks } = promptRecorder();
    const state = await createCodeGenGraph({ model, maxRetries: 2, repair: { prompt: "repair", samples: 1 } }).invoke({ task: "Write double(n)", tests }, { callbacks });
    expect(state.status).toBe("success");
    expect(prompts[1]).not.toMatch(/Earlier attempts/);
    expect(prompts[2]).toMatch(/Earlier attempts \(do not repeat them\):\nAttempt 1 \(test_failed: 1 of 2 tests passed.*\):\nfunction double\(n\) \{\n  return n \+ 2;\n\}/s);
    expect(prompts[2]).toContain("2 |   return n - 2;");
  });

  it("asks for an explanation first and puts it in the repair prompt, counting both calls", async () => {
    const model = scriptedModel(fence("js", wrong), "It adds 2 instead of multiplying by 2.", fence("js", right));
    const { prompts, callbacks } = promptRecorder();
    const state = await createCodeGenGraph({ model, maxRetries: 1, repair: { prompt: "repair", explainFirst: true } }).invoke({ task: "Write double(n)", tests }, { callbacks });
    expect(state.status).toBe("success");
    expect(prompts[1]).toMatch(/Do not write code yet/);
    expect(prompts[2]).toContain("Your explanation of the failure:\nIt adds 2 instead of multiplying by 2.");
    expect(state.attempts[1]!.modelCalls).toBe(2);
  });

  it("auto: asks the task afresh after a failed test, and with the repair prompt after an error in the program", async () => {
    const { prompts, callbacks } = promptRecorder();
    const model = scriptedModel(fence("js", wrong), fence("js", "function double(n) {\n  return m * 2;\n}"), fence("js", right));
    const state = await createCodeGenGraph({ model, maxRetries: 2, repair: { samples: 1 } }).invoke({ task: "Write double(n)", tests }, { callbacks });
    expect(state.attempts.map((a) => a.status)).toEqual(["test_failed", "test_failed", "success"]);
    // After a failed test: the first prompt again.
    expect(prompts[1]).toBe(prompts[0]);
    const crash = scriptedModel(fence("js", "console.log(totl)"), fence("js", "console.log(1)"));
    const recorded = promptRecorder();
    await createCodeGenGraph({ model: crash }).invoke({ task: "Print 1" }, { callbacks: recorded.callbacks });
    expect(recorded.prompts[1]).toMatch(/totl/);
  });
});
