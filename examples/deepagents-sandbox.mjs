// deepagents with codegen-sandbox as its backend: the agent's execute, write_file, read_file,
// ls, glob and grep all act inside a local, isolated sandbox (files in memory, commands in a
// sandboxed shell, python3 in Pyodide), never on this machine.
//   OPENAI_API_KEY=sk-... node examples/deepagents-sandbox.mjs
import { createDeepAgent } from "deepagents";
import { ChatOpenAI } from "@langchain/openai";
import { CodeGenSandbox } from "codegen-sandbox/deepagents";

const backend = await CodeGenSandbox.create({
  initialFiles: { "/data/sales.csv": "region,amount\nnorth,120\nsouth,80\nnorth,30\n" },
});
try {
  const agent = createDeepAgent({ model: new ChatOpenAI({ model: "gpt-4o-mini" }), backend });
  const state = await agent.invoke({
    messages: [{ role: "user", content: "Total the amounts per region in /data/sales.csv and save them to /report.txt" }],
  });
  console.log(state.messages.at(-1).content);
  console.log((await backend.execute("cat /report.txt")).output);
} finally {
  await backend.close();
}
