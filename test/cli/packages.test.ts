/**
 * The CLI's Python packages: `exec --package NAME [--package-index URL|DIR]`, refused names as
 * usage errors; the MCP server's `python` option (what `mcp --python-package` passes).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveMcpOptions } from "../../src/mcp/options.js";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { writePackageIndex } from "../../bench/fixtures/python-index.js";

const root = mkdtempSync(join(tmpdir(), "cs-cli-packages-"));
const index = join(root, "index");
writePackageIndex(index);
afterAll(() => rmSync(root, { recursive: true, force: true }));

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" };
  if (process.env.CODEGEN_SANDBOX_CACHE_DIR) env.CODEGEN_SANDBOX_CACHE_DIR = process.env.CODEGEN_SANDBOX_CACHE_DIR;
  return new Promise((resolve) => {
    execFile("node", ["dist/src/cli/main.js", ...args], { env, timeout: 170_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

describe("codegen-sandbox exec --package", { timeout: 180_000 }, () => {
  it("runs a Python file with a package of a local index", async () => {
    const file = join(root, "uses.py");
    writeFileSync(file, "import cs_dateutil\nprint(cs_dateutil.parse('2026-12-03').year, cs_dateutil.SIX)\n");
    const { code, stdout, stderr } = await cli(["exec", file, "--package", "cs-dateutil", "--package-index", index]);
    expect(code, stderr).toBe(0);
    expect(stdout).toBe("2026 1.0\n");
  });

  it("refuses a name not in the lock as a usage error naming it", async () => {
    const { code, stderr } = await cli(["exec", "-", "--package", "nump", "--language", "python"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--package: Invalid option "python\.packages\[0\]": got "nump".*did you mean "numpy"/);
  });
});

describe("the MCP server's python option", () => {
  it("is passed to the sandbox the server makes, and refused beside a sandbox of the caller's", async () => {
    expect(resolveMcpOptions({ python: { packages: ["numpy"] } }).python).toEqual({ packages: ["numpy"] });
    const sandbox = createSandbox({ poolSize: 1 });
    try {
      expect(() => resolveMcpOptions({ sandbox, python: { packages: ["numpy"] } })).toThrow(/"python".*no python option with sandbox/);
    } finally {
      await sandbox.dispose();
    }
  });
});
