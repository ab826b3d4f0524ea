// An agent in code mode: its programs call its tools, keep their definitions and write files,
// all saved with the conversation's thread.
//   node examples/code-mode-agent.mjs
import { createAgent, tool } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { codeModeMiddleware } from "codegen-sandbox/tools";
import { modelFromEnv } from "./model.mjs";

const getWeather = tool(async ({ city }) => `${city}: ${10 + (city.length * 7) % 20} C`, {
  name: "get_weather",
  description: "Current temperature of a city, in degrees Celsius.",
  schema: z.object({ city: z.string().describe("City name") }),
});

const agent = createAgent({
  model: modelFromEnv(),
  middleware: [codeModeMiddleware({ tools: [getWeather], languages: ["javascript", "python"] })],
  checkpointer: new MemorySaver(),
});
const config = { configurable: { thread_id: "weather-desk" } };

for (const question of [
  "Get the temperature of Paris, Rome and Oslo, keep a helper that finds the warmest, and save a CSV report.",
  "Which was the warmest, and what is in the report?",
]) {
  const state = await agent.invoke({ messages: [{ role: "user", content: question }] }, config);
  for (const message of state.messages.slice(-4)) {
    if (message.type === "tool") {
      console.log(`[execute_code] ${message.artifact.result.status}, ${message.artifact.toolCalls?.length ?? 0} tool call(s)`);
      console.log(String(message.content).replace(/^/gm, "  "));
    }
  }
  console.log(`Answer: ${state.messages.at(-1).content}`);
  console.log(`Files in the thread: ${Object.keys(state.files).join(", ") || "none"}`);
}
