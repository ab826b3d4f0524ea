/**
 * No front door shows the model an internal name or a line of the wrapper around its program:
 * failing runs (syntax and runtime errors, forbidden imports, escapes tried and refused, limits)
 * in both languages, through `runCode`, the `execute_code` tool, MCP `run_code` and
 * `CodeGenSandbox`'s `node` / `python3`, never say `__codegen` or `_cs_`, and the line an error
 * names is the program's own. The Python hostile corpus (test/sandbox/python/hostile-programs.ts,
 * the programs that reach past the interpreter's memory) goes through `runCode` too. Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { ToolMessage } from "@langchain/core/messages";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import type { Language } from "../../src/sandbox/types.js";
import { createCodeInterpreterTool, disposeCodeInterpreterTool } from "../../src/tools/code-interpreter-tool.js";
import { createMcpServer, type SandboxMcpServer } from "../../src/mcp/index.js";
import { CodeGenSandbox } from "../../src/deepagents/index.js";
import { HOSTILE_PROGRAMS } from "../sandbox/python/hostile-programs.js";

/** What must never reach a model: our globals, host functions and Python helpers. */
const INTERNAL = /__codegen|_cs_/;

interface FailingProgram {
  name: string;
  language: Language;
  code: string;
  /** The program's own line the error is on, when the error names one. */
  line?: number;
}

const js = (name: string, code: string, line?: number): FailingProgram => ({ name, language: "javascript", code, ...(line === undefined ? {} : { line }) });
const py = (name: string, code: string, line?: number): FailingProgram => ({ name, language: "python", code, ...(line === undefined ? {} : { line }) });

const CORPUS: FailingProgram[] = [
  js("require of fs", "require('fs')", 1),
  js("import of child_process on line 2", "const a = 1;\nimport('child_process')", 2),
  js("an undefined name", "undefinedVar + 1", 1),
  js("a thrown error on line 3", "const a = 1;\nconst b = 2;\nthrow new Error('boom ' + (a + b))", 3),
  js("a syntax error", "let x = ;", 1),
  js("a TypeError in a function", "function f(o) {\n  return o.x.y;\n}\nf({})", 2),
  js("process.exit in a program (the shell has its own process)", "process.exit(1)"),
  js("require reached through a computed name", "globalThis['req' + 'uire']('fs')", 1),
  js("import() hidden in eval", "await eval('import(\"fs\")')"),
  js("constructor chain to Function", "const F = (() => {}).constructor;\nF('return process')().exit(1)"),
  js("the host's globals by name", "Object.keys(globalThis).filter((k) => k.startsWith('__')).map((k) => globalThis[k]).join(',') + undefinedAfter", 1),
  js("a stack trace printed by the program", "function deep() { throw new Error('deep'); }\ntry { deep() } catch (e) { console.log(e.stack); }\nnull.x"),
  js("infinite recursion", "function r() { return r() + 1; }\nr()"),
  py("import of a missing module", "import numpy", 1),
  py("an undefined name", "x = 1\nprint(y)", 2),
  py("ZeroDivisionError in a function", "def f(x):\n    return x / 0\n\nf(1)", 2),
  py("a syntax error", "def f(:\n    pass", 1),
  py("os.system", "import os\nos.system('ls')", 2),
  py("subprocess", "import subprocess\nsubprocess.run(['ls'])", 1),
  py("a raised error on line 3", "a = 1\nb = 2\nraise ValueError('bad ' + str(a + b))", 3),
  py("traceback printed by the program", "import traceback\ntry:\n    1/0\nexcept Exception:\n    traceback.print_exc()\nraise KeyError('k')"),
  py("the interpreter's own globals", "print([k for k in globals()])\nraise RuntimeError(str([k for k in dir() if k.startswith('_')]))"),
  py("infinite recursion", "def r():\n    return r() + 1\nr()"),
];

/** Every text of a failing result a model could read. */
const texts = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

