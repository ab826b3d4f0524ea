import { afterAll, describe, expect, it } from "vitest";
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createSandbox } from "../../src/sandbox/index.js";
import { SandboxDisposedError, SandboxSessionEndedError } from "../../src/errors.js";
import { CodeGeneratorSandbox } from "../../src/sdk/code-generator-sandbox.js";
import { DEFAULT_MAX_RETRIES } from "../../src/graph/retries.js";
import { fromAsyncFunction, fromChatModel } from "../../src/sdk/adapters.js";
import {
  GeneratedCodeError,
  GeneratedFunctionError,
  NotInstantiatedError,
  TemplateWithoutEvalError,
  UnknownFunctionError,
} from "../../src/sdk/errors.js";
import type { Descriptors } from "../../src/sdk/generator-api.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

/** A backend that replies with the scripted codes in order and records what it was asked. */
function scripted(...codes: string[]) {
  const requests: { prompt: string; task: string; descriptors: Descriptors }[] = [];
  const generator = fromAsyncFunction((prompt, request) => {
    requests.push({ prompt, ...request });
    const code = codes.shift();
    if (code === undefined) throw new Error("no scripted reply left");
    return code;
  });
  return { generator, requests };
}

const ADD = "function add(a, b, c) {\n  return a + b + c;\n}\n";

