/**
 * With ctypes gone, the other ways Python code can try to write its own outcome (docs/security.md,
 * "the import policy is a boundary" and "who writes a run's outcome"): each hook, set by the
 * program, against a program that raises (never `success`) and a wrong `add` with tests (never
 * `passed`). Plus what remains documented: a crafted code object or a CPython crasher ends only
 * its own run.
 */
import { describe, expect, it } from "vitest";
import { options, useWarmPythonEngine } from "./support.js";

const engine = useWarmPythonEngine();

const WRONG_ADD = "def add(a, b):\n    return a - b\n";
const TESTS = "assert add(2, 3) == 5\npass";

/** Hooks a program can set before it ends; none of them runs between the program and its verdict. */
const HOOKS: Array<[string, string]> = [
  [
    "a trace function writing f_lineno to jump over the failing line",
    "import sys\ndef jump(frame, event, arg):\n    if event == 'line' and frame.f_code.co_filename == '<string>' and frame.f_lineno == 1:\n        frame.f_lineno = 2\n    return jump\ndef tracer(frame, event, arg):\n    return jump\nsys.settrace(tracer)\nsys.setprofile(lambda *a: None)\n",
  ],
  [
    "a sys.monitoring tool",
    "import sys\nm = sys.monitoring\nm.use_tool_id(3, 'x')\nm.register_callback(3, m.events.LINE, lambda code, line: m.DISABLE)\nm.set_events(3, m.events.LINE)\n",
  ],
  ["sys.excepthook and sys.unraisablehook that swallow", "import sys\nsys.excepthook = lambda *a: None\nsys.unraisablehook = lambda *a: None\n"],
  ["an atexit handler", "import atexit, builtins\natexit.register(lambda: setattr(builtins, 'EXITED', True))\n"],
  [
    "builtins the prelude uses, patched",
    "import builtins\nbuiltins.isinstance = lambda *a: False\nbuiltins.str = lambda *a: '{\"status\": \"success\"}'\nbuiltins.repr = lambda *a: 'passed'\nbuiltins.BaseException = type('E', (), {})\n",
  ],
  [
    "the __code__ of every function in the runtime's namespace swapped for one that says success",
    "import gc, types\nfake = (lambda *a, **k: '{\"status\": \"success\", \"tests\": {\"status\": \"passed\"}}').__code__\nfor o in gc.get_objects():\n    if isinstance(o, types.FunctionType) and o.__name__ != 'add':\n        try:\n            o.__code__ = fake\n        except BaseException:\n            pass\n",
  ],
];

describe("hooks a program sets do not write its outcome", { timeout: 180_000 }, () => {
  for (const [name, hook] of HOOKS) {
    it(`${name}: a raising program is not success, a wrong add does not pass`, async () => {
      const raised = await engine.run(`${hook}raise ValueError("the program raised")`, options());
      expect(raised.status).not.toBe("success");
      const wrong = await engine.run(WRONG_ADD + hook, options({ tests: TESTS }));
      expect(wrong.tests?.status).not.toBe("passed");
    });
  }

  it("an audit hook cannot be added, so it cannot reach the worker's exec of the tests", async () => {
    const hook = "import sys\ndef hook(event, args):\n    if event == 'exec':\n        raise RuntimeError('no')\nsys.addaudithook(hook)\n";
    // sys.addaudithook is gone before any guest code (import-seal.ts): the attempt is the program's error.
    const wrong = await engine.run(WRONG_ADD + hook, options({ tests: TESTS }));
    expect(wrong.status).toBe("runtime_error");
    expect(wrong.error?.name).toBe("AttributeError");
    expect(wrong.tests?.status).not.toBe("passed");
    const right = await engine.run("def add(a, b):\n    return a + b\n" + hook, options({ tests: TESTS }));
    expect(right.tests?.status).not.toBe("passed");
  });
});

describe("what remains: the interpreter is not memory-safe against a program written to break it", { timeout: 180_000 }, () => {
  it("a hand-built code object reading out of bounds ends only its own run", async () => {
    // LOAD_CONST with an index far past co_consts: CPython has no bytecode verifier.
    const crafted =
      "import dis, types\nf = lambda: None\nco = f.__code__\nop = dis.opmap['LOAD_CONST']\nret = dis.opmap['RETURN_VALUE']\n" +
      "bad = co.replace(co_code=bytes([op, 200, ret, 0]), co_consts=(None,))\n" +
      "try:\n    types.FunctionType(bad, {})()\nexcept BaseException as e:\n    print(type(e).__name__)\n'survived'";
    const r = await engine.run(crafted, options());
    expect(["success", "runtime_error"]).toContain(r.status);
    const next = await engine.run("import statistics\nstatistics.mean([1, 3])", options());
    expect(next.status).toBe("success");
    expect(next.result).toBe(2);
  });

  it("marshal of a crafted code object likewise ends only its own run", async () => {
    const crafted =
      "import marshal, dis, types\nco = (lambda: None).__code__.replace(co_code=bytes([dis.opmap['LOAD_FAST'], 250, dis.opmap['RETURN_VALUE'], 0]))\n" +
      "bad = marshal.loads(marshal.dumps(co))\ntry:\n    types.FunctionType(bad, {})()\nexcept BaseException as e:\n    print(type(e).__name__)\n'survived'";
    const r = await engine.run(crafted, options());
    expect(["success", "runtime_error"]).toContain(r.status);
    expect((await engine.run("6 * 7", options())).result).toBe(42);
  });
});
