/**
 * The point of code mode, as a scenario the test and the bench share: a task that needs one tool
 * call per item for 10 items, done by an agent (real `ChatOpenAI` against the scripted
 * OpenAI-compatible server) in code mode and with plain tool calling. Counts model calls and
 * tokens (the server's usage figures, and the size of what was sent).
 */
import { ChatOpenAI } from "@langchain/openai";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { z } from "zod";
import { codeModeMiddleware } from "../src/tools/code-mode-middleware.js";
import { startScriptedOpenAIServer, type RecordedRequest, type ScriptedReply } from "../src/testing/index.js";
import type { Sandbox } from "../src/sandbox/types.js";

/** The 10 items. */
export const CITIES = ["Paris", "Rome", "Oslo", "Lima", "Cairo", "Tokyo", "Quito", "Perth", "Dakar", "Hanoi"];

/** What one way of doing the task cost. */
export interface TaskCost {
  modelCalls: number;
  /** Prompt + completion tokens as the server reported them (message text / 4). */
  reportedTokens: number;
  /** Tokens estimated from everything sent (messages and tool definitions, JSON / 4) plus the completions. */
  sentTokens: number;
  toolCalls: number;
  answer: string;
}

const temperature = (city: string) => 10 + (city.length * 7) % 20;

function weatherTool(counter: { calls: number }) {
  return tool(
    async ({ city }) => {
      counter.calls++;
      return `${city}: ${temperature(city)} C`;
    },
    { name: "get_weather", description: "Current temperature of a city, in degrees Celsius.", schema: z.object({ city: z.string().describe("City name") }) },
  );
}

const ANSWER = `The warmest city is ${[...CITIES].sort((a, b) => temperature(b) - temperature(a))[0]}.`;

const CODE = [
  `const cities = ${JSON.stringify(CITIES)};`,
  "const reports = [];",
  "for (const city of cities) reports.push(await tools.get_weather({ city }));",
  "const warmest = reports.map((r) => [r.split(':')[0], parseInt(r.split(': ')[1])]).sort((a, b) => b[1] - a[1])[0];",
  "console.log(`warmest: ${warmest[0]} (${warmest[1]} C)`);",
].join("\n");

function sentTokens(requests: RecordedRequest[]): number {
  return requests.reduce((sum, r) => sum + Math.ceil(JSON.stringify({ messages: r.body?.messages, tools: r.body?.tools }).length / 4), 0);
}

/**
 * Runs the task with `mode` and returns its cost.
 *
 * @example
 * const { modelCalls } = await runTenItemTask("code"); // 2
 */
export async function runTenItemTask(mode: "code" | "tools", sandbox?: Sandbox): Promise<TaskCost> {
  const replies: ScriptedReply[] =
    mode === "code"
      ? [{ toolCalls: [{ name: "execute_code", args: { language: "javascript", code: CODE } }] }, ANSWER]
      : [...CITIES.map((city) => ({ toolCalls: [{ name: "get_weather", args: { city } }] })), ANSWER];
  const server = await startScriptedOpenAIServer({ replies });
  const counter = { calls: 0 };
  try {
    const model = new ChatOpenAI({ model: "scripted-model", apiKey: "test", maxRetries: 0, configuration: { baseURL: server.baseURL } });
    const getWeather = weatherTool(counter);
    const agent =
      mode === "code"
        ? createAgent({
            model,
            middleware: [codeModeMiddleware({ tools: [getWeather], languages: ["javascript"], ...(sandbox ? { sandbox } : {}) })],
            checkpointer: new MemorySaver(),
          })
        : createAgent({ model, tools: [getWeather] });
    const state = await agent.invoke(
      { messages: [{ role: "user", content: `Which of these cities is the warmest right now: ${CITIES.join(", ")}?` }] },
      { configurable: { thread_id: `ten-items-${mode}` } },
    );
    const chat = server.requests.filter((r) => r.path.endsWith("/chat/completions"));
    let reported = 0;
    for (const m of state.messages) {
      const usage = (m as { usage_metadata?: { total_tokens?: number } }).usage_metadata;
      if (usage?.total_tokens) reported += usage.total_tokens;
    }
    let completions = 0;
    for (const m of state.messages as { type: string; content: unknown; tool_calls?: unknown }[]) {
      if (m.type === "ai") completions += Math.ceil(JSON.stringify([m.content, m.tool_calls ?? []]).length / 4);
    }
    return {
      modelCalls: chat.length,
      reportedTokens: reported,
      sentTokens: sentTokens(chat) + completions,
      toolCalls: counter.calls,
      answer: String(state.messages.at(-1)!.content),
    };
  } finally {
    await server.close();
  }
}
