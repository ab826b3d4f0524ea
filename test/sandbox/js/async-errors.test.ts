/**
 * Asynchronous errors in JavaScript: what the worker can read from the engine (the program's own
 * promise, rejected or never settled) ends the run `runtime_error`; a promise rejected elsewhere
 * and never awaited is not reported — quickjs-emscripten exports no rejection tracker — which
 * docs/security.md and the tool descriptions state (tested here as that documented limit).
 */
import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../../src/sandbox/index.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

describe("JavaScript asynchronous errors", () => {
  it("reports the program's own promise when it rejects or can never settle", async () => {
    for (const code of ["(async () => { await null; throw new TypeError('late') })()", "await Promise.resolve();\nthrow new TypeError('late');\nexport default 1;"]) {
      const r = await sandbox.run(code);
      expect(r.status, code).toBe("runtime_error");
      expect(r.error).toMatchObject({ name: "TypeError", message: "late" });
    }
    for (const code of ["new Promise(() => {})", "await new Promise(() => {});\nexport default 1;"]) {
      const r = await sandbox.run(code, { timeoutMs: 5_000 });
      expect(r.status, code).toBe("runtime_error");
      expect(r.error?.message, code).toMatch(/promise never settled/);
    }
  });

  it("documented limit: a rejection nothing awaited is not reported", async () => {
    const r = await sandbox.run("async function f() { throw new Error('lost') }\nf();\nPromise.reject(new Error('lost too'));\n1");
    expect(r.status).toBe("success");
    expect(r.result).toBe(1);
  });
});
