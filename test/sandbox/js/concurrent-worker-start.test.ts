/**
 * Worker threads that start at the same moment each take V8's collector by setting a
 * process-wide flag while one context is made. One thread's clearing of the flag could land
 * between another's setting it and making its context, and that worker failed to start ("gc is
 * not defined"), which ended a CLI evaluation in CI. Many workers start here at once, several
 * times: a smoke test of the retry (worker/main.ts, collectGarbage), since the window is narrow
 * and 40 rounds did not hit it on a 2-core machine.
 */
import { describe, expect, it } from "vitest";
import { createSandbox } from "../../../src/sandbox/index.js";

describe("JavaScript workers started at the same moment", { timeout: 120_000 }, () => {
  it("all start and answer (8 rounds of 6 workers)", async () => {
    for (let round = 0; round < 8; round++) {
      const sandbox = createSandbox({ poolSize: 6 });
      try {
        const results = await Promise.all(Array.from({ length: 6 }, (_, i) => sandbox.run(`${round} * 10 + ${i}`)));
        expect(results.map((r) => r.status)).toEqual(Array(6).fill("success"));
        expect(results.map((r) => r.result)).toEqual(Array.from({ length: 6 }, (_, i) => round * 10 + i));
      } finally {
        await sandbox.dispose();
      }
    }
  });
});
