// The code-generation graph on one task, with tests, the model from the environment
// (CODEGEN_MODEL, OPENAI_API_KEY, OPENAI_BASE_URL).
//   OPENAI_API_KEY=sk-... node examples/solve-task.mjs
import { createCodeGenGraph } from "codegen-sandbox/graph";

const graph = createCodeGenGraph({ maxRetries: 2 }); // the model comes from the environment
const state = await graph.invoke({
  task: "Write isPrime(n) and print the primes below 30",
  tests: "if (isPrime(1) || !isPrime(29)) throw new Error('isPrime is wrong');",
});
console.log(state.status, state.attempts.length);
console.log(state.code);
console.log(state.result.stdout);
