import { describe, expect, it } from "vitest";
import { EngineWorker, type RunControls } from "../../../src/sandbox/js/host/worker-client.js";

const limits = {
  timeoutMs: 5000,
  memoryLimitBytes: 16 * 1024 * 1024,
  maxOutputBytes: 1024,
  maxHostCallsInFlight: 8,
  maxHostCalls: 256,
  maxResultBytes: 1024 * 1024,
  maxFileBytes: 1024,
  maxTotalFileBytes: 1024,
};
const controls = (hostFunctions: RunControls["hostFunctions"] = {}): RunControls => ({
  hostFunctions,
  maxHostCallsInFlight: 8,
  maxHostCalls: 256,
  maxResultBytes: 1024 * 1024,
});

describe("EngineWorker", () => {
  it("ends a request as runtime_error when its thread crashes, and reports the worker lost", async () => {
    let deaths = 0;
    const worker = new EngineWorker(() => deaths++);
    await worker.ready;
    // A session call on a worker that never opened a session throws inside the thread:
    // an uncaught fault of the engine, which must come back as data.
    const end = await worker.request(
      { type: "session-call", runId: 0, name: "f", argsJson: "[]", hostFunctionNames: [], ...limits },
      "javascript",
      controls(),
    );
    expect(end.workerLost).toBe(true);
    expect(end.result.status).toBe("runtime_error");
    expect(end.result.error?.message).toMatch(/^the engine crashed while running this code/);
    expect(worker.dead).toBe(true);
    expect(deaths).toBe(1);
    await worker.terminate();
  });

  it("answers host calls and keeps output in order", async () => {
    const worker = new EngineWorker(() => undefined);
    await worker.ready;
    const end = await worker.request(
      {
        type: "run",
        runId: 0,
        code: "console.log('a'); console.log(await up('b')); console.log('c');",
        language: "javascript",
        globalsJson: "{}",
        globalNames: [],
        hostFunctionNames: ["up"],
        grantedNames: ["up"],
        ...limits,
      },
      "javascript",
      controls({ up: (s) => String(s).toUpperCase() }),
    );
    expect(end.workerLost).toBe(false);
    expect(end.result).toMatchObject({ status: "success", stdout: "a\nB\nc\n" });
    await worker.terminate();
    expect(worker.dead).toBe(true);
  });
});
