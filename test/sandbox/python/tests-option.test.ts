/**
 * `tests` for Python: they run after the program, in its namespace, as their own cell; their
 * output is kept apart; a program that exits or fails first leaves them `not_run` with the
 * reason; whatever the tests raise is a test failure located in the tests' text; a limit hit
 * during the tests is the run's status with the tests `failed`.
 */
import { describe, expect, it } from "vitest";
import { options, useWarmPythonEngine } from "./support.js";

const engine = useWarmPythonEngine();

const ADD = "def add(a, b):\n    return a + b\nprint(add(20, 22))\nadd(1, 1)";

describe("Python tests option", { timeout: 60_000 }, () => {
  it("runs the tests after the program and keeps their output apart", async () => {
    const r = await engine.run(ADD, options({ tests: "assert add(2, 3) == 5\nprint('tests passed')" }));
    expect(r.status).toBe("success");
    expect(r.stdout).toBe("42\n");
    expect(r.result).toBe(2);
    expect(r.tests).toMatchObject({ status: "passed", stdout: "tests passed\n", stderr: "", total: 1, passed: 1 });
  });

  it("reports a failing assertion at its line in the tests, quoting it", async () => {
    const wrong = "def add(a, b):\n    return a - b";
    const r = await engine.run(wrong, options({ tests: "assert add(0, 0) == 0\nassert add(2, 3) == 5" }));
    expect(r.status).toBe("success");
    expect(r.tests?.status).toBe("failed");
    expect(r.tests?.error?.name).toBe("AssertionError");
    expect(r.tests?.error?.line).toBe(2);
    expect(r.tests?.error?.message).toBe("failed: assert add(2, 3) == 5");
  });

  it("blames any raised value on the tests, not the program", async () => {
    const r = await engine.run(ADD, options({ tests: "x = 1\nraise ValueError('expected 5, got %d' % add(2, 2))" }));
    expect(r.status).toBe("success");
    expect(r.error).toBeUndefined();
    expect(r.tests?.status).toBe("failed");
    expect(r.tests?.error).toMatchObject({ name: "ValueError", message: "expected 5, got 4", line: 2 });
  });

  it("does not run the tests after sys.exit, whatever the code, and says why", async () => {
    for (const [exit, status] of [["sys.exit(0)", "success"], ["sys.exit(2)", "runtime_error"], ["sys.exit()", "success"]] as const) {
      const r = await engine.run(`import sys\ndef add(a, b):\n    return a - b\n${exit}`, options({ tests: "assert add(2, 3) == 5" }));
      expect(r.status).toBe(status);
      expect(r.tests?.status).toBe("not_run");
      expect(r.tests?.reason).toBe(`the program called ${exit} before the tests ran`);
    }
  });

  it("does not run the tests after a failing program", async () => {
    const r = await engine.run("print('x')\nundefined_name", options({ tests: "print('never')" }));
    expect(r.status).toBe("runtime_error");
    expect(r.tests?.status).toBe("not_run");
    expect(r.tests?.reason).toContain("NameError at line 2");
    expect(r.tests?.stdout).toBe("");
    const syntax = await engine.run("def f(:\n  pass", options({ tests: "assert True" }));
    expect(syntax.status).toBe("syntax_error");
    expect(syntax.tests?.status).toBe("not_run");
  });

  it("parses the tests on their own, whatever shape the program ends in", async () => {
    const r = await engine.run("if True:\n    x = 1\n    # trailing comment without newline", options({ tests: "    \nassert x == 1\n[x]" }));
    expect(r.tests?.status).toBe("passed");
    const broken = await engine.run("x = 1", options({ tests: "assert x ==" }));
    expect(broken.status).toBe("success");
    expect(broken.tests?.status).toBe("failed");
    expect(broken.tests?.error?.name).toBe("SyntaxError");
    expect(broken.tests?.error?.line).toBe(1);
  });

  it("fails tests that call sys.exit before their end", async () => {
    const r = await engine.run(ADD, options({ tests: "import sys\nsys.exit(0)\nassert add(2, 3) == 6" }));
    expect(r.tests?.status).toBe("failed");
    expect(r.tests?.error?.message).toContain("sys.exit(0)");
  });

  it("gives the run the status of a limit hit during the tests, with the tests failed", async () => {
    const r = await engine.run(ADD, options({ timeoutMs: 500, tests: "print('looping')\nwhile True:\n    pass" }));
    expect(r.status).toBe("timeout");
    expect(r.stdout).toBe("42\n");
    expect(r.tests?.status).toBe("failed");
    expect(r.tests?.error?.name).toBe("TimeoutError");
    expect(r.tests?.stdout).toBe("looping\n");
  });

  it("leaves the tests not_run when the program hits a limit", async () => {
    const r = await engine.run("while True:\n    pass", options({ timeoutMs: 400, tests: "assert True" }));
    expect(r.status).toBe("timeout");
    expect(r.tests?.status).toBe("not_run");
    expect(r.tests?.reason).toContain("timeout");
  });

  it("awaits in the tests and works in sessions", async () => {
    const session = await engine.createSession({ language: "python", memoryLimitBytes: 64 * 1024 * 1024, defaults: {} });
    try {
      await session.run("base = 10");
      const r = await session.run("async def plus(x):\n    return base + x", { tests: "assert await plus(1) == 11\nprint('ok')" });
      expect(r.status).toBe("success");
      expect(r.tests).toMatchObject({ status: "passed", stdout: "ok\n", stderr: "", total: 1, passed: 1 });
      expect(r.tests?.cases?.[0]).toMatchObject({ decidedBy: "outside", actual: "11", expected: "11" });
    } finally {
      await session.dispose();
    }
  });
});
