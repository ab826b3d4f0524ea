import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../src/sandbox/index.js";
import { CodeGenerators } from "../../src/sdk/registry.js";
import { CodeGeneratorSandbox } from "../../src/sdk/code-generator-sandbox.js";
import { fromAsyncFunction } from "../../src/sdk/adapters.js";
import { DuplicateGeneratorError, UnknownGeneratorError } from "../../src/sdk/errors.js";
import { SandboxDisposedError } from "../../src/errors.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const calculator = fromAsyncFunction(
  () => "function add(x, y) { return x + y; }\nclass GeneratedPolicy {\n  eval(p, i, c) { return p.a * globalParameters.factor; }\n}\n",
);
const greeter = fromAsyncFunction(() => "function greet(name) { return `Hello, ${name}!`; }");

describe("CodeGenerators registry", () => {
  it("registers, lists, generates, instantiates and executes by name", async () => {
    const generators = new CodeGenerators({ globalParameters: { factor: 3 }, sandbox });
    expect(generators.register("calc", calculator)).toBeInstanceOf(CodeGeneratorSandbox);
    generators.register("greet", greeter, { language: "javascript" });
    expect(Object.keys(generators.list())).toEqual(["calc", "greet"]);

    const files = await generators.generate("greet", "Generate greet(name)");
    expect(files["main.js"]).toContain("function greet(name)");

    const calc = await generators.generateAndInstantiate<{ add(x: number, y: number): number }>("calc", "Define add(x, y)");
    expect(await calc.call("add", 5, 7)).toBe(12);
    expect(await generators.executeFunction("calc", { a: 4 }, {}, {})).toBe(12);
    const greet = await generators.generateAndInstantiate("greet", "Generate greet(name)");
    expect(await greet.call("greet", "Alice")).toBe("Hello, Alice!");

    await generators.cleanup("calc");
    expect(calc.disposed).toBe(true);
    expect(greet.disposed).toBe(false);
    await expect(generators.executeFunction("calc", {}, {}, {})).rejects.toThrow(SandboxDisposedError);
    await generators.cleanup();
    expect(greet.disposed).toBe(true);
  });

  it("gives clear errors for duplicate and unknown names", async () => {
    const generators = new CodeGenerators({ sandbox });
    generators.register("openai", calculator);
    expect(() => generators.register("openai", greeter)).toThrow(DuplicateGeneratorError);
    expect(() => generators.register("openai", greeter)).toThrow(/already registered as "openai"/);
    expect(() => generators.register("", greeter)).toThrow(/Invalid option "name"/);
    const unknown = await generators.generate("grpc", "x").catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(UnknownGeneratorError);
    expect((unknown as Error).message).toBe('No code generator is registered as "grpc". Registered: "openai". Call register("grpc", generator) first.');
    await expect(generators.generateAndInstantiate("grpc", "x")).rejects.toThrow(UnknownGeneratorError);
    await expect(generators.executeFunction("grpc")).rejects.toThrow(UnknownGeneratorError);
    await expect(generators.cleanup("grpc")).rejects.toThrow(UnknownGeneratorError);
    await generators.unregister("openai");
    expect(() => generators.get("openai")).toThrow(/Registered: none/);
  });
});
