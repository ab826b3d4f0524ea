/**
 * The Python engine through the public entry points: `runCode({ language: "python" })`, the
 * CLI's `exec --language python`, and a host process that exits on its own with an idle pool.
 */
import { execFile } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { disposeDefaultSandbox, runCode } from "../../../src/sandbox/index.js";

const run = promisify(execFile);
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

afterAll(async () => {
  await disposeDefaultSandbox();
});

describe("Python through the public entry points", { timeout: 180_000 }, () => {
  it("runCode dispatches language python to the engine", async () => {
    const r = await runCode("print('from python')\nsum(values)", { language: "python", globals: { values: [1, 2, 3] } });
    expect(r.status).toBe("success");
    expect(r.language).toBe("python");
    expect(r.stdout).toBe("from python\n");
    expect(r.result).toBe(6);
  });

  it("`codegen-sandbox exec --language python` runs stdin and exits", async () => {
    const child = run("node", [join(repoRoot, "dist/src/cli/main.js"), "exec", "--language", "python", "--json", "-"], { cwd: repoRoot, timeout: 120_000 });
    child.child.stdin?.end("print('cli')\n2 ** 10");
    const { stdout } = await child;
    const result = JSON.parse(stdout) as { status: string; stdout: string; result: unknown };
    expect(result.status).toBe("success");
    expect(result.stdout).toBe("cli\n");
    expect(result.result).toBe(1024);
  });

  it("an idle pool does not keep the host process alive", async () => {
    const script = `
      import { createPythonEngine } from ${JSON.stringify(join(repoRoot, "dist/src/sandbox/python/host/engine.js"))};
      const engine = createPythonEngine();
      await engine.warm();
      const r = await engine.run("6 * 7", { language: "python", timeoutMs: 5000, memoryLimitBytes: 67108864, maxOutputBytes: 65536, maxResultBytes: 65536, globals: {}, hostFunctions: {} });
      console.log(JSON.stringify(r.result));
      // No dispose: the process must still exit on its own.
    `;
    const { stdout } = await run("node", ["--input-type=module", "-e", script], { cwd: repoRoot, timeout: 120_000 });
    expect(stdout.trim()).toBe("42");
  });
});
