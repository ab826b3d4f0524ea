// A custom REST model server plugged in with fromAsyncFunction. The server here is a small
// node:http service in front of a chat model (your own server would stand in its place):
// POST /generate { prompt } -> { code }.
//   node examples/rest-backend.mjs
import { createServer } from "node:http";
import { CodeGeneratorSandbox, fromAsyncFunction, stripCodeFences } from "codegen-sandbox/sdk";
import { modelFromEnv } from "./model.mjs";

const model = modelFromEnv();
const server = createServer(async (request, response) => {
  let body = "";
  for await (const chunk of request) body += chunk;
  try {
    const { prompt } = JSON.parse(body);
    const reply = await model.invoke([
      { role: "system", content: "Reply with JavaScript source code only." },
      { role: "user", content: prompt },
    ]);
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ code: stripCodeFences(String(reply.content)) }));
  } catch (error) {
    response.writeHead(500, { "content-type": "application/json" });
    response.end(JSON.stringify({ error: String(error) }));
  }
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const endpoint = `http://127.0.0.1:${server.address().port}/generate`;
console.log(`model server listening on ${endpoint}`);

// The client side: any async function returning code is a backend.
const restBackend = fromAsyncFunction(
  async (prompt) => {
    const response = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ prompt }),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
    return (await response.json()).code;
  },
  { name: "my-rest-server" },
);
restBackend.setPreProcessor((task, descriptors) => `[Task] ${task}\n[Hints] ${JSON.stringify(descriptors)}`);

const sandbox = new CodeGeneratorSandbox({ generator: restBackend });
try {
  const instance = await sandbox.generateAndInstantiate("Write a function reverse(s) that reverses a string");
  console.log('reverse("hello") =', await instance.call("reverse", "hello"));
  console.log("estimates:", JSON.stringify(restBackend.getCurrentEstimates(), (k, v) => (k.endsWith("Ms") ? undefined : v)));
} finally {
  await sandbox.cleanup();
  server.close();
}
