/**
 * The point of code mode: a task that needs one tool call per item for 10 items takes 2 model
 * calls in code mode and 11 with plain tool calling (real ChatOpenAI, scripted server).
 */
import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { CITIES, runTenItemTask } from "../../bench/code-mode-scenario.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

describe("code mode against plain tool calling", { timeout: 120_000 }, () => {
  it("10 items: 2 model calls in code mode, 11 with plain tool calling, same answer and tool calls", async () => {
    const code = await runTenItemTask("code", sandbox);
    const plain = await runTenItemTask("tools");
    expect(code.modelCalls).toBe(2);
    expect(plain.modelCalls).toBe(CITIES.length + 1);
    expect(code.toolCalls).toBe(10);
    expect(plain.toolCalls).toBe(10);
    expect(code.answer).toBe(plain.answer);
    // Plain tool calling re-sends the growing conversation on each of its 11 calls.
    expect(plain.sentTokens).toBeGreaterThan(code.sentTokens);
  });
});
