import { afterEach, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import type { ScriptedOpenAIServer } from "../../src/testing/index.js";
import { fence } from "../support/scripted-model.js";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs the built CLI asynchronously (the scripted server lives in this process). */
function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const cleanEnv: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env };
  return new Promise((resolve) => {
    execFile("node", ["dist/src/cli/main.js", ...args], { env: cleanEnv, timeout: 80_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

// Each test starts node and loads LangChain; a loaded machine needs more than the default timeout.
describe("codegen-sandbox solve", { timeout: 90_000 }, () => {
  it("solves a task against an OpenAI-compatible server: progress on stderr, code and output on stdout", async () => {
    server = await startScriptedOpenAIServer({
      replies: [
        fence("javascript", "let f = 1;\nfor (let i = 2; i <= 10; i++) f = f * j;\nconsole.log(f);"),
        fence("javascript", "let f = 1;\nfor (let i = 2; i <= 10; i++) f = f * i;\nconsole.log(f);"),
      ],
    });
    const { code, stdout, stderr } = await cli(["solve", "Calculate the factorial of 10 and print it", "--timeout-ms", "30000"], { OPENAI_BASE_URL: server.baseURL, CODEGEN_MODEL: "openai:local" });
    const shown = `exit ${code}\nstderr:\n${stderr}\nstdout:\n${stdout}`;
    expect(stderr, shown).toMatch(/\[attempt 1\] execute: runtime_error \(\d+\.\d ms\) - ReferenceError/);
    expect(stderr).toMatch(/\[attempt 2\] refine: generated/);
    expect(stderr).toMatch(/\[attempt 2\] finalize: success/);
    expect(stdout).toContain("--- code (javascript) ---\nlet f = 1;\nfor (let i = 2; i <= 10; i++) f = f * i;");
    expect(stdout).toContain("--- output ---\n3628800");
    expect(stdout).toContain("--- status: success after 2 attempts ---");
    expect(code).toBe(0);
    expect(server.requests[0].body.model).toBe("local");
  });

  it("prints the final state as JSON with --json and exits 1 when the task is not solved", async () => {
    server = await startScriptedOpenAIServer({ handler: () => fence("python", "print(1 / 0)") });
    const { code, stdout } = await cli(["solve", "Divide", "--language", "typescript", "--max-retries", "1", "--json", "--model", "openai:m"], {
      OPENAI_BASE_URL: server.baseURL,
    });
    expect(code).toBe(1);
    const state = JSON.parse(stdout) as { status: string; attempts: { status: string }[]; explanation: string; language: string };
    expect(state.status).toBe("failed");
    expect(state.language).toBe("typescript");
    expect(state.attempts).toHaveLength(2);
    expect(state.explanation).toMatch(/after 2 attempts/);
  });

  it("prints one clear line and exits 1 when no model is configured", async () => {
    const { code, stdout, stderr } = await cli(["solve", "Print 1"]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/^codegen-sandbox: ModelConfigurationError: No API key for model openai:gpt-4o-mini: set OPENAI_API_KEY/);
  });

  it("names the server when it cannot be reached", async () => {
    const { code, stdout } = await cli(["solve", "Print 1"], { OPENAI_BASE_URL: "http://127.0.0.1:9/v1", CODEGEN_MODEL_TIMEOUT_MS: "2000" });
    expect(code).toBe(1);
    expect(stdout).toMatch(/Could not reach the model server at http:\/\/127\.0\.0\.1:9\/v1/);
  }, 60_000);

  it("exits 2 on usage errors", async () => {
    expect((await cli(["solve"])).code).toBe(2);
    const bad = await cli(["solve", "x", "--language", "ruby"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/solve: Invalid option "--language": got "[^"]*"; expected one of "javascript", "typescript", "python"/);
    expect((await cli(["solve", "x", "--max-retries", "-1"])).code).toBe(2);
  });
});

describe("codegen-sandbox demo", { timeout: 90_000 }, () => {
  it("solves the four tasks and prints the summary", async () => {
    const answers: Record<string, string> = {
      factorial: "let f = 1;\nfor (let i = 2; i <= 10; i++) f *= i;\nconsole.log(f);",
      squares: "let s = 0;\nfor (let i = 2; i <= 20; i += 2) s += i * i;\nconsole.log(s);",
      character: "const counts = {};\nfor (const c of 'hello world') counts[c] = (counts[c] ?? 0) + 1;\nfor (const [c, n] of Object.entries(counts)) console.log(`'${c}': ${n}`);",
      fibonacci: "const fib = [0, 1];\nwhile (fib.length < 15) fib.push(fib.at(-1) + fib.at(-2));\nconsole.log(fib.join(', '));",
    };
    let firstFibonacci = true;
    server = await startScriptedOpenAIServer({
      handler: (request) => {
        const prompt = String(request.body.messages.at(-1).content).toLowerCase();
        // The first Fibonacci answer has a bug, so the summary shows a failed execution.
        if (prompt.includes("fibonacci") && firstFibonacci) {
          firstFibonacci = false;
          return fence("javascript", "console.log(fib.join(', '));");
        }
        const key = Object.keys(answers).find((k) => prompt.includes(k)) ?? "factorial";
        return fence("javascript", answers[key]);
      },
    });
    const { code, stdout, stderr } = await cli(["demo", "--timeout-ms", "30000"], { OPENAI_BASE_URL: server.baseURL });
    const shown = `stderr:\n${stderr}\nstdout:\n${stdout}`;
    expect(stderr, shown).toMatch(/=== task 4\/4/);
    expect(stdout, shown).toContain("3628800");
    expect(stdout, shown).toContain("1540");
    expect(stdout, shown).toContain("'l': 3");
    expect(stdout, shown).toContain("0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377");
    expect(stdout, shown).toContain("--- answer: right (expected 3628800) ---");
    expect(stdout, shown).toContain(
      "=== summary\nRight answers: 4/4\nTasks: 4 (4 solved)\nExecution attempts: 5\nSuccessful executions: 4\nSuccess rate: 80.0%\nBy status:\n  success: 4\n  runtime_error: 1",
    );
    expect(code).toBe(0);
  });

  it("counts a run that succeeds with the wrong answer as not solved, and exits 1", async () => {
    server = await startScriptedOpenAIServer({
      handler: (request) => {
        const prompt = String(request.body.messages.at(-1).content).toLowerCase();
        // Runs without an error every time, but prints 9! instead of 10!.
        if (prompt.includes("factorial")) return fence("javascript", "let f = 1;\nfor (let i = 2; i < 10; i++) f *= i;\nconsole.log(f);");
        if (prompt.includes("squares")) return fence("javascript", "console.log(1540);");
        if (prompt.includes("character")) return fence("javascript", "const counts = {};\nfor (const c of 'hello world') counts[c] = (counts[c] ?? 0) + 1;\nconsole.log(counts);");
        return fence("javascript", "const fib = [0, 1];\nwhile (fib.length < 15) fib.push(fib.at(-1) + fib.at(-2));\nconsole.log(fib.join(' '));");
      },
    });
    const { code, stdout, stderr } = await cli(["demo", "--timeout-ms", "30000", "--max-retries", "0"], { OPENAI_BASE_URL: server.baseURL });
    const shown = `stderr:\n${stderr}\nstdout:\n${stdout}`;
    expect(stdout, shown).toContain("--- answer: NOT FOUND (expected 3628800) ---");
    expect(stdout, shown).toContain("=== summary\nRight answers: 3/4\nTasks: 4 (4 solved)");
    expect(code).toBe(1);
  });
});

describe("codegen-sandbox solve: the language from the task", { timeout: 120_000 }, () => {
  it("writes Python when the task asks for a Python program, and says so", async () => {
    server = await startScriptedOpenAIServer({ handler: () => fence("python", "print(sum(range(1, 11)))") });
    const { code, stdout, stderr } = await cli(["solve", "Write a python program that prints the sum of 1 to 10", "--timeout-ms", "60000"], { OPENAI_BASE_URL: server.baseURL });
    const shown = `stderr:\n${stderr}\nstdout:\n${stdout}`;
    expect(stderr, shown).toContain('solve: writing python (the task says "a python program"); pass --language to choose another');
    expect(stdout, shown).toContain("--- code (python) ---\nprint(sum(range(1, 11)))");
    expect(stdout, shown).toContain("--- output ---\n55");
    expect(code).toBe(0);
    expect(String(server.requests[0].body.messages[0].content)).toMatch(/You write Python 3/);
  });
});

