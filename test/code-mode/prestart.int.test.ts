/**
 * Session engines started ahead (docs/code-mode.md, "Restore time"): `sandbox.prestartSession`
 * holds one ready worker (JavaScript/TypeScript) or process (Python) per language for the next
 * session, and the middleware starts the thread's engines before each model call, so that a
 * restart's first code call restores without waiting for one to start. Only time is saved: the
 * session that takes the engine behaves as any other, and nothing is held past `dispose`.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { ToolMessage } from "@langchain/core/messages";
import { createSandbox } from "../../src/sandbox/sandbox.js";
import type { Language, Sandbox } from "../../src/sandbox/types.js";
import { codeModeMiddleware } from "../../src/tools/code-mode-middleware.js";
import { disposeCodeInterpreterTool, type ExecuteCodeArtifact } from "../../src/tools/code-interpreter-tool.js";
import { InvalidOptionError } from "../../src/errors.js";
import { artifact, ask, scriptedCodeModel } from "./helpers.js";

const sandboxes: Sandbox[] = [];
afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.dispose()));
});

function newSandbox() {
  const sandbox = createSandbox({ poolSize: 1 });
  sandboxes.push(sandbox);
  return sandbox;
}

describe("sandbox.prestartSession", () => {
  it("holds one ready worker per language, which the next session of that language takes", async () => {
    const sandbox = newSandbox();
    await sandbox.prestartSession("javascript");
    expect(sandbox.liveWorkerCount()).toBe(1);
    // A second call while one is held starts nothing.
    await sandbox.prestartSession("javascript");
    expect(sandbox.liveWorkerCount()).toBe(1);
    await sandbox.prestartSession("typescript");
    expect(sandbox.liveWorkerCount()).toBe(2);

    const session = await sandbox.createSession({ language: "javascript", memoryLimitBytes: 32 * 1024 * 1024 });
    // It took the held worker: no third thread.
    expect(sandbox.liveWorkerCount()).toBe(2);
    await session.run("function twice(x) { return 2 * x; }");
    expect((await session.call("twice", [21])).result).toBe(42);
    // Its memory limit is the session's own, set when it opened.
    // (one allocation past it: a loop of small ones can reach the time limit first on a loaded machine)
    expect(["memory_limit", "runtime_error"]).toContain((await session.run("new ArrayBuffer(40 << 20).byteLength")).status);

    const ts = await sandbox.createSession({ language: "typescript" });
    expect((await ts.run("const n: number = 6; n * 7")).result).toBe(42);
    expect(sandbox.liveWorkerCount()).toBe(1);
    await ts.dispose();
    expect(sandbox.liveWorkerCount()).toBe(0);
  });

  it("hostile: a held worker goes to one session only, and starts empty whatever other sessions ran", async () => {
    const sandbox = newSandbox();
    for (const language of ["javascript", "python"] as const) {
      // A hostile session runs first and leaves what it can in its realm.
      const hostile = await sandbox.createSession({ language });
      const leave =
        language === "python"
          ? "import builtins, sys\nbuiltins.planted = 1\nsys.modules['planted'] = sys"
          : "globalThis.planted = 1; Object.prototype.planted = 1; Array.prototype.push = () => 0;";
      expect((await hostile.run(leave)).status).toBe("success");
      await sandbox.prestartSession(language);
      // Two sessions open at once: one takes the held engine, the other starts its own.
      const [a, b] = await Promise.all([sandbox.createSession({ language }), sandbox.createSession({ language })]);
      const probe = language === "python" ? "import builtins, sys\n[hasattr(builtins, 'planted'), 'planted' in sys.modules, 'mark' in globals()]" : "[typeof planted, typeof ({}).planted, typeof globalThis.mark]";
      const clean = language === "python" ? [false, false, false] : ["undefined", "undefined", "undefined"];
      await a.run(language === "python" ? "mark = 1" : "globalThis.mark = 1;");
      expect((await b.run(probe)).result).toEqual(clean);
      expect((await a.run(probe)).result).toEqual(language === "python" ? [false, false, true] : ["undefined", "undefined", "number"]);
      await Promise.all([hostile.dispose(), a.dispose(), b.dispose()]);
    }
    expect(sandbox.liveWorkerCount()).toBe(0);
  }, 120_000);

  it("is disposed with the sandbox, and names the option on bad input", async () => {
    const sandbox = newSandbox();
    await sandbox.prestartSession("typescript");
    expect(sandbox.liveWorkerCount()).toBe(1);
    await expect(sandbox.prestartSession("ruby" as Language)).rejects.toThrow(InvalidOptionError);
    await sandbox.dispose();
    expect(sandbox.liveWorkerCount()).toBe(0);
    await expect(sandbox.prestartSession("javascript")).rejects.toThrow(/disposed/);
  });

  it("a Python session takes the process started ahead and runs as any other", async () => {
    const sandbox = newSandbox();
    await sandbox.prestartSession("python");
    const session = await sandbox.createSession({ language: "python" });
    await session.run("def twice(x):\n    return 2 * x\nstate = [1]");
    expect((await session.call("twice", [21])).result).toBe(42);
    expect((await session.run("state.append(2)\nstate")).result).toEqual([1, 2]);
    await session.dispose();
  }, 120_000);
});

describe("code mode starts a thread's engines before each model call", () => {
  /** The sandbox, with the languages `prestartSession` was called with. */
  function spied(sandbox: ReturnType<typeof createSandbox>) {
    const prestarted: Language[] = [];
    const spy = {
      run: sandbox.run.bind(sandbox),
      check: sandbox.check.bind(sandbox),
      createSession: sandbox.createSession.bind(sandbox),
      warm: sandbox.warm.bind(sandbox),
      dispose: sandbox.dispose.bind(sandbox),
      get disposed() {
        return sandbox.disposed;
      },
      prestartSession: (language: Language) => {
        prestarted.push(language);
        return sandbox.prestartSession(language);
      },
    } satisfies Sandbox;
    return { spy, prestarted };
  }

  it("after a restart, the first model call starts the worker the code call then restores in; a live session needs none", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "prestart-1" } };
    const first = newSandbox();
    const before = codeModeMiddleware({ sandbox: first, languages: ["javascript"] });
    const agent1 = createAgent({
      model: scriptedCodeModel({ code: "function area(w, h) { return w * h; }\nvar calls = 1;" }, { code: "calls += 1; area(2, 3)" }, "done"),
      middleware: [before],
      checkpointer,
    });
    await agent1.invoke(ask("define area"), config);

    // "Another process": a new sandbox and middleware, the same checkpoints.
    const second = newSandbox();
    const { spy, prestarted } = spied(second);
    const after = codeModeMiddleware({ sandbox: spy, languages: ["javascript"] });
    const agent2 = createAgent({
      model: scriptedCodeModel({ code: "calls += 1; [area(3, 4), calls]" }, { code: "calls" }, "done"),
      middleware: [after],
      checkpointer,
    });
    const state = await agent2.invoke(ask("use it"), config);
    expect(artifact(state).result.result).toBe(3);
    // The first model call found no live session and started one worker; the second model
    // call, after the code call, found the thread's session live and started nothing.
    expect(prestarted).toEqual(["javascript"]);
    const results = state.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => (m.artifact as ExecuteCodeArtifact).result.result);
    expect(results.at(-2)).toEqual([12, 3]);
    // The held worker became the thread's session: one thread, nothing left over.
    expect(second.liveWorkerCount()).toBe(1);
    for (const tool of after.tools ?? []) await disposeCodeInterpreterTool(tool);
    for (const tool of before.tools ?? []) await disposeCodeInterpreterTool(tool);
    expect(second.liveWorkerCount()).toBe(0);
  });

  it("a thread with no cells yet, and a tool without thread persistence, start nothing", async () => {
    const sandbox = newSandbox();
    const { spy, prestarted } = spied(sandbox);
    const checkpointer = new MemorySaver();
    for (const persistence of ["thread", "none"] as const) {
      const middleware = codeModeMiddleware({ sandbox: spy, languages: ["javascript"], persistence });
      const agent = createAgent({ model: scriptedCodeModel({ code: "1 + 1" }, { code: "2 + 2" }, "done"), middleware: [middleware], checkpointer });
      await agent.invoke(ask("add"), { configurable: { thread_id: `prestart-${persistence}` } });
      for (const tool of middleware.tools ?? []) await disposeCodeInterpreterTool(tool);
    }
    // "thread": the first model call saw an empty log; the second, a live session at its log.
    expect(prestarted).toEqual([]);
    expect(sandbox.liveWorkerCount()).toBe(1); // the pool's worker, for the "none" runs
  });
});
