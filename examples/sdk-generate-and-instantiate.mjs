// The Code Generator SDK: generate code from a task, load it into its own sandbox session and
// call its functions many times; then the template's eval entry point.
//   node examples/sdk-generate-and-instantiate.mjs
import { CodeGeneratorSandbox, fromChatModel } from "codegen-sandbox/sdk";
import { modelFromEnv } from "./model.mjs";

const sandbox = new CodeGeneratorSandbox({
  generator: fromChatModel(modelFromEnv()),
  globalSettings: { currency: "EUR" },
  globalParameters: { vatRate: 0.2 },
  globalState: {},
  language: "javascript",
});

try {
  const calculator = await sandbox.generateAndInstantiate(
    "Create a method called add(a, b, c), I will use that method to perform additions",
  );
  console.log("main.js:\n" + calculator.files["main.js"]);
  console.log("functions:", (await calculator.functionNames()).join(", "));
  console.log("add(10, 20, 30) =", await calculator.call("add", 10, 20, 30));
  console.log("add(1, 2, 3) =", await calculator.functions.add(1, 2, 3));

  await sandbox.generateAndInstantiate(
    "Write a pricing rule: eval returns the gross price of inputData.net using globalParameters.vatRate, rounded to cents, and the currency from globalSettings",
  );
  console.log("eval({}, { net: 100 }, {}) =", JSON.stringify(await sandbox.executeFunction({}, { net: 100 }, {})));

  const generator = sandbox.generatorEstimates();
  if (generator) console.log(`generator: ${generator.attempts} call(s), ${generator.totalTokens} tokens`);
} finally {
  await sandbox.cleanup();
}
