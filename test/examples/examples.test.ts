import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { startScriptedOpenAIServer, type ScriptedReply } from "../../src/testing/index.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** Runs an example as a child process (importing the built package) against a scripted model server. */
async function runExample(file: string, replies: ScriptedReply[], args: string[] = []) {
  const server = await startScriptedOpenAIServer({ replies });
  try {
    const child = spawn(process.execPath, [`examples/${file}`, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH, OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "test", CODEGEN_MODEL: "openai:scripted-model" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    return { code, stdout, stderr, requests: server.requests, pending: server.pending };
  } finally {
    await server.close();
  }
}

// Each example is a fresh Node process that loads LangChain: slow on a busy machine.
describe("examples run against the scripted OpenAI-compatible server", { timeout: 120_000 }, () => {
  it("agent-code-interpreter.mjs: the agent runs its code and answers", async () => {
    const run = await runExample(
      "agent-code-interpreter.mjs",
      [
        {
          toolCalls: [
            {
              name: "execute_code",
              args: { code: "let [a, b] = [0, 1];\nfor (let i = 0; i < 30; i++) [a, b] = [b, a + b];\nconsole.log(a);", language: "javascript" },
            },
          ],
        },
        "The 30th Fibonacci number is 832040.",
      ],
      ["What is the 30th Fibonacci number?"],
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\[execute_code\] success in \d+ ms/);
    expect(run.stdout).toContain("  stdout:\n  832040");
    expect(run.stdout).toContain("Answer: The 30th Fibonacci number is 832040.");
    expect(run.pending).toBe(0);
  });

  it("graph-as-tool.mjs: the agent delegates to solve_with_code and streams the graph's steps", async () => {
    const run = await runExample("graph-as-tool.mjs", [
      { toolCalls: [{ name: "solve_with_code", args: { task: "Sum of the squares of the even numbers 1..20" } }] },
      "```javascript\nlet sum = 0;\nfor (let i = 2; i <= 20; i += 2) sum += i * i;\nconsole.log(sum);\n```",
      "The sum is 1540.",
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("[execute] attempt 1: success");
    expect(run.stdout).toContain("solve_with_code: success after 1 attempt(s)");
    expect(run.stdout).toContain("Answer: The sum is 1540.");
  });

  it("sdk-generate-and-instantiate.mjs: generate, instantiate, call many times, eval", async () => {
    const run = await runExample("sdk-generate-and-instantiate.mjs", [
      "```javascript\nfunction add(a, b, c) {\n  return a + b + c;\n}\n```",
      [
        "class GeneratedPolicy {",
        "  constructor(settings, parameters) { this.currency = settings.currency; this.rate = parameters.vatRate; }",
        "  eval(parameters, inputData, context) {",
        "    return { gross: Math.round(inputData.net * (1 + this.rate) * 100) / 100, currency: this.currency };",
        "  }",
        "}",
      ].join("\n"),
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("functions: add");
    expect(run.stdout).toContain("add(10, 20, 30) = 60");
    expect(run.stdout).toContain("add(1, 2, 3) = 6");
    expect(run.stdout).toContain('eval({}, { net: 100 }, {}) = {"gross":120,"currency":"EUR"}');
    expect(run.stdout).toContain("generator: 2 call(s)");
  });

  it("rest-backend.mjs: a local node:http model server plugged in with fromAsyncFunction", async () => {
    const run = await runExample("rest-backend.mjs", ["function reverse(s) {\n  return [...s].reverse().join('');\n}"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/model server listening on http:\/\/127\.0\.0\.1:\d+\/generate/);
    expect(run.stdout).toContain('reverse("hello") = olleh');
    expect(run.stdout).toContain('"attempts":1');
    // The custom pre-processor's prompt went through the REST server to the model.
    const body = run.requests[0]!.body as { messages: { role: string; content: string }[] };
    expect(body.messages.at(-1)!.content).toMatch(/^\[Task\] Write a function reverse\(s\)/);
  });

  it("code-mode-agent.mjs: code calls the tools, keeps its helper and its file for the next turn", async () => {
    const first = [
      "function warmest(reports) { return [...reports].sort((a, b) => b.temp - a.temp)[0]; }",
      "const reports = [];",
      'for (const city of ["Paris", "Rome", "Oslo"]) {',
      "  const text = await tools.get_weather({ city });",
      '  reports.push({ city, temp: parseInt(text.split(": ")[1]) });',
      "}",
      'await files.write("report.csv", "city,temp\\n" + reports.map((r) => `${r.city},${r.temp}`).join("\\n"));',
      "console.log(warmest(reports));",
    ].join("\n");
    const run = await runExample("code-mode-agent.mjs", [
      { toolCalls: [{ name: "execute_code", args: { language: "javascript", code: first } }] },
      "Saved report.csv.",
      { toolCalls: [{ name: "execute_code", args: { language: "javascript", code: 'console.log(warmest(reports).city);\nconsole.log(await files.read("report.csv"))' } }] },
      "Paris was the warmest (25 C); the report lists all three cities.",
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("[execute_code] success, 3 tool call(s)");
    expect(run.stdout).toContain("{ city: 'Paris', temp: 25 }");
    expect(run.stdout).toContain("files written: /report.csv");
    expect(run.stdout).toContain("  Paris\n  city,temp\n  Paris,25\n  Rome,18\n  Oslo,18");
    expect(run.stdout).toContain("Files in the thread: /report.csv");
    expect(run.stdout).toContain("Answer: Paris was the warmest (25 C); the report lists all three cities.");
    expect(run.pending).toBe(0);
  });

  it("deepagents-sandbox.mjs: createDeepAgent with CodeGenSandbox runs python3, writes and reads in the sandbox", async () => {
    const script = [
      "import csv, collections",
      "totals = collections.Counter()",
      "for row in csv.DictReader(open('/data/sales.csv')):",
      "    totals[row['region']] += int(row['amount'])",
      "open('/report.txt', 'w').write(''.join(f'{k}: {v}\\n' for k, v in sorted(totals.items())))",
      "print(dict(totals))",
    ].join("\n");
    const run = await runExample("deepagents-sandbox.mjs", [
      { toolCalls: [{ name: "execute", args: { command: `python3 -c "${script}"` } }] },
      { toolCalls: [{ name: "read_file", args: { file_path: "/report.txt" } }] },
      "north: 150, south: 80 (saved to /report.txt).",
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("north: 150, south: 80 (saved to /report.txt).\nnorth: 150\nsouth: 80\n\n");
    type Content = string | { type: string; text?: string }[];
    const text = (content: Content) => (typeof content === "string" ? content : content.map((b) => b.text ?? "").join(""));
    const tools = (run.requests[2]!.body as { messages: { role: string; content: Content }[] }).messages.filter((m) => m.role === "tool").map((m) => text(m.content));
    expect(tools).toEqual(["{'north': 150, 'south': 80}\n\n[Command succeeded with exit code 0]", "@@ lines 1-2 of 2 @@\nnorth: 150\nsouth: 80"]);
    expect(run.pending).toBe(0);
  });

  it("quick-agent.mjs (the README's agent): ChatOpenAI from the environment runs execute_code", async () => {
    const run = await runExample("quick-agent.mjs", [
      { toolCalls: [{ name: "execute_code", args: { code: "console.log(String(2n ** 100n))", language: "javascript" } }] },
      "2**100 is 1267650600228229401496703205376.",
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("2**100 is 1267650600228229401496703205376.\n");
    const toolResult = (run.requests[1]!.body as { messages: { role: string; content: string }[] }).messages.find((m) => m.role === "tool");
    expect(toolResult?.content).toBe("status: success\nstdout:\n1267650600228229401496703205376");
    expect(run.pending).toBe(0);
  });

  it("code-agent.mjs (the README's createCodeAgent): model from the environment, both tools offered", async () => {
    const run = await runExample("code-agent.mjs", [
      { toolCalls: [{ name: "execute_code", args: { code: "new Date(Date.UTC(2024, 1, 29)).getUTCDay()", language: "javascript" } }] },
      "It was a Thursday.",
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("It was a Thursday.\n");
    const first = run.requests[0]!.body as { model: string; tools: { function: { name: string } }[] };
    expect(first.model).toBe("scripted-model");
    expect(first.tools.map((t) => t.function.name)).toEqual(["execute_code", "solve_with_code"]);
    const toolResult = (run.requests[1]!.body as { messages: { role: string; content: string }[] }).messages.find((m) => m.role === "tool");
    expect(toolResult?.content).toBe("status: success\nresult: 4");
  });

  it("solve-task.mjs (the README's graph): a wrong isPrime fails its tests, the repaired one passes", async () => {
    const wrong = "function isPrime(n) {\n  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;\n  return true;\n}\nconsole.log([...Array(30).keys()].filter(isPrime).join(' '));";
    const right = wrong.replace("return true;", "return n > 1;");
    const run = await runExample("solve-task.mjs", ["```javascript\n" + wrong + "\n```", "```javascript\n" + right + "\n```"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("success 2\n");
    expect(run.stdout).toContain("return n > 1;");
    expect(run.stdout).toContain("2 3 5 7 11 13 17 19 23 29\n");
    expect(run.pending).toBe(0);
  });

  it("an example without model settings says what to set", async () => {
    const child = spawn(process.execPath, ["examples/sdk-generate-and-instantiate.mjs"], { cwd: root, env: { PATH: process.env.PATH } });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(1);
    expect(stderr).toContain("Set OPENAI_API_KEY, or OPENAI_BASE_URL");
  });
});
