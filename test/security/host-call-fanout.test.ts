/**
 * Host functions cannot be fanned out without bound: a guest that starts calls without
 * awaiting them gets at most `maxHostCallsInFlight` running at once and `maxHostCalls` in all,
 * and every call learns (through its signal) that its run ended; none runs after the run.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createSandbox, currentHostCall } from "../../src/index.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

describe("host-call fan-out", () => {
  it("caps in-flight and total calls of `for (;;) slow(i)` and aborts their signals when the run ends", async () => {
    let running = 0;
    let maxRunning = 0;
    let started = 0;
    const signals: AbortSignal[] = [];
    const slow = (): Promise<null> => {
      const call = currentHostCall();
      if (!call) throw new Error("no host-call context");
      started++;
      running++;
      maxRunning = Math.max(maxRunning, running);
      signals.push(call.signal);
      return new Promise((resolve) => {
        // Finishes only when its run ends: the fan-out is all in flight at once.
        const finish = () => {
          running--;
          resolve(null);
        };
        if (call.signal.aborted) finish();
        else call.signal.addEventListener("abort", finish, { once: true });
      });
    };
    const result = await sandbox.run("for (let i = 0; ; i++) slow(i);", { timeoutMs: 300, hostFunctions: { slow } });
    expect(result.status).toBe("timeout");
    expect(maxRunning).toBeLessThanOrEqual(8);
    expect(started).toBeGreaterThan(0);
    expect(started).toBeLessThanOrEqual(256);
    expect(result.hostCalls).toBe(started);
    // Every call was told that its run ended, by the time the run returned.
    expect(signals.every((s) => s.aborted)).toBe(true);
    expect(running).toBe(0);
    // Nothing starts later either.
    await new Promise((r) => setTimeout(r, 100));
    expect(started).toBe(result.hostCalls);
  });

  it("caps the total of calls that each finish at once (`maxHostCalls`)", async () => {
    let started = 0;
    const result = await sandbox.run(
      "let ok = 0, refused = 0, message = '';\n" +
        "for (let i = 0; i < 400; i++) {\n" +
        "  try { await tick(i); ok++; } catch (e) { refused++; message = e.name + ': ' + e.message; }\n" +
        "}\n" +
        "({ ok, refused, message })",
      { hostFunctions: { tick: () => ++started }, maxHostCalls: 50 },
    );
    expect(result.status).toBe("success");
    const { ok, refused, message } = result.result as { ok: number; refused: number; message: string };
    expect(ok).toBe(50);
    expect(refused).toBe(350);
    expect(started).toBe(50);
    expect(result.hostCalls).toBe(50);
    expect(message).toMatch(/^HostCallLimitError: tick\(\) was refused: this run already made 50 host calls/);
    expect(message).toMatch(/raise the maxHostCalls option/);
  });
});
