/**
 * The CLI's messages, through the built bin in child processes (run in parallel): every usage
 * error is one line in the package's format that names the flag, never the API option behind it
 * nor Node's parser text, and `--help` lists every command with its options.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile("node", ["dist/src/cli/main.js", ...args], { env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
    child.stdin?.end("1");
  });
}

const dir = mkdtempSync(join(tmpdir(), "cli-messages-"));
const ruby = join(dir, "s.rb");
writeFileSync(ruby, "puts 1\n");

const USAGE_ERRORS: [string[], RegExp][] = [
  [["solve", "Print 1", "--max-retries", "50"], /^codegen-sandbox: solve: Invalid option "--max-retries": got 50; expected a whole number from 0 to 20\.$/],
  [["demo", "--max-retries", "1.5"], /^codegen-sandbox: demo: Invalid option "--max-retries": got 1\.5; expected a whole number from 0 to 20\.$/],
  [["exec", "--timeout-ms", "-5", "-"], /^codegen-sandbox: exec: Invalid option "--timeout-ms": got -5; expected a number of milliseconds greater than 0 and at most 2000000000/],
  [["exec", "--timeout-ms", "1e12", "-"], /^codegen-sandbox: exec: Invalid option "--timeout-ms": got 1000000000000; expected .*timers wait at most 2147483647 ms/],
  [["exec", "--timeout-ms", "NaN", "-"], /^codegen-sandbox: exec: Invalid option "--timeout-ms": got "NaN"; expected a number of milliseconds/],
  [["exec", "--memory-mb", "8192", "-"], /^codegen-sandbox: exec: Invalid option "--memory-mb": got 8192; expected a whole number of MiB from 1 to 4096/],
  [["exec", ruby], /^codegen-sandbox: exec: Invalid option "FILE": the sandbox runs javascript, typescript and python, and "\.rb" is none of them; expected a file ending in \.js, \.mjs, \.cjs, \.ts, \.mts, \.py/],
  [["exec", dir], /^codegen-sandbox: exec: Invalid option "FILE": got ".*"; expected a file to run, or "-" for stdin \(it is a directory\)\.$/],
  [["exec", "--timeout", "100", "-"], /^codegen-sandbox: exec: Invalid option "--timeout": exec has no option of this name; did you mean "--timeout-ms"\? Expected one of --language, --timeout-ms, --memory-mb, --package, --package-index, --json, --help\.$/],
  [["exec", "--json=yes", "-"], /^codegen-sandbox: exec: Invalid option "--json": got "yes"; expected no value: --json is a switch\.$/],
  [["solve", "x", "--timeout-ms"], /^codegen-sandbox: solve: Invalid option "--timeout-ms": got undefined; expected a value after it: --timeout-ms VALUE\.$/],
  [["solve", "x", "--model", ""], /^codegen-sandbox: solve: Invalid option "--model": got ""; expected a "provider:model" name/],
  [["solve", "x", "--langauge", "python"], /did you mean "--language"\?/],
  [["eval", "--tasks", "t.jsonl", "--concurrency", "0"], /^codegen-sandbox: eval: Invalid option "--concurrency": got 0; expected a whole number of tasks at once from 1 to 256\.$/],
  [["eval", "--tasks", "t.jsonl", "--format", "csv"], /^codegen-sandbox: eval: Invalid option "--format": got "csv"; expected one of "auto", "tasks", "humaneval", "humaneval-x-js", "mbpp"\.$/],
  [["eval", "--tasks", "t.jsonl", "--repair-samples", "9"], /^codegen-sandbox: eval: Invalid option "--repair-samples": got 9; expected a whole number of candidates per repair round from 1 to 8\.$/],
  [["solve", "x", "--repair-temperatures", "0,hot"], /^codegen-sandbox: solve: Invalid option "--repair-temperatures": got "0,hot"; expected a number from 0 to 2\.$/],
  [["eval", "--tasks", "t.jsonl", "--repair-prompt", "again"], /^codegen-sandbox: eval: Invalid option "--repair-prompt": got "again"; expected one of "auto", "fresh", "repair", "alternate"\.$/],
  [["eval", "--tasks", "t.jsonl", "--shown-tests", "-1"], /^codegen-sandbox: eval: Invalid option "--shown-tests": got -1; expected a whole number of test cases from 0 to 1000\.$/],
  [["slove", "x"], /^codegen-sandbox: unknown command "slove"; did you mean "solve"\?/],
];

describe("codegen-sandbox usage errors", { timeout: 90_000 }, () => {
  it("are one line each, in the package's format, naming the flag (exit 2)", async () => {
    const results = await Promise.all(USAGE_ERRORS.map(async ([args, message]) => ({ args, message, ...(await cli(args)) })));
    for (const { args, message, code, stdout, stderr } of results) {
      const shown = `${args.join(" ")}\nexit ${code}\nstderr: ${stderr}`;
      expect(code, shown).toBe(2);
      expect(stdout, shown).toBe("");
      expect(stderr.trim().split("\n"), shown).toHaveLength(1);
      expect(stderr.trim(), shown).toMatch(message);
      expect(stderr, shown).not.toMatch(/maxRetries|timeoutMs|To specify an option argument|ERR_PARSE_ARGS|EISDIR/);
    }
  });

  it("--help lists every command with its summary and its options", async () => {
    const { code, stdout } = await cli(["--help"]);
    expect(code).toBe(0);
    for (const command of ["exec", "solve", "demo", "eval"]) {
      expect(stdout).toMatch(new RegExp(`^  ${command}\\s+\\S`, "m"));
      expect(stdout).toContain(`=== codegen-sandbox ${command}`);
    }
    for (const flag of ["--timeout-ms", "--memory-mb", "--max-retries", "--expected-output", "--tasks", "--concurrency", "--json", "--shown-tests", "--repair-samples", "--repair-temperatures"]) expect(stdout).toContain(flag);
  });
});
