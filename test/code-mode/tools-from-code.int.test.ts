/**
 * Tools callable from code: `tools.<name>(...)` in JavaScript, TypeScript and Python, inputs
 * validated by the tool's schema on the host, errors as name + message only, the caller's
 * callbacks and signal, budgets, and the signatures the model reads.
 */
import { afterAll, describe, expect, it } from "vitest";
import { tool } from "@langchain/core/tools";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Serialized } from "@langchain/core/load/serializable";
import { z } from "zod";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import {
  codeInterpreterToolReady,
  createCodeInterpreterTool,
  type ExecuteCodeArtifact,
} from "../../src/tools/code-interpreter-tool.js";
import { codeModeToolSignatures } from "../../src/code-mode/call/describe.js";
import { InvalidOptionError } from "../../src/errors.js";

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.dispose());

const weatherCalls: string[] = [];
const getWeather = tool(
  async ({ city, unit }) => {
    weatherCalls.push(city);
    return `${city}: 21 ${unit ?? "C"}`;
  },
  {
    name: "get_weather",
    description: "Current weather of a city.",
    schema: z.object({ city: z.string().describe("City name"), unit: z.enum(["C", "F"]).optional() }),
  },
);
const add = tool(async ({ a, b }) => ({ sum: a + b, parts: [a, b] }), {
  name: "add",
  description: "Adds two numbers.",
  schema: z.object({ a: z.number(), b: z.number() }),
});
const failing = tool(
  async () => {
    const error = new Error("database at 10.0.0.7 refused the connection");
    error.name = "ConnectionError";
    throw error;
  },
  { name: "lookup", description: "Looks a record up.", schema: z.object({ id: z.string() }) },
);

type Invokable = { invoke(input: unknown, config?: object): Promise<unknown> };
let nextId = 0;
/** Invokes the tool as a model's tool call would, and returns the ToolMessage's content and artifact. */
async function call(codeTool: Invokable, args: { language: string; code: string }, config?: object): Promise<[string, ExecuteCodeArtifact]> {
  const message = (await codeTool.invoke({ name: "execute_code", args, id: `call-${nextId++}`, type: "tool_call" }, config)) as {
    content: string;
    artifact: ExecuteCodeArtifact;
  };
  return [message.content, message.artifact];
}