describe("CodeGeneratorSandbox (JavaScript, real sandbox)", () => {
  it("generateAndInstantiate gives a live instance callable many times, by name and by proxy", async () => {
    const { generator, requests } = scripted("```javascript\n" + ADD + "```");
    const codegen = new CodeGeneratorSandbox({ generator, sandbox });
    const workersBefore = sandbox.liveWorkerCount();
    const instance = await codegen.generateAndInstantiate<{ add(a: number, b: number, c: number): number }>(
      "Create a method called add(a, b, c), I will use that method to perform additions",
    );
    expect(await instance.call("add", 10, 20, 30)).toBe(60);
    expect(await instance.functions.add(1, 2, 3)).toBe(6);
    expect(await instance.call("add", 0.5, 0.25, 0.25)).toBe(1);
    expect(await instance.functionNames()).toEqual(["add"]);
    expect(instance.files["main.js"]).toBe(ADD.trim());
    // The default descriptors went into the prompt through the default pre-processor.
    expect(requests[0]!.prompt).toMatch(/^Create a method called add\(a, b, c\).* language: javascript style: /);
    expect(requests[0]!.descriptors.template).toContain("class GeneratedPolicy");
    // The instance holds one session thread of its own, released by cleanup().
    expect(sandbox.liveWorkerCount()).toBe(workersBefore + 1);
    await codegen.cleanup();
    expect(sandbox.liveWorkerCount()).toBe(workersBefore);
  });

  it("keeps state between calls and shows the global settings, parameters and state", async () => {
    const code = [
      "let count = 0;",
      "function next() { count += globalParameters.step; return count; }",
      "function describe() { return { currency: globalSettings.currency, start: globalState.start }; }",
    ].join("\n");
    const codegen = new CodeGeneratorSandbox({
      generator: scripted(code).generator,
      sandbox,
      globalSettings: { currency: "EUR" },
      globalParameters: { step: 5 },
      globalState: { start: 1 },
    });
    const instance = await codegen.generateAndInstantiate("counter");
    expect(await instance.call("next")).toBe(5);
    expect(await instance.call("next")).toBe(10);
    expect(await instance.call("describe")).toEqual({ currency: "EUR", start: 1 });
    await codegen.cleanup();
  });

  it("executeFunction calls the default template's eval with parameters, input data and context", async () => {
    const code = [
      "class GeneratedPolicy {",
      "  constructor(settings, parameters, state) { this.limit = settings.limit; }",
      "  eval(parameters, inputData, context) {",
      "    return { allowed: inputData.amount * parameters.rate <= this.limit, user: context.user };",
      "  }",
      "}",
    ].join("\n");
    const codegen = new CodeGeneratorSandbox({ generator: scripted(code).generator, sandbox, globalSettings: { limit: 100 } });
    await codegen.generateAndInstantiate("Allow a payment when amount times rate stays within the limit");
    expect(await codegen.executeFunction({ rate: 2 }, { amount: 40 }, { user: "ana" })).toEqual({ allowed: true, user: "ana" });
    expect(await codegen.executeFunction({ rate: 3 }, { amount: 40 }, { user: "bo" })).toEqual({ allowed: false, user: "bo" });
    await codegen.cleanup();
  });

  it("generateCode returns main.js and a dependency manifest marking each import", async () => {
    const code = 'import _ from "lodash";\nexport function f() { return 1; }\n';
    const codegen = new CodeGeneratorSandbox({ generator: scripted(code).generator, sandbox });
    const files = await codegen.generateCode("anything", { style: "concise" }, { useDefaultDescriptors: false });
    expect(Object.keys(files).sort()).toEqual(["dependencies.json", "main.js"]);
    const manifest = JSON.parse(files["dependencies.json"]!) as { language: string; dependencies: { name: string; available: boolean }[] };
    expect(manifest.language).toBe("javascript");
    expect(manifest.dependencies).toMatchObject([{ name: "lodash", available: false }]);
  });

  it("asks the generator again with the error, once, when the code does not validate", async () => {
    const { generator, requests } = scripted("function add(a, b, c) { return a + ; }", ADD);
    const codegen = new CodeGeneratorSandbox({ generator, sandbox });
    const instance = await codegen.generateAndInstantiate("Create add(a, b, c)");
    expect(await instance.call("add", 1, 1, 1)).toBe(3);
    expect(requests).toHaveLength(2);
    // The graph's repair prompt: numbered code, the status, the quoted line and what to try.
    expect(requests[1]!.task).toMatch(/^Your JavaScript program for this task did not work\.\n\nTask: Create add\(a, b, c\)/);
    expect(requests[1]!.task).toContain("1 | function add(a, b, c) { return a + ; }");
    expect(requests[1]!.task).toContain("status `syntax_error`");
    expect(requests[1]!.task).toMatch(/The code does not parse\. SyntaxError: .*\(line 1:\d+: `function add\(a, b, c\) \{ return a \+ ; \}`\)\. Fix the syntax on that line/);
    await codegen.cleanup();
  });

  it("reports code that keeps failing with GeneratedCodeError (validation and loading)", async () => {
    const invalid = new CodeGeneratorSandbox({ generator: scripted("nope(", "still nope(").generator, sandbox, maxRetries: 1 });
    const error = await invalid.generateAndInstantiate("x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GeneratedCodeError);
    expect((error as GeneratedCodeError).phase).toBe("validate");
    expect((error as GeneratedCodeError).code).toBe("still nope(");
    expect((error as Error).message).toMatch(/did not pass validation after 2 attempt\(s\): syntax_error/);

    const throwing = new CodeGeneratorSandbox({ generator: scripted('throw new Error("boom")').generator, sandbox, maxRetries: 0 });
    const workersBefore = sandbox.liveWorkerCount();
    const loadError = await throwing.generateAndInstantiate("x").catch((e: unknown) => e);
    // The session that failed to load was released.
    expect(sandbox.liveWorkerCount()).toBe(workersBefore);
    expect(loadError).toBeInstanceOf(GeneratedCodeError);
    expect((loadError as Error).message).toMatch(/failed while loading after 1 attempt\(s\): runtime_error: Error: boom \(line 1/);
  });

  it("gives clear errors: unknown function, failing function, before instantiation, after cleanup", async () => {
    const code = ADD + "function fail() { null.x; }\n";
    const codegen = new CodeGeneratorSandbox({ generator: scripted(code).generator, sandbox });
    await expect(codegen.executeFunction({}, {}, {})).rejects.toThrow(NotInstantiatedError);
    const instance = await codegen.generateAndInstantiate("add");
    const unknown = await instance.call("multiply", 2, 3).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(UnknownFunctionError);
    expect((unknown as Error).message).toBe('The generated code defines no function "multiply". It defines: "add", "fail".');
    const failed = await instance.call("fail").catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(GeneratedFunctionError);
    expect((failed as GeneratedFunctionError).result.status).toBe("runtime_error");
    expect((await instance.invoke("fail")).error?.name).toBe("TypeError");
    // The code has no GeneratedPolicy class: eval has nothing to call.
    await expect(codegen.executeFunction({}, {}, {})).rejects.toThrow(/defines no class GeneratedPolicy/);
    await expect(codegen.executeFunction("rate" as never, {}, {})).rejects.toThrow(/Invalid option "parameters"/);
    await expect(instance.call("__codegen_eval" as never)).rejects.toThrow(/Invalid option "name"/);
    await expect(instance.invoke("add", "1, 2" as never)).rejects.toThrow(/Invalid option "args"/);
    await codegen.cleanup();
    expect(instance.disposed).toBe(true);
    await expect(instance.call("add", 1, 2, 3)).rejects.toThrow(SandboxDisposedError);
    await expect(instance.functions.add(1, 2, 3)).rejects.toThrow(SandboxDisposedError);
    await expect(codegen.executeFunction({}, {}, {})).rejects.toThrow(SandboxDisposedError);
  });

  it("applies its limits to each call; a timeout ends the instance's session", async () => {
    const code = "function spin() { while (true) {} }\nfunction ok() { return 1; }\n";
    // Loading runs under the same limit, so it must leave room for a busy machine.
    const codegen = new CodeGeneratorSandbox({ generator: scripted(code).generator, sandbox, limits: { timeoutMs: 2000 }, maxRetries: 0 });
    const instance = await codegen.generateAndInstantiate("spin");
    const error = await instance.call("spin").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GeneratedFunctionError);
    expect((error as GeneratedFunctionError).result.status).toBe("timeout");
    await expect(instance.call("ok")).rejects.toThrow(SandboxSessionEndedError);
    await codegen.cleanup();
  });

  it("a template without eval makes executeFunction throw TemplateWithoutEvalError", async () => {
    const template = "// Custom logic\nclass MyGeneratedPolicy {\n  run(config, inputData) {}\n}\n";
    const { generator, requests } = scripted(ADD);
    const codegen = new CodeGeneratorSandbox({ generator, sandbox, template });
    await codegen.generateAndInstantiate("add");
    expect(requests[0]!.descriptors.template).toContain("class MyGeneratedPolicy");
    await expect(codegen.executeFunction({}, {}, {})).rejects.toThrow(TemplateWithoutEvalError);
    await expect(codegen.executeFunction({}, {}, {})).rejects.toThrow(/Template "custom" defines no class with an eval/);
    await codegen.cleanup();
  });

  it("runs TypeScript from a chat model and replaces the previous instance", async () => {
    const model = fakeModel()
      .respond(new AIMessage("```ts\nfunction greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n```"))
      .respond(new AIMessage("function shout(s: string): string { return s.toUpperCase(); }"));
    const codegen = new CodeGeneratorSandbox({ generator: fromChatModel(model), sandbox, language: "typescript" });
    const first = await codegen.generateAndInstantiate("greet(name)");
    expect(first.files["main.ts"]).toContain("function greet(name: string)");
    expect(await first.call("greet", "Alice")).toBe("Hello, Alice!");
    const second = await codegen.generateAndInstantiate("shout(s)");
    expect(first.disposed).toBe(true);
    expect(await second.call("shout", "hi")).toBe("HI");
    expect(codegen.instance).toBe(second);
    await codegen.cleanup();
  });

  it("rejects bad options and arguments with clear errors", async () => {
    expect(() => new CodeGeneratorSandbox({} as never)).toThrow(/Invalid option "generator"/);
    const generator = scripted().generator;
    expect(() => new CodeGeneratorSandbox({ generator, language: "ruby" as never })).toThrow(/Invalid option "language"/);
    expect(() => new CodeGeneratorSandbox({ generator, globalSettings: [] as never })).toThrow(/Invalid option "globalSettings"/);
    expect(() => new CodeGeneratorSandbox({ generator, repairAttempts: -1 } as never)).toThrow(/Invalid option "repairAttempts": CodeGeneratorSandbox has no option of this name/);
    expect(() => new CodeGeneratorSandbox({ generator, maxRetries: 1.5 })).toThrow(/Invalid option "maxRetries": got 1.5; expected a whole number from 0 to 20/);
    const codegen = new CodeGeneratorSandbox({ generator, sandbox });
    await expect(codegen.generateCode("")).rejects.toThrow(/Invalid option "task"/);
    await expect(codegen.generateCode("t", "style" as never)).rejects.toThrow(/Invalid option "descriptors"/);
  });

  it("maxRetries means repairs after the first attempt, as in the graph; repairAttempts is not an option", async () => {
    const none = new CodeGeneratorSandbox({ generator: scripted("nope(").generator, sandbox, maxRetries: 0 });
    expect(((await none.generateAndInstantiate("x").catch((e: unknown) => e)) as GeneratedCodeError).attempts).toBe(1);
    const two = scripted("nope(", "again(", ADD);
    const codegen = new CodeGeneratorSandbox({ generator: two.generator, sandbox, maxRetries: 2 });
    expect(await (await codegen.generateAndInstantiate("Create add(a, b, c)")).call("add", 1, 2, 3)).toBe(6);
    expect(two.requests).toHaveLength(3);
    await codegen.cleanup();
    // The default is the graph's: 2 repairs, so 3 attempts.
    const byDefault = new CodeGeneratorSandbox({ generator: scripted("nope(", "again(", "more(").generator, sandbox });
    expect(((await byDefault.generateAndInstantiate("x").catch((e: unknown) => e)) as GeneratedCodeError).attempts).toBe(DEFAULT_MAX_RETRIES + 1);
    expect(DEFAULT_MAX_RETRIES).toBe(2);
    expect(() => new CodeGeneratorSandbox({ generator: scripted().generator, sandbox, repairAttempts: 2 } as never)).toThrow(/Invalid option "repairAttempts": CodeGeneratorSandbox has no option of this name/);
  });

  it("reads one program per reply and repairs a reply without one with the reason", async () => {
    const { generator, requests } = scripted(
      "I would add the three numbers.",
      "The old line was:\n```js\nreturn a - b;\n```\nThe program:\n```js\n" + ADD + "```\nRun it:\n```bash\nnode main.js\n```",
    );
    const codegen = new CodeGeneratorSandbox({ generator, sandbox });
    const instance = await codegen.generateAndInstantiate("Create add(a, b, c)");
    expect(await instance.call("add", 1, 2, 3)).toBe(6);
    expect(instance.files["main.js"]).toBe(ADD.trim());
    expect(requests[1]!.task).toContain("status `no_program`");
    expect(requests[1]!.task).toContain("No program was found in the reply. Why: the reply is prose only");
    await codegen.cleanup();
  });

  it("type-checks TypeScript like the graph, with its globals declared, and repairs a type error", async () => {
    const { generator, requests } = scripted(
      'function price(net: number): string {\n  return net * (1 + globalParameters.vatRate);\n}',
      "function price(net: number): number {\n  return net * (1 + globalParameters.vatRate);\n}",
    );
    const codegen = new CodeGeneratorSandbox({ generator, sandbox, language: "typescript", globalParameters: { vatRate: 0.5 } });
    const instance = await codegen.generateAndInstantiate("price(net)");
    expect(await instance.call("price", 10)).toBe(15);
    expect(requests[1]!.task).toContain("status `type_error`");
    expect(requests[1]!.task).toContain("The code does not type-check. line 2:3 TS2322: Type 'number' is not assignable to type 'string'.");
    await codegen.cleanup();
    const failing = new CodeGeneratorSandbox({ generator: scripted("const n: number = 'x';").generator, sandbox, language: "typescript", maxRetries: 0 });
    const error = await failing.generateAndInstantiate("x").catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/did not pass validation after 1 attempt\(s\): type_error: line 1:7 TS2322/);
  }, 60_000);
});

