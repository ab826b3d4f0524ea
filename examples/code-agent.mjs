// createCodeAgent: createAgent with execute_code and solve_with_code, the model resolved from
// the environment (CODEGEN_MODEL, OPENAI_API_KEY, OPENAI_BASE_URL) when the run starts.
//   OPENAI_API_KEY=sk-... node examples/code-agent.mjs
import { createCodeAgent } from "codegen-sandbox/tools";

const agent = createCodeAgent(); // or createCodeAgent({ model: new ChatOpenAI({ model: "gpt-4o-mini" }) })
const state = await agent.invoke({ messages: [{ role: "user", content: "Which weekday was 29 February 2024?" }] });
console.log(state.messages.at(-1).content);
