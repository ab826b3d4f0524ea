import { afterAll, describe, expect, it } from "vitest";
import { createSandbox, currentHostCall } from "../../../src/index.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

describe("host calls", () => {
  it("refuses a call past maxHostCallsInFlight with an exception that names the option", async () => {
    const result = await sandbox.run(
      "let r = 'no error';\ntry { await Promise.all([1, 2, 3].map((i) => wait(i))); } catch (e) { r = e.name + ': ' + e.message; }\nr",
      { hostFunctions: { wait: (i) => new Promise((r) => setTimeout(() => r(i), 20)) }, maxHostCallsInFlight: 2 },
    );
    expect(result.status).toBe("success");
    expect(result.result).toMatch(
      /^HostCallLimitError: wait\(\) was refused: 2 host calls are already in flight, the most one run may have at once \(maxHostCallsInFlight\); await calls before starting more, or raise the maxHostCallsInFlight option$/,
    );
    expect(result.hostCalls).toBe(2);
  });

  it("allows calls in sequence up to the budget and counts them", async () => {
    const result = await sandbox.run("let s = 0; for (let i = 0; i < 20; i++) s += await add(i, 1); s", {
      hostFunctions: { add: (a, b) => Number(a) + Number(b) },
    });
    expect(result).toMatchObject({ status: "success", result: 210, hostCalls: 20 });
  });

  it("reports hostCalls 0 for a run without host functions", async () => {
    expect((await sandbox.run("1")).hostCalls).toBe(0);
  });

  it("gives each call its name and a signal that is aborted when the run ends", async () => {
    const seen: { name: string; signal: AbortSignal }[] = [];
    const probe = async () => {
      const call = currentHostCall()!;
      await Promise.resolve();
      // Still known after an await.
      seen.push({ name: currentHostCall()!.name, signal: call.signal });
      return call.signal.aborted;
    };
    const result = await sandbox.run("await probe()", { hostFunctions: { probe } });
    expect(result).toMatchObject({ status: "success", result: false });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.name).toBe("probe");
    expect(seen[0]!.signal.aborted).toBe(true);
  });
});
