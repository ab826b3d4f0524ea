/**
 * The eval command end to end: tasks from a JSONL file go through the real graph and the real
 * `ChatOpenAI` client to a scripted OpenAI-compatible server on 127.0.0.1, and the code runs
 * in the real sandbox with each task's tests.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EvalReport } from "../../src/eval/run-evaluation.js";
import { startScriptedOpenAIServer, type RecordedRequest, type ScriptedOpenAIServer } from "../../src/testing/index.js";
import { referenceSolutions } from "./reference-solutions.js";
import { fence } from "../support/scripted-model.js";

const run = promisify(execFile);

/** What the scripted model answers, per task id, call after call (the last answer repeats). */
const script: Record<string, string[]> = {
  // Wrong first (digits of -45 summed with the sign), right after the refine step.
  "js-sum-digits": [
    fence("javascript", "function sumDigits(n) {\n  return String(n).split('').reduce((s, d) => s + Number(d), 0);\n}"),
    fence("javascript", referenceSolutions["js-sum-digits"]!),
  ],
  // Right at once, with prose around the code.
  "ts-clamp": [`Sure! Here is the function.\n\n${fence("typescript", referenceSolutions["ts-clamp"]!)}\n\nIt throws for min > max.`],
  // Python goes through the same graph and the Python engine.
  "py-count-vowels": [fence("python", referenceSolutions["py-count-vowels"]!)],
  // Never right: a syntax error, then a wrong answer.
  "js-fizzbuzz": [fence("javascript", "function fizzBuzz(n) {\n  return [\n}"), fence("javascript", "function fizzBuzz(n) { return []; }")],
  // HumanEval-X JavaScript: a wrong answer that console.assert would only have logged, then the canonical one.
  "JavaScript/0": [
    fence("javascript", "const hasCloseElements = (numbers, threshold) => false;"),
    fence("javascript", "const hasCloseElements = (numbers, threshold) => {\n  for (let i = 0; i < numbers.length; i++)\n    for (let j = 0; j < numbers.length; j++)\n      if (i !== j && Math.abs(numbers[i] - numbers[j]) < threshold) return true;\n  return false;\n};"),
  ],
};
const markers: Record<string, string> = {
  "js-sum-digits": "sumDigits",
  "ts-clamp": "clamp(value: number",
  "js-fizzbuzz": "fizzBuzz",
  "py-count-vowels": "count_vowels",
  "JavaScript/0": "hasCloseElements",
};

let server: ScriptedOpenAIServer;
let dir: string;
const calls: Record<string, number> = {};

function taskOf(request: RecordedRequest): string {
  const text = JSON.stringify(request.body?.messages ?? []);
  const id = Object.keys(markers).find((key) => text.includes(markers[key]!));
  if (id === undefined) throw new Error(`scripted model: no script for request ${text.slice(0, 300)}`);
  return id;
}

async function evalCli(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const env: Record<string, string | undefined> = { ...process.env, OPENAI_BASE_URL: server.baseURL, CODEGEN_MODEL_TIMEOUT_MS: "20000" };
  delete env.OPENAI_API_KEY;
  delete env.CODEGEN_MODEL;
  return run(process.execPath, ["dist/src/cli/main.js", "eval", ...args], { env, timeout: 120_000 });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "codegen-eval-"));
  server = await startScriptedOpenAIServer({
    handler(request) {
      const id = taskOf(request);
      const n = calls[id] ?? 0;
      calls[id] = n + 1;
      const answers = script[id]!;
      return { content: answers[Math.min(n, answers.length - 1)]!, usage: { promptTokens: 100, completionTokens: 20 } };
    },
  });
});

afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("codegen-sandbox eval", () => {
  it("reports pass@1 on the first attempt apart from pass after repair, as a table and as JSON", { timeout: 150_000 }, async () => {
    const out = join(dir, "report.json");
    const { stdout, stderr } = await evalCli([
      "--tasks", "evals/tasks.jsonl",
      "--ids", "js-sum-digits,ts-clamp,js-fizzbuzz,py-count-vowels",
      "--model", "openai:scripted-model",
      "--max-retries", "1",
      // One candidate per repair round: the scripted replies and the token totals are per round.
      "--repair-samples", "1",
      "--concurrency", "2",
      "--min-pass", "75%",
      "--json", out,
    ]);
    const report = JSON.parse(await readFile(out, "utf8")) as EvalReport;
    const byId = Object.fromEntries(report.results.map((r) => [r.id, r]));
    expect(byId["ts-clamp"], stderr).toMatchObject({ passedFirstAttempt: true, passedAfterRepair: true, attempts: 1, inputTokens: 100, outputTokens: 20 });
    expect(byId["js-sum-digits"]).toMatchObject({ passedFirstAttempt: false, passedAfterRepair: true, attempts: 2, attemptStatuses: ["test_failed", "success"] });
    expect(byId["js-fizzbuzz"]).toMatchObject({ passedFirstAttempt: false, passedAfterRepair: false, attempts: 2, attemptStatuses: ["syntax_error", "test_failed"] });
    expect(byId["js-fizzbuzz"]!.explanation).toBeTruthy();
    expect(byId["py-count-vowels"]).toMatchObject({ language: "python", passedFirstAttempt: true, passedAfterRepair: true, attempts: 1 });
    expect(report.summary).toMatchObject({ tasks: 4, passedFirstAttempt: 2, passedAfterRepair: 3, inputTokens: 600, outputTokens: 120 });
    expect(report.model).toBe("openai:scripted-model");
    expect(report.maxRetries).toBe(1);
    expect(stdout).toMatch(/all\s+4\s+2 \(50\.0%\)\s+3 \(75\.0%\)/);
    expect(stderr).toContain("js-sum-digits: pass (after repair)");
    // The sandbox's share of the wall time, measured around every check and run.
    expect(report.concurrency).toBe(2);
    expect(report.sandbox!.calls).toBeGreaterThanOrEqual(6);
    expect(report.sandbox!.shareOfWall).toBeGreaterThan(0);
    expect(report.sandbox!.shareOfWall).toBeLessThanOrEqual(1);
    expect(stdout).toMatch(/wall time: .* \(concurrency 2\); sandbox busy .* of wall time/);
    expect(stderr).toMatch(/eval: sandbox ready for .*python/);
    // 3 of 4 meets --min-pass 75%: exit 0 (run() would have thrown otherwise).
    expect(stderr).toContain("eval: pass@1 after repair 3/4 (75%) is at or above --min-pass 75%");
  });

  it("exits 1 when the task set falls below --min-pass", { timeout: 150_000 }, async () => {
    const error = await evalCli(["--tasks", "evals/tasks.jsonl", "--ids", "js-fizzbuzz", "--model", "openai:scripted-model", "--max-retries", "0", "--min-pass", "0.5"]).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(error?.code).toBe(1);
    expect(error?.stderr).toContain("eval: pass@1 after repair 0/1 (0%) is BELOW --min-pass 50%");
  });

  it("runs HumanEval-X JavaScript tasks with an assert that fails the run", { timeout: 150_000 }, async () => {
    const { stdout } = await evalCli([
      "--tasks", "test/eval/fixtures/humaneval-x-js/humaneval_js-sample.jsonl",
      "--ids", "JavaScript/0",
      "--model", "openai:scripted-model",
      "--json", "-",
    ]);
    const report = JSON.parse(stdout) as EvalReport;
    expect(report.results[0]).toMatchObject({ id: "JavaScript/0", passedFirstAttempt: false, passedAfterRepair: true, attempts: 2 });
    expect(report.results[0]!.attemptStatuses[0]).toBe("test_failed");
  });

  it("stops at the first task when the model server cannot be reached", { timeout: 60_000 }, async () => {
    const closed = await startScriptedOpenAIServer();
    const deadURL = closed.baseURL;
    await closed.close();
    const env: Record<string, string | undefined> = { ...process.env, OPENAI_BASE_URL: deadURL };
    delete env.OPENAI_API_KEY;
    const error = await run(
      process.execPath,
      ["dist/src/cli/main.js", "eval", "--tasks", "evals/tasks.jsonl", "--model", "openai:scripted-model"],
      { env, timeout: 50_000 },
    ).then(
      () => undefined,
      (e: { code: number; stderr: string; stdout: string }) => e,
    );
    expect(error?.code).toBe(1);
    expect(error?.stderr).toContain("EvalModelUnavailableError: Stopped the evaluation: the model did not answer on task js-sum-digits");
    expect(error?.stderr).toContain("OPENAI_BASE_URL");
    expect(error?.stderr).not.toContain("[2/");
  });

  it("says what is wrong with bad arguments", async () => {
    const failures: Array<[string[], RegExp]> = [
      [[], /--tasks FILE.jsonl is required/],
      [["--tasks", "evals/tasks.jsonl", "--max-retries", "x"], /Invalid option "--max-retries": got "x"; expected a whole number from 0 to 20/],
      [["--tasks", "evals/tasks.jsonl", "--format", "csv"], /Invalid option "--format": got "csv"; expected one of "auto"/],
      [["--tasks", "evals/tasks.jsonl", "--ids", "nope"], /no task with id "nope"/],
      [["--tasks", "evals/tasks.jsonl", "--min-pass", "120%"], /Invalid option "--min-pass": got "120%"; expected a share of the tasks, from 0 to 1 or 0% to 100%/],
    ];
    for (const [args, message] of failures) {
      const error = await evalCli(args).then(
        () => undefined,
        (e: { code: number; stderr: string }) => e,
      );
      expect(error?.code, args.join(" ")).toBe(2);
      expect(error?.stderr).toMatch(message);
    }
  });
});
