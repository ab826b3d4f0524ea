/**
 * `eval` on an MBPP file (a fixture of our own in MBPP's format) through the built CLI, the real
 * `ChatOpenAI` client, a scripted server and the real Python sandbox: the model sees only the
 * first assert, the judge runs all three, and one run reports pass@1 for each smaller
 * `--max-retries`.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EvalReport } from "../../src/eval/run-evaluation.js";
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from "../../src/testing/index.js";
import { fence } from "../support/scripted-model.js";

const run = promisify(execFile);
const fixture = "test/eval/fixtures/mbpp/sanitized-mbpp-fixture.json";

/** Replies per function name, call after call (the last one repeats). */
const script: Record<string, string[]> = {
  digit_square_sum: [fence("python", "def digit_square_sum(n):\n    return sum(int(d) ** 2 for d in str(n))")],
  // Passes the one assert it is shown, fails the judged ones.
  point_distance: [fence("python", "def point_distance(x1, y1, x2, y2):\n    return 5.0")],
  // Wrong first (fails the shown assert), right on the fresh sample.
  reverse_words: [fence("python", "def reverse_words(s):\n    return s"), fence("python", "def reverse_words(s):\n    return ' '.join(s.split()[::-1])")],
};

let server: ScriptedOpenAIServer;
let dir: string;
const calls: Record<string, number> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "codegen-eval-mbpp-"));
  server = await startScriptedOpenAIServer({
    handler(request) {
      const text = JSON.stringify(request.body?.messages ?? []);
      const name = Object.keys(script).find((key) => text.includes(key));
      if (name === undefined) throw new Error(`no script for ${text.slice(0, 200)}`);
      const n = calls[name] ?? 0;
      calls[name] = n + 1;
      return { content: script[name]![Math.min(n, script[name]!.length - 1)]!, usage: { promptTokens: 100, completionTokens: 20 } };
    },
  });
});

afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("codegen-sandbox eval on MBPP", () => {
  it("shows the first assert, judges on all three, and reports pass@1 per max-retries from one run", { timeout: 240_000 }, async () => {
    const out = join(dir, "report.json");
    const env: Record<string, string | undefined> = { ...process.env, OPENAI_BASE_URL: server.baseURL, CODEGEN_MODEL_TIMEOUT_MS: "20000" };
    delete env.OPENAI_API_KEY;
    delete env.CODEGEN_MODEL;
    const { stderr } = await run(
      process.execPath,
      ["dist/src/cli/main.js", "eval", "--tasks", fixture, "--model", "openai:scripted-model", "--sample", "3", "--seed", "5", "--shown-tests", "1", "--max-retries", "2", "--json", out],
      { env, timeout: 200_000 },
    );
    // Not the known MBPP file: said, not refused.
    expect(stderr).toMatch(/WARNING: .*not the known sanitized MBPP file/);
    expect(stderr).toContain("sampled 3 tasks with seed 5: mbpp/11, mbpp/42, mbpp/510");
    const report = JSON.parse(await readFile(out, "utf8")) as EvalReport;
    expect(report).toMatchObject({ seed: 5, shownTests: 1, repair: { temperatures: [0, 0.8], samples: 3, prompt: "auto", explainFirst: false } });
    const byId = Object.fromEntries(report.results.map((r) => [r.id, r]));
    expect(byId["mbpp/11"], stderr).toMatchObject({ passedFirstAttempt: true, passedAtAttempt: 1, attempts: 1 });
    expect(byId["mbpp/42"]).toMatchObject({ passedFirstAttempt: false, passedAfterRepair: false, attempts: 1, attemptStatuses: ["success"] });
    expect(byId["mbpp/42"]!.explanation).toMatch(/failed the judged tests/);
    expect(byId["mbpp/510"]).toMatchObject({ passedFirstAttempt: false, passedAfterRepair: true, passedAtAttempt: 2, attemptStatuses: ["test_failed", "success"] });
    expect(report.summary.byRetries.map((r) => [r.retries, r.passed, r.tokens])).toEqual([
      [0, 1, 360],
      [1, 2, 480],
    ]);
    expect(report.summary).toMatchObject({ repeatsExecuted: 0, modelCalls: 4 });
    // The model never saw a judged-only assert; the repair was a fresh sample at 0.8.
    const sent = server.requests.map((r) => JSON.stringify(r.body.messages));
    for (const text of sent) expect(text).not.toMatch(/907\) == 130|math\.isclose|-1, 0, 1, 0|hello   world|reverse_words\(''\)/);
    expect(sent.some((t) => t.includes("assert point_distance(0, 0, 3, 4) == 5.0"))).toBe(true);
    expect(server.requests.map((r) => r.body.temperature)).toEqual([0, 0, 0, 0.8]);
  });
});