describe("tools from code", { timeout: 120_000 }, () => {
  const codeTool = createCodeInterpreterTool({ sandbox, tools: [getWeather, add, failing] });

  it("JavaScript: calls tools with await, gets strings and JSON values back", async () => {
    const [content, artifact] = (await call(codeTool, {
      language: "javascript",
      code: "const w = await tools.get_weather({ city: 'Paris' });\nconst s = await tools.add({ a: 2, b: 3 });\nconsole.log(w, s.sum, s.parts.length);\ns",
    }));
    expect(artifact.result.status).toBe("success");
    expect(artifact.result.stdout).toBe("Paris: 21 C 5 2\n");
    expect(artifact.result.result).toEqual({ sum: 5, parts: [2, 3] });
    expect(artifact.toolCalls).toEqual([
      { name: "get_weather", input: { city: "Paris" }, output: "Paris: 21 C" },
      { name: "add", input: { a: 2, b: 3 }, output: { sum: 5, parts: [2, 3] } },
    ]);
    expect(content).toContain("status: success");
  });

  it("TypeScript: the same namespace, line numbers stay the user's", async () => {
    const [, artifact] = (await call(codeTool, {
      language: "typescript",
      code: "const cities: string[] = ['Oslo', 'Rome'];\nconst out: string[] = [];\nfor (const city of cities) out.push(String(await tools.get_weather({ city })));\nconsole.log(out.join('; '));\nnull!.x;",
    }));
    expect(artifact.result.stdout).toBe("Oslo: 21 C; Rome: 21 C\n");
    expect(artifact.result.status).toBe("runtime_error");
    expect(artifact.result.error?.line).toBe(5);
  });

  it("a bad input is an exception in the guest with the validation message; the tool is not called", async () => {
    const before = weatherCalls.length;
    const [, artifact] = (await call(codeTool, {
      language: "javascript",
      code: "try { await tools.get_weather({ city: 42 }) } catch (e) { console.log(e.name + ': ' + e.message) }",
    }));
    expect(artifact.result.status).toBe("success");
    expect(artifact.result.stdout).toMatch(/^ToolInputError: Received tool input did not match expected schema.*expected string, received number.*city/);
    expect(weatherCalls.length).toBe(before);
  });

  it("a failing tool reaches the guest as name + message only (no host stack)", async () => {
    const [content, artifact] = (await call(codeTool, {
      language: "javascript",
      code: "let seen;\ntry { await tools.lookup({ id: 'x' }) } catch (e) { seen = { name: e.name, message: e.message, stack: String(e.stack) } }\nseen",
    }));
    const seen = artifact.result.result as { name: string; message: string; stack: string };
    expect(seen.name).toBe("ConnectionError");
    expect(seen.message).toBe("database at 10.0.0.7 refused the connection");
    expect(seen.stack).not.toMatch(/node_modules|\/work\/|file:\/\/|tool-bridge/);
    expect(artifact.toolCalls).toEqual([{ name: "lookup", input: { id: "x" }, error: { name: "ConnectionError", message: "database at 10.0.0.7 refused the connection" } }]);
    expect(content).not.toContain("node_modules");
  });

  it("an uncaught tool error fails the run with that error", async () => {
    const [content, artifact] = (await call(codeTool, { language: "javascript", code: "await tools.lookup({ id: 'x' })" }));
    expect(artifact.result.status).toBe("runtime_error");
    expect(artifact.result.error?.name).toBe("ConnectionError");
    expect(content).toContain("ConnectionError: database at 10.0.0.7 refused the connection");
  });

  it("Python: await tools.name(**kwargs), bad input and failing tools raise", async () => {
    const [, artifact] = (await call(codeTool, {
      language: "python",
      code: [
        "w = await tools.get_weather(city='Lima', unit='F')",
        "s = await tools.add(a=1.5, b=2)",
        "print(w, s['sum'])",
        "try:",
        "    await tools.add(a='x', b=1)",
        "except Exception as e:",
        "    print('bad input:', 'ToolInputError' in str(e))",
        "try:",
        "    await tools.lookup(id='x')",
        "except Exception as e:",
        "    print('failed:', 'refused the connection' in str(e))",
        "s",
      ].join("\n"),
    }));
    expect(artifact.result.status).toBe("success");
    expect(artifact.result.stdout).toBe("Lima: 21 F 3.5\nbad input: True\nfailed: True\n");
    expect(artifact.result.result).toEqual({ sum: 3.5, parts: [1.5, 2] });
  });

  it("Python: the per-run budget of host calls holds (maxHostCalls)", async () => {
    const limited = createCodeInterpreterTool({ sandbox, tools: [add], maxHostCalls: 3, languages: ["python"] });
    const [, artifact] = (await call(limited, {
      language: "python",
      code: "done = 0\ntry:\n    for i in range(10):\n        await tools.add(a=i, b=1)\n        done += 1\nexcept Exception as e:\n    print(type(e).__name__)\ndone",
    }));
    expect(artifact.result.result).toBe(3);
    expect(artifact.toolCalls).toHaveLength(3);
  });

  it("JavaScript: the per-run budget of host calls holds (maxHostCalls)", async () => {
    const limited = createCodeInterpreterTool({ sandbox, tools: [add], maxHostCalls: 3, languages: ["javascript"] });
    const [, artifact] = await call(limited, {
      language: "javascript",
      code: "let done = 0;\ntry { for (let i = 0; i < 10; i++) { await tools.add({ a: i, b: 1 }); done++; } } catch (e) { console.log(e.name) }\ndone",
    });
    expect(artifact.result.result).toBe(3);
    expect(artifact.result.stdout).toBe("HostCallLimitError\n");
    expect(artifact.toolCalls).toHaveLength(3);
  });

  it("tools run as child runs of the code tool (callbacks) and get its signal", async () => {
    const starts: { name: string; parent?: string; run: string }[] = [];
    class Recorder extends BaseCallbackHandler {
      name = "recorder";
      override handleToolStart(tool: Serialized, _input: string, runId: string, parentRunId?: string, _tags?: string[], _metadata?: Record<string, unknown>, runName?: string) {
        starts.push({ name: runName ?? String(tool.id?.at(-1)), run: runId, ...(parentRunId ? { parent: parentRunId } : {}) });
      }
    }
    const seenSignals: (AbortSignal | undefined)[] = [];
    const probe = tool(
      async (_input, config) => {
        seenSignals.push(config?.signal);
        return "ok";
      },
      { name: "probe", description: "Probe.", schema: z.object({}) },
    );
    const traced = createCodeInterpreterTool({ sandbox, tools: [probe], languages: ["javascript"] });
    const controller = new AbortController();
    await call(traced, { language: "javascript", code: "await tools.probe({})" }, { callbacks: [new Recorder()], signal: controller.signal });
    const outer = starts.find((s) => s.name === "execute_code");
    const inner = starts.find((s) => s.name === "probe");
    expect(outer).toBeDefined();
    expect(inner?.parent).toBe(outer!.run);
    expect(seenSignals[0]).toBeInstanceOf(AbortSignal);
  });

  it("an aborted caller stops a slow tool and the run", async () => {
    let toolSawAbort = false;
    const slow = tool(
      async (_input, config) =>
        new Promise<string>((resolve) => {
          const timer = setTimeout(() => resolve("late"), 10_000);
          config?.signal?.addEventListener("abort", () => {
            toolSawAbort = true;
            clearTimeout(timer);
            resolve("stopped");
          });
        }),
      { name: "slow", description: "Slow.", schema: z.object({}) },
    );
    const slowTool = createCodeInterpreterTool({ sandbox, tools: [slow], languages: ["javascript"], timeoutMs: 30_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = performance.now();
    await call(slowTool, { language: "javascript", code: "await tools.slow({})" }, { signal: controller.signal }).catch(() => undefined);
    expect(toolSawAbort).toBe(true);
    expect(performance.now() - started).toBeLessThan(9_000);
  });

  it("the description lists TypeScript declarations and Python signatures generated from the schemas", async () => {
    await codeInterpreterToolReady(codeTool);
    expect(codeTool.description).toContain("interface GetWeatherInput");
    expect(codeTool.description).toMatch(/city: string/);
    expect(codeTool.description).toMatch(/unit\?: \("C" \| "F"\)|unit\?: "C" \| "F"/);
    expect(codeTool.description).toContain("get_weather(input: GetWeatherInput): Promise<unknown>;");
    expect(codeTool.description).toContain('async def get_weather(*, city: str, unit: Literal["C", "F"] = None) -> Any:');
    expect(codeTool.description).toContain("async def add(*, a: float, b: float) -> Any:");
    const jsOnly = await codeModeToolSignatures([add], ["javascript"]);
    expect(jsOnly).not.toContain("async def");
  });

  it("tool names that shadow built-ins of either language's namespace object work as tools", async () => {
    const names = ["constructor", "toString", "hasOwnProperty", "valueOf", "mro", "print", "tools", "files"];
    const shadowing = createCodeInterpreterTool({
      sandbox,
      tools: names.map((name) => tool(async () => `I am ${name}`, { name, description: name, schema: z.object({}) })),
    });
    const [, js] = await call(shadowing, { language: "javascript", code: `const out = []; for (const n of ${JSON.stringify(names)}) out.push(await tools[n]({})); out` });
    const [, py] = await call(shadowing, { language: "python", code: `out = []\nfor n in ${JSON.stringify(names)}:\n    out.append(await getattr(tools, n)())\nout` });
    const expected = names.map((n) => `I am ${n}`);
    expect(js.result.result).toEqual(expected);
    expect(py.result.result).toEqual(expected);
  });

  it("rejects tool names that are not identifiers and duplicate names", () => {
    const bad = tool(async () => "x", { name: "get-weather", description: "x", schema: z.object({}) });
    expect(() => createCodeInterpreterTool({ tools: [bad] })).toThrow(InvalidOptionError);
    expect(() => createCodeInterpreterTool({ tools: [add, add] })).toThrow(/distinct names/);
    expect(() => createCodeInterpreterTool({ persistence: "forever" as never })).toThrow(/"none".*"thread"/);
  });
});
