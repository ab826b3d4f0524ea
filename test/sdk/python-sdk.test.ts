import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../src/sandbox/index.js";
import { CodeGeneratorSandbox } from "../../src/sdk/code-generator-sandbox.js";
import { fromAsyncFunction } from "../../src/sdk/adapters.js";
import { UnknownFunctionError } from "../../src/sdk/errors.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const POLICY = [
  "def add(a, b, c):",
  "    return a + b + c",
  "",
  "def hyp(a, b):",
  "    import math",
  "    return math.hypot(a, b)",
  "",
  "class GeneratedPolicy:",
  "    def __init__(self, settings, parameters, state):",
  "        self.limit = settings['limit']",
  "    def eval(self, parameters, input_data, context):",
  "        return {'ok': input_data['x'] * parameters['scale'] <= self.limit, 'user': context['user']}",
].join("\n");

// Python starts a Deno process and Pyodide: seconds, more on a busy machine.
describe("CodeGeneratorSandbox with Python (Pyodide sessions)", { timeout: 180_000 }, () => {
  it("writes main.py, dependencies.json and requirements.txt; instantiates; calls; evaluates", async () => {
    const codes = ["import math\nimport numpy as np\n\ndef norm(v):\n    return float(np.linalg.norm(v))\n", POLICY];
    const codegen = new CodeGeneratorSandbox({
      generator: fromAsyncFunction(() => codes.shift()!),
      sandbox,
      language: "python",
      globalSettings: { limit: 10 },
    });
    const files = await codegen.generateCode("norm(v) with numpy");
    expect(Object.keys(files).sort()).toEqual(["dependencies.json", "main.py", "requirements.txt"]);
    expect(JSON.parse(files["dependencies.json"]!).dependencies).toMatchObject([
      { name: "math", available: true },
      { name: "numpy", available: false },
    ]);
    expect(files["requirements.txt"]!.split("\n").filter((l) => l && !l.startsWith("#"))).toEqual(["numpy"]);

    const instance = await codegen.generateAndInstantiate("add, hyp and a policy");
    expect(instance.files["main.py"]).toBe(POLICY);
    expect(await instance.functionNames()).toEqual(["add", "hyp"]);
    expect(await instance.call("add", 10, 20, 30)).toBe(60);
    expect(await instance.functions.hyp(3, 4)).toBe(5);
    expect(await codegen.executeFunction({ scale: 2 }, { x: 3 }, { user: "ana" })).toEqual({ ok: true, user: "ana" });
    expect(await codegen.executeFunction({ scale: 4 }, { x: 3 }, { user: "bo" })).toEqual({ ok: false, user: "bo" });
    await expect(instance.call("nope")).rejects.toThrow(UnknownFunctionError);
    await codegen.cleanup();
    expect(instance.disposed).toBe(true);
  });
});

describe("CodeGeneratorSandbox with Python: a time-limited call", { timeout: 180_000 }, () => {
  it("a timeout the interpreter notices keeps the session and its state (JavaScript ends it)", async () => {
    const code = "count = 0\n\ndef bump():\n    global count\n    count += 1\n    return count\n\ndef spin():\n    while True:\n        pass\n";
    const codegen = new CodeGeneratorSandbox({ generator: fromAsyncFunction(() => code), sandbox, language: "python", limits: { timeoutMs: 3000 }, maxRetries: 0 });
    const instance = await codegen.generateAndInstantiate("Write bump() and spin()");
    expect(await instance.call("bump")).toBe(1);
    const spun = await instance.invoke("spin");
    expect(spun.status).toBe("timeout");
    expect(instance.disposed).toBe(false);
    expect(await instance.call("bump")).toBe(2);
    await codegen.cleanup();
  });
});
