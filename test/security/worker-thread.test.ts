/**
 * The QuickJS worker threads hold nothing of the host: an empty `process.env` of their own
 * (not the host's API keys) and V8 resource limits. The guest cannot reach `process` at all,
 * so this checks the thread itself: the pool's Worker is swapped for a probe that reports what
 * the thread sees and then loads the real worker script with the options the pool chose.
 */
import type { WorkerOptions } from "node:worker_threads";
import { afterAll, describe, expect, it, vi } from "vitest";

const SECRET_NAME = "CODEGEN_TEST_SECRET";
const SECRET_VALUE = "sk-test-do-not-leak-4242";
// Set before the sandbox (and so any worker) exists.
process.env[SECRET_NAME] = SECRET_VALUE;

interface Started {
  worker: import("node:worker_threads").Worker;
  options: WorkerOptions;
}

const started = vi.hoisted(() => [] as Started[]);

vi.mock("node:worker_threads", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:worker_threads")>();
  class ProbedWorker extends real.Worker {
    constructor(script: string | URL, options: WorkerOptions = {}) {
      const probe = new URL("./fixtures/worker-probe.mjs", import.meta.url);
      const workerData = { ...(options.workerData as object), probeTarget: String(script) };
      super(probe, { ...options, workerData });
      started.push({ worker: this, options });
    }
  }
  return { ...real, Worker: ProbedWorker, default: { ...real, Worker: ProbedWorker } };
});

const { createSandbox } = await import("../../src/index.js");
const { WORKER_RESOURCE_LIMITS } = await import("../../src/sandbox/js/host/worker-client.js");

const sandbox = createSandbox({ poolSize: 1 });
afterAll(async () => {
  await sandbox.dispose();
  delete process.env[SECRET_NAME];
});

function probe(worker: Started["worker"]): Promise<{ env: Record<string, string>; heapSizeLimitBytes: number }> {
  return new Promise((resolve) => {
    const onMessage = (message: { type?: string; env: Record<string, string>; heapSizeLimitBytes: number }): void => {
      if (message.type !== "probe") return;
      worker.off("message", onMessage);
      resolve(message);
    };
    worker.on("message", onMessage);
    worker.postMessage({ type: "probe" });
  });
}

describe("QuickJS worker threads", () => {
  it("start with an empty environment: a secret in the host's process.env is not in the thread", async () => {
    expect(process.env[SECRET_NAME]).toBe(SECRET_VALUE);
    const result = await sandbox.run("6 * 7");
    expect(result).toMatchObject({ status: "success", result: 42 });
    expect(started).toHaveLength(1);
    const seen = await probe(started[0]!.worker);
    expect(seen.env).toEqual({});
    expect(JSON.stringify(seen.env)).not.toContain(SECRET_VALUE);
  });

  it("run under V8 resource limits (not the default of several GiB)", async () => {
    expect(started[0]!.options.resourceLimits).toEqual(WORKER_RESOURCE_LIMITS);
    const seen = await probe(started[0]!.worker);
    const limitMb = seen.heapSizeLimitBytes / 2 ** 20;
    // Old + young generation, give or take V8's own rounding.
    expect(limitMb).toBeGreaterThanOrEqual(WORKER_RESOURCE_LIMITS.maxOldGenerationSizeMb);
    expect(limitMb).toBeLessThanOrEqual(WORKER_RESOURCE_LIMITS.maxOldGenerationSizeMb + 4 * WORKER_RESOURCE_LIMITS.maxYoungGenerationSizeMb);
  });

  it("still end deep recursion cleanly inside the engine under the thread's stack size", async () => {
    const result = await sandbox.run("function f(n) { return f(n + 1) + 1; }\nf(0)");
    expect(result.status).toBe("runtime_error");
    expect(result.error?.message).toMatch(/stack overflow/);
    expect((await sandbox.run("1 + 1")).status).toBe("success");
  });
});
