/**
 * Ordinary behaviour of the Python engine: output, results, errors with lines, syntax errors,
 * forbidden imports, unicode, globals, fresh state per run, check(), and the misuse errors.
 */
import { describe, expect, it } from "vitest";
import { InvalidOptionError, SandboxDisposedError } from "../../../src/errors.js";
import { createPythonEngine } from "../../../src/sandbox/python/host/engine.js";
import { options, useWarmPythonEngine } from "./support.js";

const engine = useWarmPythonEngine();

describe("Python engine", { timeout: 60_000 }, () => {
  it("captures stdout and stderr and returns the last expression as JSON", async () => {
    const r = await engine.run("import sys\nprint('hello')\nprint('oops', file=sys.stderr)\n{'n': 6 * 7, 'xs': (1, 2), 'ok': True}", options());
    expect(r.status).toBe("success");
    expect(r.stdout).toBe("hello\n");
    expect(r.stderr).toBe("oops\n");
    expect(r.result).toEqual({ n: 42, xs: [1, 2], ok: true });
    expect(r.language).toBe("python");
    expect(r.outputTruncated).toBe(false);
  });

  it("gives no result for None, statements and values that are not JSON", async () => {
    expect((await engine.run("x = 1", options())).result).toBeUndefined();
    expect((await engine.run("None", options())).result).toBeUndefined();
    const r = await engine.run("{1, 2}", options());
    expect(r.status).toBe("success");
    expect(r.result).toBeUndefined();
  });

  it("reports exceptions with type, message, the user's line and a trimmed traceback", async () => {
    const r = await engine.run("def divide(a, b):\n    return a / b\n\nprint('before')\ndivide(1, 0)", options());
    expect(r.status).toBe("runtime_error");
    expect(r.stdout).toBe("before\n");
    expect(r.error?.name).toBe("ZeroDivisionError");
    expect(r.error?.message).toBe("division by zero");
    expect(r.error?.line).toBe(2);
    expect(r.error?.stack).toContain('File "<code>", line 5, in <module>');
    expect(r.error?.stack).toContain("return a / b");
    expect(r.error?.stack).not.toMatch(/_cs_|_pyodide|<exec>/);
  });

  it("finds syntax errors before running anything", async () => {
    const r = await engine.run("print('should not run')\nif True\n    pass", options());
    expect(r.status).toBe("syntax_error");
    expect(r.stdout).toBe("");
    expect(r.error?.name).toBe("SyntaxError");
    expect(r.error?.line).toBe(2);
    expect(r.error?.column).toBeGreaterThan(0);
  });

  it("reports indentation errors as syntax errors", async () => {
    const r = await engine.run("def f():\nreturn 1", options());
    expect(r.status).toBe("syntax_error");
    expect(r.error?.name).toBe("IndentationError");
    expect(r.error?.line).toBe(2);
  });

  it("an import of a third-party package or a host-reaching module is the program's error at its line", async () => {
    const numpy = await engine.run("print('ran')\nimport numpy as np", options());
    expect(numpy.status).toBe("forbidden");
    expect(numpy.stdout).toBe("ran\n");
    expect(numpy.error?.line).toBe(2);
    expect(numpy.error?.message).toMatch(/numpy.*standard library/);
    const sub = await engine.run("from subprocess import run", options());
    expect(sub.status).toBe("forbidden");
  });

  it("raises the import in any statement where it runs, and a check refuses only the module's own top-level imports", async () => {
    // Every place a statement can be: the import raises when (and only when) it runs.
    const nested = [
      ["def f():\n    import socket\nf()", 2],
      ["class C:\n    import socket", 2],
      ["try:\n    1 / 0\nexcept Exception:\n    import socket", 4],
      ["try:\n    pass\nfinally:\n    import socket", 4],
      ["match 1:\n    case 1:\n        import socket", 3],
      ["with open('x', 'w') as f:\n    import socket", 2],
      ["for i in []:\n    pass\nelse:\n    import socket", 4],
      ["x = 1  # é\nif x:\n    import socket", 3],
    ] as const;
    for (const [code, line] of nested) {
      const r = await engine.run(`print('ran')\n${code}`, options());
      expect(r.status, code).toBe("forbidden");
      expect(r.stdout, code).toBe("ran\n");
      expect(r.error?.line, code).toBe(line + 1);
      expect((await engine.check(code, "python")).ok, code).toBe(true);
    }
    const unrun = await engine.run("def f():\n    import socket\n1", options());
    expect(unrun.status).toBe("success");
    const top = await engine.check("x = 1\nimport subprocess", "python");
    expect(top.ok).toBe(false);
    if (!top.ok) expect(top.error.line).toBe(2);
    // A syntax error in the last expression or in the body is the cell's, as before.
    expect((await engine.run("x = 1\n(yield x)", options())).status).toBe("syntax_error");
    const body = await engine.run("break\n1 + 1", options());
    expect(body.status).toBe("syntax_error");
    expect(body.error?.line).toBe(1);
  });

  it("runs the standard library", async () => {
    const r = await engine.run(
      "import json, math, re, collections, datetime, itertools, statistics\n[math.sqrt(16), statistics.mean([1, 2, 3]), re.findall(r'\\d+', 'a1b22'), dict(collections.Counter('aab'))]",
      options(),
    );
    expect(r.status).toBe("success");
    expect(r.result).toEqual([4, 2, ["1", "22"], { a: 2, b: 1 }]);
  });

  it("keeps unicode intact in output and results", async () => {
    const r = await engine.run("s = 'héllo ✓ 你好 🐍'\nprint(s)\ns", options());
    expect(r.stdout).toBe("héllo ✓ 你好 🐍\n");
    expect(r.result).toBe("héllo ✓ 你好 🐍");
  });

  it("passes globals in as Python values", async () => {
    const r = await engine.run(
      "[n * 2, sum(items), cfg['a'] is True, cfg['b'] is None, type(cfg).__name__, name.upper()]",
      options({ globals: { n: 21, items: [1, 2, 3], cfg: { a: true, b: null }, name: "ada" } }),
    );
    expect(r.status).toBe("success");
    expect(r.result).toEqual([42, 6, true, true, "dict", "ADA"]);
  });

  it("runs each program in a fresh interpreter", async () => {
    await engine.run("import math\nmath.pi = 3\nsecret = 'left over'\nimport builtins\nbuiltins.print = None", options());
    const r = await engine.run("import math\n['secret' in globals(), math.pi > 3.1, callable(print)]", options());
    expect(r.result).toEqual([false, true, true]);
  });

  it("treats sys.exit(0) as success and other exit codes as errors", async () => {
    expect((await engine.run("import sys\nprint('a')\nsys.exit(0)", options())).status).toBe("success");
    const r = await engine.run("import sys\nsys.exit(3)", options());
    expect(r.status).toBe("runtime_error");
    expect(r.error?.name).toBe("SystemExit");
  });

  it("checks code without running it", async () => {
    expect(await engine.check("print('x')", "python")).toEqual({ ok: true, language: "python" });
    const bad = await engine.check("x = (1", "python");
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.status).toBe("syntax_error");
      expect(bad.error.line).toBe(1);
    }
    const forbidden = await engine.check("import socket", "python");
    expect(forbidden.ok).toBe(false);
    if (!forbidden.ok) expect(forbidden.status).toBe("forbidden");
  });

  it("refuses host function names that Python cannot call, with one clear error", async () => {
    await expect(engine.run("1", options({ hostFunctions: { $fetch: () => 1 } }))).rejects.toThrow(InvalidOptionError);
    await expect(engine.run("1", options({ hostFunctions: { lambda: () => 1 } }))).rejects.toThrow(/hostFunctions\.lambda.*not a keyword/);
  });

  it("rejects a bad pool size", () => {
    expect(() => createPythonEngine({ poolSize: 0 })).toThrow(InvalidOptionError);
  });

  it("throws after dispose", async () => {
    const other = createPythonEngine();
    await other.dispose();
    await expect(other.run("1", options())).rejects.toThrow(SandboxDisposedError);
  });
});
