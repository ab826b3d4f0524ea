/**
 * The output mirror (the shared buffer a worker copies output into, read by the host when it
 * kills the worker) belongs to one run. It kept the last output of the run before until the
 * next run's code started, so a run killed while its code was still being prepared (a large
 * program past a short time limit, or a cancellation) was answered with the previous run's
 * output as its own stdout. Now the worker empties it when a run ends and when one begins, and
 * the host reads it only for the run the worker says it has begun.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../src/index.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const SECRET = "TENANT-A-OUTPUT: hunter2";
/** ~5.8 MB of TypeScript: stripping and parsing it takes longer than a 1 ms time limit and the watchdog's grace. */
const LARGE = Array.from({ length: 200_000 }, (_, i) => `let v${i}: number = ${i};`).join("\n");

describe("a run killed before its code starts gets none of the previous run's output", () => {
  it("by the watchdog (a large program past a 1 ms time limit)", async () => {
    expect((await sandbox.run(`console.log(${JSON.stringify(SECRET)}); 1`)).stdout).toBe(`${SECRET}\n`);
    const b = await sandbox.run(LARGE, { language: "typescript", timeoutMs: 1 });
    // Before the fix: timeout, with the secret as its stdout.
    expect(b.status).toBe("timeout");
    expect(b.stdout + b.stderr).not.toContain("hunter2");
    expect((await sandbox.run("console.log('next'); 2")).stdout).toBe("next\n");
  });

  it("by a cancellation while the program is prepared", async () => {
    expect((await sandbox.run(`console.error(${JSON.stringify(SECRET)}); 1`)).stderr).toBe(`${SECRET}\n`);
    const controller = new AbortController();
    const running = sandbox.run(LARGE, { language: "typescript", signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const b = await running;
    expect(b.status).toBe("cancelled");
    expect(b.stdout + b.stderr).not.toContain("hunter2");
  });
});
