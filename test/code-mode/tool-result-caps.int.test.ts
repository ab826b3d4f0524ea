/**
 * Tool results passed to the guest are capped (per result: `maxHostResultBytes`; per cell, inputs
 * and results together: `maxCellRecordBytes`): past a cap the guest gets a `HostResultLimitError`
 * naming the option, and neither the log nor the artifact keeps what the guest never received
 * (in Python too, whose engine also refuses values over the run's `maxResultBytes`: code mode
 * never lets that cap be the smaller). A 50 MB result is contained in a child process.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tool } from "@langchain/core/tools";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createAgent } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import { createCodeInterpreterTool, disposeCodeInterpreterTool, type ExecuteCodeArtifact } from "../../src/tools/code-interpreter-tool.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import { scriptedCodeModel } from "./helpers.js";

const KiB = 1024;
const sandbox = createSandbox({ poolSize: 1 });
beforeAll(() => sandbox.warm(["javascript", "python"]), 120_000);
afterAll(() => sandbox.dispose());

const sized = tool(async ({ bytes }) => "y".repeat(bytes), {
  name: "sized",
  description: "Returns a string of `bytes` characters.",
  schema: z.object({ bytes: z.number().int() }),
});
const cyclic = tool(
  async ({ kind }) => {
    if (kind === "cycle") {
      const value: Record<string, unknown> = { a: 1 };
      value.self = value;
      return value;
    }
    let deep: unknown = "bottom";
    for (let i = 0; i < 5000; i++) deep = { d: deep };
    return deep;
  },
  { name: "odd", description: "Returns an odd value.", schema: z.object({ kind: z.enum(["cycle", "deep"]) }) },
);
const echo = tool(async ({ text }) => text.length, { name: "echo_length", description: "Length of text.", schema: z.object({ text: z.string() }) });

type Invokable = { invoke(input: unknown): Promise<unknown> };
let nextId = 0;
async function run(codeTool: Invokable, language: string, code: string): Promise<ExecuteCodeArtifact> {
  const message = (await codeTool.invoke({ name: "execute_code", args: { language, code }, id: `caps-${nextId++}`, type: "tool_call" })) as { artifact: ExecuteCodeArtifact };
  return message.artifact;
}

describe("caps on tool results from code", { timeout: 120_000 }, () => {
  const codeTool = createCodeInterpreterTool({ sandbox, tools: [sized, cyclic, echo], maxHostResultBytes: 100 * KiB, maxCellRecordBytes: 250 * KiB });
  afterAll(() => disposeCodeInterpreterTool(codeTool));

  it("JavaScript: a result over maxHostResultBytes is an error naming it, and is not kept", async () => {
    const artifact = await run(codeTool, "javascript", "let e;\ntry { await tools.sized({ bytes: 200000 }) } catch (err) { e = err.name + ': ' + err.message }\ne");
    expect(artifact.result.result).toMatch(/^HostResultLimitError: tools\.sized returned at least 195\.3 KiB of JSON, over the 100\.0 KiB cap per tool result \(maxHostResultBytes\); it was not passed to the code/);
    expect(artifact.toolCalls).toEqual([{ name: "sized", input: { bytes: 200000 }, error: { name: "HostResultLimitError", message: expect.any(String) } }]);
    expect(JSON.stringify(artifact).length).toBeLessThan(4 * KiB);
  });

  it("JavaScript: the per-cell cap counts every call; the call past it is refused and not kept", async () => {
    const code = "const got = [];\nfor (let i = 0; i < 5; i++) { try { got.push((await tools.sized({ bytes: 90000 })).length) } catch (e) { got.push(e.name); break } }\ngot";
    const artifact = await run(codeTool, "javascript", code);
    expect(artifact.result.result).toEqual([90000, 90000, "HostResultLimitError"]);
    expect(artifact.toolCalls?.[2]?.error?.message).toMatch(/over the 250\.0 KiB cap per cell \(maxCellRecordBytes\)/);
    expect(artifact.toolCalls?.[2]?.output).toBeUndefined();
    expect(JSON.stringify(artifact.toolCalls).length).toBeLessThan(250 * KiB);
  });

  it("cyclic and too deep results are errors in the guest; the artifact shows a large input by its size", async () => {
    const code = [
      "const out = [];",
      "for (const kind of ['cycle', 'deep']) { try { await tools.odd({ kind }) } catch (e) { out.push(e.name + ': ' + e.message) } }",
      "out.push(await tools.echo_length({ text: 'z'.repeat(150000) }));",
      "out",
    ].join("\n");
    const artifact = await run(codeTool, "javascript", code);
    const [cycle, deep, length] = artifact.result.result as [string, string, number];
    expect(cycle).toMatch(/^ToolOutputError: tools\.odd returned a value that is not JSON \(.*circular/i);
    expect(deep).toBe("ToolOutputError: tools.odd returned a value that is not JSON (it is nested deeper than 100 levels)");
    expect(length).toBe(150000);
    expect(artifact.toolCalls?.[2]).toEqual({ name: "echo_length", input: null, inputBytes: JSON.stringify({ text: "z".repeat(150000) }).length, output: 150000 });
  });

  it("Python: the same caps; a value over a small maxHostResultBytes is refused by code mode, named, and never recorded", async () => {
    const artifact = await run(
      codeTool,
      "python",
      "out = []\nfor n in (1000, 200000):\n    try:\n        out.append(len(await tools.sized(bytes=n)))\n    except Exception as e:\n        out.append(str(e))\nout",
    );
    const [small, big] = artifact.result.result as [number, string];
    expect(small).toBe(1000);
    expect(big).toMatch(/HostResultLimitError: tools\.sized returned at least 195\.3 KiB of JSON, over the 100\.0 KiB cap per tool result \(maxHostResultBytes\)/);
    const tight = createCodeInterpreterTool({ sandbox, tools: [sized], languages: ["python"], maxHostResultBytes: 500 });
    const refused = await run(tight, "python", "try:\n    await tools.sized(bytes=1000)\nexcept Exception as e:\n    r = str(e)\nr");
    expect(refused.result.result).toMatch(/HostResultLimitError: tools\.sized returned at least 1000 B of JSON, over the 500 B cap per tool result \(maxHostResultBytes\)/);
    expect(refused.toolCalls).toEqual([{ name: "sized", input: { bytes: 1000 }, error: { name: "HostResultLimitError", message: expect.any(String) } }]);
    await disposeCodeInterpreterTool(tight);
  });

  it("a refused result and a hashed input replay exactly in a fresh process's restore", async () => {
    const cell1 = "const n = await tools.echo_length({ text: 'q'.repeat(150000) });\nlet refused;\ntry { await tools.sized({ bytes: 200000 }) } catch (e) { refused = e.name }";
    const cell2 = "[n, refused]";
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "caps-replay" } };
    const options = { sandbox, tools: [sized, echo], languages: ["javascript" as const], maxHostResultBytes: 100 * KiB };
    const first = codeModeMiddleware(options);
    await createAgent({ model: scriptedCodeModel({ code: cell1 }, "ok"), middleware: [first], checkpointer }).invoke({ messages: [new HumanMessage("1")] }, config);
    // A new middleware (no live session): the thread is rebuilt from the log, answered from the recording.
    const second = codeModeMiddleware(options);
    const state = await createAgent({ model: scriptedCodeModel({ code: cell2 }, "ok"), middleware: [second], checkpointer }).invoke({ messages: [new HumanMessage("2")] }, config);
    const last = state.messages.filter((m: BaseMessage) => ToolMessage.isInstance(m)).at(-1) as ToolMessage & { artifact: ExecuteCodeArtifact };
    expect(last.artifact.restore).toMatchObject({ replayed: 1, failures: [] });
    expect(last.artifact.result.result).toEqual([150000, "HostResultLimitError"]);
    for (const m of [first, second]) await disposeCodeInterpreterTool(m.tools![0]!);
  });

  it("a tool returning 50 MB, 6 times per cell in JavaScript and Python: the host process survives with no peak growth, the guest gets the named error, nothing is kept", async () => {
    const script = fileURLToPath(new URL("./fixtures/huge-tool-result.mjs", import.meta.url));
    const child = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect({ code, stderr: stderr.slice(0, 2000) }).toEqual({ code: 0, stderr: expect.any(String) });
    const report = JSON.parse(stdout) as {
      out: Record<string, { status: string; seen: string[]; recorded: { output?: unknown; error?: { name: string } }[]; artifactBytes: number }>;
      peakBeforeBytes: number;
      peakAfterBytes: number;
    };
    for (const language of ["javascript", "python"]) {
      const cell = report.out[language]!;
      expect(cell.status).toBe("success");
      expect(cell.seen).toHaveLength(6);
      for (const seen of cell.seen) expect(seen).toMatch(/HostResultLimitError: tools\.dump returned at least 47\.7 MiB of JSON, over the 1\.0 MiB cap per tool result \(maxHostResultBytes\)/);
      expect(cell.recorded.every((r) => r.output === undefined && r.error?.name === "HostResultLimitError")).toBe(true);
      expect(cell.artifactBytes).toBeLessThan(8 * KiB);
    }
    // The documented bound: 2 × the caps (1 MiB + 8 MiB) + 64 MiB above the peak before the attack.
    expect(report.peakAfterBytes - report.peakBeforeBytes).toBeLessThan((2 * 9 + 64) * 1024 * KiB);
  });
});
