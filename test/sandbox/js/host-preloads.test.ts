import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../../..");

describe("workers ignore the host's loaders", () => {
  // Regression: under `langgraph dev` the host runs with `--import preload.mjs`; a worker that
  // inherited execArgv ran that preload too and failed to start.
  it("runs code when the host process was started with an --import preload that breaks in workers", () => {
    const dir = mkdtempSync(join(tmpdir(), "cgs-preload-"));
    try {
      const preload = join(dir, "preload.mjs");
      writeFileSync(
        preload,
        `import { isMainThread } from "node:worker_threads";\nif (!isMainThread) throw new Error("preload must not run in sandbox workers");\n`,
      );
      const script = join(dir, "main.mjs");
      writeFileSync(
        script,
        `import { runCode } from ${JSON.stringify(pathToFileURL(join(root, "dist/src/index.js")).href)};\n` +
          `const r = await runCode("6 * 7");\nconsole.log(JSON.stringify({ status: r.status, result: r.result, error: r.error }));\n`,
      );
      const out = spawnSync(process.execPath, ["--import", pathToFileURL(preload).href, script], {
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(out.stderr).toBe("");
      expect(JSON.parse(out.stdout.trim())).toEqual({ status: "success", result: 42 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
