// An agent that runs its own code: createAgent + the execute_code tool.
//   node examples/agent-code-interpreter.mjs "What is the 30th Fibonacci number?"
import { createAgent } from "langchain";
import { createCodeInterpreterTool } from "codegen-sandbox/tools";
import { modelFromEnv } from "./model.mjs";

const question = process.argv[2] ?? "How many Sundays fell on the first of the month during 2001-2010?";

const executeCode = createCodeInterpreterTool({
  languages: ["javascript", "typescript", "python"],
  timeoutMs: 5000,
  memoryLimitBytes: 64 * 1024 * 1024,
});
const agent = createAgent({
  model: modelFromEnv(),
  tools: [executeCode],
  systemPrompt: "Use execute_code to compute exact answers; print the values you need.",
});

const state = await agent.invoke({ messages: [{ role: "user", content: question }] });
for (const message of state.messages) {
  if (message.type === "tool") {
    console.log(`[execute_code] ${message.artifact.result.status} in ${Math.round(message.artifact.result.durationMs)} ms`);
    console.log(String(message.content).replace(/^/gm, "  "));
  }
}
console.log(`Answer: ${state.messages.at(-1).content}`);
