// The whole code-generation graph as one tool: the agent delegates a task to solve_with_code,
// which writes, runs and repairs a program, then answers with its output.
//   node examples/graph-as-tool.mjs "Print the first 10 prime numbers"
import { createAgent } from "langchain";
import { createCodeGenTool } from "codegen-sandbox/tools";
import { modelFromEnv } from "./model.mjs";

const task = process.argv[2] ?? "Compute the sum of the squares of the even numbers from 1 to 20";
const model = modelFromEnv();

const solveWithCode = createCodeGenTool({ model, maxRetries: 2, languages: ["javascript", "python"], timeoutMs: 5000 });
const agent = createAgent({ model, tools: [solveWithCode] });

// Streaming "custom" events shows the nested graph's steps: the tool passes the config through.
let final;
for await (const [mode, chunk] of await agent.stream(
  { messages: [{ role: "user", content: task }] },
  { streamMode: ["custom", "values"] },
)) {
  if (mode === "custom" && chunk.type === "codegen") {
    console.log(`  [${chunk.node}] attempt ${chunk.attempt}: ${chunk.status}${chunk.message ? ` - ${chunk.message}` : ""}`);
  } else if (mode === "values") {
    final = chunk;
  }
}
const toolMessage = final.messages.find((m) => m.type === "tool");
if (toolMessage) console.log(`solve_with_code: ${toolMessage.artifact.status} after ${toolMessage.artifact.attempts.length} attempt(s)`);
console.log(`Answer: ${final.messages.at(-1).content}`);