const sandbox = createSandbox({ poolSize: 1 });
const servers: SandboxMcpServer[] = [];
let shell: CodeGenSandbox;
let mcp: Client;
beforeAll(async () => {
  shell = await CodeGenSandbox.create();
  const server = createMcpServer({ sandbox });
  servers.push(server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  mcp = new Client({ name: "sweep", version: "1" });
  await mcp.connect(clientSide);
}, 120_000);
afterAll(async () => {
  await mcp?.close();
  await Promise.all(servers.map((s) => s.close()));
  await shell?.close();
  await sandbox.dispose();
});

describe("no internal name and no wrapper line in what any front door returns", { timeout: 300_000 }, () => {
  for (const language of ["javascript", "python"] as const) {
    it(`${language}: runCode, execute_code, MCP run_code and the shell's ${language === "python" ? "python3" : "node"}`, async () => {
      const tool = createCodeInterpreterTool({ sandbox, languages: [language], timeoutMs: 5000 });
      const leaks: string[] = [];
      const wrongLines: string[] = [];
      try {
        for (const program of CORPUS.filter((p) => p.language === language)) {
          const result = await sandbox.run(program.code, { language, timeoutMs: 5000 });
          expect(result.status, program.name).not.toBe("success");
          const seen: Record<string, string> = { runCode: texts(result.error) + result.stderr + result.stdout };
          if (program.line !== undefined && result.error?.line !== program.line) wrongLines.push(`runCode ${program.name}: line ${result.error?.line}`);

          const message = (await tool.invoke({ type: "tool_call", id: `sweep-${program.name}`, name: "execute_code", args: { language, code: program.code } })) as ToolMessage;
          seen.execute_code = texts(message.content);

          const viaMcp = await mcp.callTool({ name: "run_code", arguments: { language, code: program.code } });
          seen.run_code = texts(viaMcp.content) + texts(viaMcp.structuredContent);

          const file = language === "python" ? "/sweep.py" : "/sweep.js";
          await shell.uploadFiles([[file, new TextEncoder().encode(program.code)]]);
          const ran = await shell.execute(`${language === "python" ? "python3" : "node"} ${file}`);
          seen.shell = ran.output;
          expect(ran.exitCode, `${program.name}: ${ran.output}`).not.toBe(0);
          if (program.line !== undefined && language === "javascript" && !ran.output.includes(`${file.slice(1)}:${program.line}`) && !ran.output.includes(`line ${program.line}`)) {
            wrongLines.push(`shell ${program.name}: ${ran.output}`);
          }

          for (const [door, text] of Object.entries(seen)) if (INTERNAL.test(text)) leaks.push(`${door} / ${program.name}: ${INTERNAL.exec(text)![0]} in ${text.slice(Math.max(0, INTERNAL.exec(text)!.index - 80), INTERNAL.exec(text)!.index + 80)}`);
        }
      } finally {
        await disposeCodeInterpreterTool(tool);
      }
      expect(leaks).toEqual([]);
      expect(wrongLines).toEqual([]);
    });
  }

  it("the shell's one-line node program: no internal global named, line 1 (not the wrapper's line 2)", async () => {
    const ran = await shell.execute(`node -e "require('fs')"`);
    expect(ran.output).not.toMatch(INTERNAL);
    expect(ran.output).toContain("Remove the require on line 1");
    expect(ran.output).toMatch(/at \[eval\]:1\n/);
    // The program's own stack trace counts lines as the program does.
    const stack = await shell.execute(`node -e "console.log(new Error('e').stack)"`);
    expect(stack.output).toMatch(/:1:\d+\)/);
  });

  it("Python's hostile corpus (what reaches past the interpreter) through runCode: failing runs name no internal helper", async () => {
    const leaks: string[] = [];
    // The programs that reach past the interpreter's memory (JavaScript, files, the runner): the
    // ones whose failures come from the engine's own guards (the in-place ones only change
    // interpreter state, and the reset test runs them all).
    for (const program of HOSTILE_PROGRAMS.filter((p) => p.reset !== "in place")) {
      const result = await sandbox.run(program.code, { language: "python", timeoutMs: program.timeoutMs ?? 10_000 });
      if (result.status === "success") continue;
      const text = texts(result.error) + result.stderr;
      if (INTERNAL.test(text)) leaks.push(`${program.name}: ${INTERNAL.exec(text)![0]}`);
    }
    expect(leaks).toEqual([]);
  });
});
