// The README's first sample: createAgent from langchain with the execute_code tool.
// The model is a ChatOpenAI instance; it reads OPENAI_API_KEY (and OPENAI_BASE_URL, for an
// OpenAI-compatible server) from the environment.
//   OPENAI_API_KEY=sk-... node examples/quick-agent.mjs
import { createAgent } from "langchain";
import { ChatOpenAI } from "@langchain/openai";
import { createCodeInterpreterTool } from "codegen-sandbox/tools";

const agent = createAgent({
  model: new ChatOpenAI({ model: "gpt-4o-mini" }),
  tools: [createCodeInterpreterTool({ languages: ["javascript", "python"], timeoutMs: 5000 })],
});
const state = await agent.invoke({ messages: [{ role: "user", content: "What is 2**100?" }] });
console.log(state.messages.at(-1).content);