describe("CodeGeneratorSandbox: what the generated code defines", () => {
  it("code that defines none of the functions the task names goes to repair with that reason", async () => {
    const { generator, requests } = scripted("function sum(a, b, c) {\n  return a + b + c;\n}\n", ADD);
    const codegen = new CodeGeneratorSandbox({ generator, sandbox });
    const instance = await codegen.generateAndInstantiate("Create a function add(a, b, c) that returns the sum");
    expect(await instance.call("add", 1, 2, 3)).toBe(6);
    expect(requests).toHaveLength(2);
    // The graph's repair prompt: a load that defines none of them is a failed run.
    expect(requests[1]!.task).toContain("status `runtime_error`");
    expect(requests[1]!.task).toContain("The code defines none of the functions the task names (add); it defines: sum. Define them at the top level under exactly those names.");
    await codegen.cleanup();

    const stubborn = new CodeGeneratorSandbox({ generator: scripted("const x = 1;").generator, sandbox, maxRetries: 0 });
    const error = await stubborn.generateAndInstantiate("Write total(xs)").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GeneratedCodeError);
    expect((error as Error).message).toMatch(/failed while loading after 1 attempt\(s\): runtime_error: ReferenceError: The code defines none of the functions the task names \(total\); it defines: x\./);
  });

  it("runs the graph's loop: a program written again is a repeat, not loaded again, and the next prompt says so", async () => {
    const { generator, requests } = scripted("nope(", "nope(", ADD);
    const codegen = new CodeGeneratorSandbox({ generator, sandbox, maxRetries: 2 });
    const workersBefore = sandbox.liveWorkerCount();
    const instance = await codegen.generateAndInstantiate("Create add(a, b, c)");
    expect(await instance.call("add", 1, 2, 3)).toBe(6);
    expect(requests).toHaveLength(3);
    expect(requests[2]!.task).toContain("Your last program is the same as attempt 1, which failed");
    // Only the session of the program that loaded is kept.
    expect(sandbox.liveWorkerCount()).toBe(workersBefore + 1);
    await codegen.cleanup();

    const stuck = new CodeGeneratorSandbox({ generator: scripted('throw new Error("boom")', 'throw new Error("boom")').generator, sandbox, maxRetries: 1 });
    const error = (await stuck.generateAndInstantiate("x").catch((e: unknown) => e)) as GeneratedCodeError;
    // The last attempt is the repeat; the error reports the run it repeated.
    expect(error).toBeInstanceOf(GeneratedCodeError);
    expect(error.attempts).toBe(2);
    expect(error.phase).toBe("instantiate");
    expect(error.message).toMatch(/failed while loading after 2 attempt\(s\): runtime_error: Error: boom/);
    expect(sandbox.liveWorkerCount()).toBe(workersBefore);
  });

  it("a backend that fails ends the generation with its own error, after one call", async () => {
    let calls = 0;
    const generator = fromAsyncFunction(() => {
      calls += 1;
      throw new Error("model server down");
    }, { name: "flaky", modelRetry: { maxRetries: 0 } });
    const codegen = new CodeGeneratorSandbox({ generator, sandbox });
    const error = await codegen.generateAndInstantiate("Create add(a, b, c)").catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/The code generator backend "flaky" failed: model server down/);
    expect(calls).toBe(1);
  });

  it("a failed regeneration leaves the working instance alive and current", async () => {
    const { generator } = scripted(ADD, "nope(", "still nope(");
    const codegen = new CodeGeneratorSandbox({ generator, sandbox, maxRetries: 1 });
    const working = await codegen.generateAndInstantiate("Create add(a, b, c)");
    await expect(codegen.generateAndInstantiate("Create mul(a, b)")).rejects.toThrow(GeneratedCodeError);
    expect(working.disposed).toBe(false);
    expect(codegen.instance).toBe(working);
    expect(await working.call("add", 1, 2, 3)).toBe(6);
    await codegen.cleanup();
    expect(working.disposed).toBe(true);
  });

  it("arrow functions and const f = function are callable by name, in JavaScript and TypeScript", async () => {
    const js = new CodeGeneratorSandbox({ generator: scripted("const add = (a, b) => a + b;\nlet twice = function (x) { return 2 * x; };\nfunction neg(x) { return -x; }").generator, sandbox });
    const instance = await js.generateAndInstantiate("Write add(a, b), twice(x) and neg(x)");
    expect((await instance.functionNames()).sort()).toEqual(["add", "neg", "twice"]);
    expect(await instance.call("add", 2, 3)).toBe(5);
    expect(await instance.functions.twice(4)).toBe(8);
    await js.cleanup();
    const ts = new CodeGeneratorSandbox({ generator: scripted("```ts\nconst greet = (name: string): string => `Hi ${name}`;\n```").generator, sandbox, language: "typescript" });
    expect(await (await ts.generateAndInstantiate("Write greet(name)")).call("greet", "Bo")).toBe("Hi Bo");
    await ts.cleanup();
  });
});
