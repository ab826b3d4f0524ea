/**
 * Studio: `langgraph dev` serves both graphs of langgraph.json (graphs/codegen.ts, graphs/agent.ts)
 * on a free loopback port, and they run through `@langchain/langgraph-sdk`'s client with the model
 * pointed at a scripted OpenAI-compatible server started here.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from "../../src/testing/index.js";

const STARTUP_TIMEOUT_MS = 150_000;
const TASK = "Write a function add(a, b) that returns the sum of a and b, then print add(2, 3).";
const TESTS = `if (add(2, 3) !== 5) throw new Error("add(2, 3) should be 5");`;
const REPLY = "Here you go:\n```javascript\nfunction add(a, b) {\n  return a + b;\n}\nconsole.log(add(2, 3));\n```";
const PY_TASK = "Write a function add(a, b) that returns the sum of a and b, then print add(2, 3).";
const PY_TESTS = "assert add(2, 3) == 5";
const AGENT_CODE = "let f = 1;\nfor (let i = 2; i <= 10; i++) f *= i;\nconsole.log(f);";
const PY_REPLY = "```python\ndef add(a, b):\n    return a + b\n\nprint(add(2, 3))\n```";

let model: ScriptedOpenAIServer;
let server: ChildProcess | undefined;
let serverExit: Promise<void> | undefined;
let apiUrl = "";
let log = "";

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

function logTail(): string {
  return `\n--- langgraph dev output (last 4000 chars) ---\n${log.slice(-4000)}`;
}

async function waitUntilReady(url: string): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (server?.exitCode !== null || server?.signalCode !== null) {
      throw new Error(`langgraph dev exited early (code ${server?.exitCode}, signal ${server?.signalCode})${logTail()}`);
    }
    try {
      const response = await fetch(`${url}/ok`, { signal: AbortSignal.timeout(2000) });
      if (response.ok) {
        // /ok answers before the graphs are registered: wait for ours too.
        const assistants = await fetch(`${url}/assistants/search`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ graph_id: "codegen" }),
          signal: AbortSignal.timeout(5000),
        });
        if (assistants.ok && ((await assistants.json()) as unknown[]).length > 0) return;
      }
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`langgraph dev did not serve the codegen graph within ${STARTUP_TIMEOUT_MS / 1000} s${logTail()}`);
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stops the CLI and the API server it started (one process group), then checks none is left. */
async function stopServer(): Promise<void> {
  const pid = server?.pid;
  if (pid === undefined) return;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pid, name);
    } catch {
      // Already gone.
    }
  };
  signal("SIGTERM");
  await Promise.race([serverExit, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  signal("SIGKILL");
  const deadline = Date.now() + 5000;
  while (groupAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (groupAlive(pid)) throw new Error(`processes of langgraph dev (group ${pid}) are still running after SIGKILL`);
}

beforeAll(async () => {
  model = await startScriptedOpenAIServer({
    handler: (request) => {
      const messages = (request.body?.messages ?? []) as { role: string; content: unknown }[];
      // The agent sends tools: first it runs code, then it answers from the tool's result.
      if (Array.isArray(request.body?.tools)) {
        const toolResult = messages.findLast((m) => m.role === "tool");
        if (toolResult === undefined) return { toolCalls: [{ name: "execute_code", args: { code: AGENT_CODE, language: "javascript" } }] };
        return `The tool said: ${JSON.stringify(toolResult.content)}`;
      }
      // The system prompt names the language the graph asked for.
      return { content: JSON.stringify(messages).includes("Python") ? PY_REPLY : REPLY, usage: { promptTokens: 120, completionTokens: 30 } };
    },
  });
  const port = await freePort();
  apiUrl = `http://127.0.0.1:${port}`;
  const env: Record<string, string | undefined> = {
    ...process.env,
    LANGGRAPH_CLI_NO_ANALYTICS: "1",
    LANGSMITH_TRACING: "false",
    LANGCHAIN_TRACING_V2: "false",
    BROWSER: "none",
    OPENAI_BASE_URL: model.baseURL,
    CODEGEN_MODEL: "openai:scripted-model",
  };
  delete env.OPENAI_API_KEY;
  delete env.LANGSMITH_API_KEY;
  server = spawn(
    process.execPath,
    ["node_modules/@langchain/langgraph-cli/dist/cli/cli.mjs", "dev", "--host", "127.0.0.1", "--port", String(port), "--no-browser", "--no-reload"],
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  serverExit = new Promise((resolve) => server!.once("exit", () => resolve()));
  server.stdout!.on("data", (chunk: Buffer) => (log += chunk.toString()));
  server.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString()));
  await waitUntilReady(apiUrl);
}, STARTUP_TIMEOUT_MS + 10_000);

afterAll(async () => {
  await stopServer();
  await model?.close();
}, 30_000);

describe("LangGraph Studio (langgraph dev)", () => {
  it("esbuild, which tsx uses to load the TypeScript graph, works although npm did not run its install script", () => {
    const result = spawnSync(process.execPath, ["-e", "require('esbuild').transformSync('let a: number = 1', { loader: 'ts' })"], {
      cwd: "node_modules/@langchain/langgraph-api",
      encoding: "utf8",
    });
    expect(result.status, result.stderr).toBe(0);
  });

  it("runs the codegen graph with runs.wait", async () => {
    const client = new Client({ apiUrl });
    const thread = await client.threads.create();
    const state = (await client.runs.wait(thread.thread_id, "codegen", {
      input: { task: TASK, language: "javascript", tests: TESTS },
    })) as Record<string, any>; // The server returns the graph's state as plain JSON.
    expect(state.status, `${JSON.stringify(state).slice(0, 2000)}${logTail()}`).toBe("success");
    expect(state.code).toContain("function add(a, b)");
    expect(state.result).toMatchObject({ status: "success", stdout: "5\n", language: "javascript" });
    expect(state.attempts).toHaveLength(1);
    expect(state.attempts[0]).toMatchObject({ status: "success", inputTokens: 120, outputTokens: 30 });
    // The model really was called through the OpenAI-compatible server, with our model name.
    expect(model.requests.length).toBeGreaterThanOrEqual(1);
    expect(model.requests.at(-1)!.body.model).toBe("scripted-model");
  });

  it("runs a Python task through the same graph (Pyodide in Deno, started by the server)", { timeout: 120_000 }, async () => {
    const client = new Client({ apiUrl });
    const thread = await client.threads.create();
    const state = (await client.runs.wait(thread.thread_id, "codegen", {
      input: { task: PY_TASK, language: "python", tests: PY_TESTS },
    })) as Record<string, any>; // The server returns the graph's state as plain JSON.
    expect(state.status, `${JSON.stringify(state).slice(0, 2000)}${logTail()}`).toBe("success");
    expect(state.result).toMatchObject({ status: "success", stdout: "5\n", language: "python" });
  });

  it("runs the code agent (createAgent): it calls execute_code in the sandbox and answers", async () => {
    const client = new Client({ apiUrl });
    const thread = await client.threads.create();
    const state = (await client.runs.wait(thread.thread_id, "agent", {
      input: { messages: [{ role: "user", content: "What is the factorial of 10?" }] },
    })) as { messages: { type: string; content: unknown; name?: string }[] }; // Plain JSON from the server.
    const shown = `${JSON.stringify(state).slice(0, 2000)}${logTail()}`;
    const tool = state.messages?.find((m) => m.type === "tool");
    expect(tool, shown).toMatchObject({ name: "execute_code" });
    expect(String(tool!.content)).toBe("status: success\nstdout:\n3628800");
    expect(String(state.messages.at(-1)!.content)).toContain("3628800");
  });

  it("streams node updates and attempt events with runs.stream", async () => {
    const client = new Client({ apiUrl });
    const thread = await client.threads.create();
    const events: Array<{ event: string; data: any }> = []; // Stream chunks are untyped JSON.
    for await (const chunk of client.runs.stream(thread.thread_id, "codegen", {
      input: { task: TASK, language: "javascript", tests: TESTS },
      streamMode: ["updates", "custom"],
    })) {
      events.push(chunk as { event: string; data: any });
    }
    const failures = events.filter((e) => e.event === "error");
    expect(failures, JSON.stringify(failures) + logTail()).toEqual([]);
    const nodes = events.filter((e) => e.event.startsWith("updates")).flatMap((e) => Object.keys(e.data ?? {}));
    expect(nodes).toEqual(expect.arrayContaining(["generate", "validate", "execute"]));
    expect(nodes).not.toContain("refine");
    expect(events.some((e) => e.event.startsWith("custom"))).toBe(true);
    const final = await client.threads.getState(thread.thread_id);
    const values = final.values as Record<string, any>;
    expect(values.status).toBe("success");
    expect(values.result).toMatchObject({ status: "success", stdout: "5\n" });
  });
});
