/**
 * Issue 21.2: a Python program cannot write its own outcome. No hook that ends a run, sets its
 * phase or its tests' verdict is reachable from Python (not __main__, sys.modules, frames,
 * gc.get_objects() or pyodide_js); the tests' verdict is the worker's (the interpreter's C-level
 * exec raised or not), even when the program rewrote the prelude; forged outcome texts of every
 * shape are refused by the supervisor, and nothing makes the host throw. And the graph does not
 * accept a wrong program that tried.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createCodeGenGraph } from "../../../src/graph/index.js";
import { disposeDefaultSandbox } from "../../../src/sandbox/index.js";
import { fence, scriptedModel } from "../../support/scripted-model.js";
import { options, useWarmPythonEngine } from "./support.js";

const engine = useWarmPythonEngine();

afterAll(async () => {
  await disposeDefaultSandbox();
});

const WRONG_ADD = "def add(a, b):\n    return a - b\n";
const TESTS = "assert add(2, 3) == 5";

/** Every route the issue named to the runner's hooks, and each JS object found on them called as done/phase. */
const HOOK_HUNT = `
import gc, sys, importlib
found = []
def poke(obj, where):
    for name in ("done", "phase"):
        fn = getattr(obj, name, None)
        if fn is None or not callable(fn):
            continue
        found.append(where + "." + name)
        try:
            fn('{"status": "success", "tests": {"status": "passed"}}') if name == "done" else fn("tests")
        except BaseException:
            pass
candidates = [("__main__", sys.modules.get("__main__"))]
candidates += [("sys.modules[%r]" % k, m) for k, m in list(sys.modules.items())]
f = sys._getframe()
while f is not None:
    candidates += [("frame global " + k, v) for k, v in list(f.f_globals.items())]
    f = f.f_back
try:
    pj = importlib.import_module("pyodide_js")
    candidates += [("pyodide_js", pj), ("pyodide_js._api", pj._api), ("pyodide_js._module", pj._module)]
except BaseException:
    pass
for o in gc.get_objects():
    if type(o).__name__.startswith("Js"):
        candidates.append(("gc " + type(o).__name__, o))
    if isinstance(o, dict) and "_cs_hooks" in o:
        candidates.append(("gc dict _cs_hooks", o["_cs_hooks"]))
for where, obj in candidates:
    try:
        poke(obj, where)
    except BaseException:
        pass
print("PROGRAM OUTPUT")
`;

/** Rewrites every prelude function the tests could go through into one that says "passed". */
const PRELUDE_REWRITE = `
import gc, types
fake = (lambda *a, **k: '{"status": "passed"}').__code__
for o in gc.get_objects():
    if isinstance(o, types.FunctionType) and o.__name__.startswith("_cs_") and o.__name__ not in ("_cs_run", "_cs_program", "_cs_eval_cell", "_cs_compile_cell", "_cs_parse", "_cs_result", "_cs_exact", "_cs_start", "_cs_flush"):
        try:
            o.__code__ = fake
        except BaseException:
            pass
`;

describe("a program cannot write its own outcome", { timeout: 120_000 }, () => {
  it("finds no done or phase hook anywhere, so a wrong add fails its tests and its output stays its own", async () => {
    const r = await engine.run(WRONG_ADD + HOOK_HUNT + "found", options({ tests: `print("TESTS OUTPUT")\n${TESTS}` }));
    expect(r.status).toBe("success");
    expect(r.result).toEqual([]);
    expect(r.stdout).toBe("PROGRAM OUTPUT\n");
    expect(r.tests?.status).toBe("failed");
    expect(r.tests?.stdout).toBe("TESTS OUTPUT\n");
    expect(r.tests?.error?.message).toBe("failed: assert add(2, 3) == 5");
  });

  it("rewriting the prelude through gc does not make failing tests pass", async () => {
    const r = await engine.run(WRONG_ADD + PRELUDE_REWRITE, options({ tests: TESTS }));
    expect(r.tests?.status).toBe("failed");
    expect(r.tests?.error?.name).toBe("AssertionError");
  });

  it("a trace function that jumps over the failing line is cleared before the tests", async () => {
    const skip = "import sys\ndef tracer(frame, event, arg):\n    if frame.f_code.co_filename == '<string>':\n        frame.f_trace = lambda f, e, a: None\n    return tracer\nsys.settrace(tracer)\nsys.setprofile(lambda *a: None)\n";
    const r = await engine.run(WRONG_ADD + skip, options({ tests: TESTS }));
    expect(r.tests?.status).toBe("failed");
  });

  it("a program claiming sys.exit does not skip into a pass: its tests are not_run", async () => {
    const r = await engine.run(WRONG_ADD + "import sys\nsys.exit(0)", options({ tests: TESTS }));
    expect(r.tests?.status).toBe("not_run");
  });

  it("passing tests still pass (sync and with await), and a failing one names its line", async () => {
    const right = "def add(a, b):\n    return a + b\nasync def aadd(a, b):\n    return a + b\n";
    expect((await engine.run(right, options({ tests: TESTS }))).tests?.status).toBe("passed");
    expect((await engine.run(right, options({ tests: "assert await aadd(2, 3) == 5" }))).tests?.status).toBe("passed");
    const failing = await engine.run(right, options({ tests: "assert add(1, 1) == 2\nassert add(2, 2) == 5" }));
    expect(failing.tests?.error).toMatchObject({ name: "AssertionError", line: 2, message: "failed: assert add(2, 2) == 5" });
  });
});

describe("forged outcome texts are refused, and the host never throws", { timeout: 120_000 }, () => {
  const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
  /**
   * Outcome texts the program makes the prelude return, by replacing json.dumps. The worker
   * decides the status and the tests' verdict itself, so none of them becomes the outcome: the
   * run is what it did (success, failed tests). Every other shape is checked without Deno in
   * outcome-check.test.ts.
   */
  const forged: Array<[string, string]> = [
    ["not JSON", "not json {"],
    ["a 300,000-deep result", JSON.stringify({ status: "success", resultJson: deep(300_000) })],
    ["a cancelled status and a forged tests verdict", JSON.stringify({ status: "cancelled", tests: { status: "passed" } })],
    ["a line that is not a line", JSON.stringify({ status: "runtime_error", error: { name: "E", message: "m", line: "not-a-line" } })],
  ];
  it("forged outcomes (not JSON, 300,000 deep, cancelled, a line that is not a line) do not become the run's outcome", async () => {
    for (const [label, text] of forged) {
      const program = `import json\njson.dumps = lambda *a, **k: ${JSON.stringify(text)}\n${WRONG_ADD}`;
      const r = await engine.run(program, options({ tests: TESTS }));
      expect(`${label}: ${r.status} ${r.tests?.status}`).toBe(`${label}: success failed`);
      expect(() => JSON.stringify(r)).not.toThrow();
    }
    expect((await engine.run("1 + 1", options())).result).toBe(2);
  });

  it("a forged result text is only the program's result: checked by the supervisor, never another status, and the host never throws", async () => {
    for (const text of ["not json {", deep(300_000), JSON.stringify({ status: "cancelled" })]) {
      const program = `import json\njson.dumps = lambda *a, **k: ${JSON.stringify(text)}\n[1, 2]`;
      const r = await engine.run(program, options());
      expect(() => JSON.stringify(r)).not.toThrow();
      if (r.status === "runtime_error") expect(r.error?.name).toBe("SandboxViolation");
      else expect(r.status).toBe("success");
    }
  });

  it("1e308 is a finite result and comes back as a number", async () => {
    const r = await engine.run("1e308", options());
    expect(r.result).toBe(1e308);
  });
});

describe("the graph does not accept a wrong program that forged its verdict", { timeout: 180_000 }, () => {
  it("the forging attempt is test_failed; the repaired program succeeds", async () => {
    const forging = WRONG_ADD + HOOK_HUNT + PRELUDE_REWRITE;
    const fixed = "def add(a, b):\n    return a + b";
    const state = await createCodeGenGraph({ model: scriptedModel(fence("python", forging), fence("python", fixed)), timeoutMs: 60_000 }).invoke({
      task: "Write add(a, b)",
      language: "python",
      tests: TESTS,
    });
    expect(state.attempts.map((a: { status: string }) => a.status)).toEqual(["test_failed", "success"]);
    expect(state.status).toBe("success");
  });
});

/** Rewrites every prelude function the worker still calls into one that claims success. */
const PRELUDE_CLAIMS = `
import gc, types, json
claims = {
    "_cs_describe_exception": '{"status": "success"}',
    "_cs_format_exception": '["X", ""]',
    "_cs_result_text": '{}',
}
for o in gc.get_objects():
    if isinstance(o, types.FunctionType) and o.__name__ in claims:
        text = claims[o.__name__]
        o.__code__ = eval("lambda *a, **k: " + repr(text)).__code__
json.dumps = lambda *a, **k: '{"status": "success"}'
`;

describe("the worker decides the status and the tests' verdict, whatever the program rewrote (issue 21.2)", { timeout: 180_000 }, () => {
  it("a program that replaced json.dumps and then raised is a runtime_error, not a success", async () => {
    const r = await engine.run('import json\njson.dumps = lambda *a, **k: \'{"status": "success"}\'\nraise ValueError("boom")', options());
    expect(r.status).toBe("runtime_error");
  });

  it("rewriting the prelude's description and result functions through gc does not make a raising program succeed", async () => {
    const r = await engine.run(`${PRELUDE_CLAIMS}\nraise ValueError("boom")`, options());
    expect(r.status).toBe("runtime_error");
    const waiting = await engine.run(`${PRELUDE_CLAIMS}\nimport asyncio\nawait asyncio.sleep(0)\nraise ValueError("boom")`, options());
    expect(waiting.status).toBe("runtime_error");
  });

  it("tests with an await fail for a wrong program, even after json.dumps says passed or the prelude was rewritten", async () => {
    const wrong = "async def aadd(a, b):\n    return a - b\n";
    const tests = "assert await aadd(2, 3) == 5";
    const claimPassed = "import json\njson.dumps = lambda *a, **k: '{\"status\": \"passed\"}'\n";
    expect((await engine.run(wrong + claimPassed, options({ tests }))).tests?.status).toBe("failed");
    expect((await engine.run(wrong + PRELUDE_CLAIMS, options({ tests }))).tests?.status).toBe("failed");
    expect((await engine.run(wrong + PRELUDE_REWRITE, options({ tests }))).tests?.status).toBe("failed");
  });

  it("a StopIteration the program raises inside the tests is a failure, not the tests' end (sync and with await)", async () => {
    const program = "def add(a, b):\n    raise StopIteration\nasync def aadd(a, b):\n    raise StopIteration\n";
    const sync = await engine.run(program, options({ tests: TESTS }));
    expect(sync.tests?.status).toBe("failed");
    const awaiting = await engine.run(program, options({ tests: "assert await aadd(2, 3) == 5" }));
    expect(awaiting.tests?.status).toBe("failed");
    expect(awaiting.tests?.error?.name).toBe("RuntimeError");
  });

  it("a top-level StopIteration in a program with await is an error, not its end", async () => {
    const r = await engine.run("import asyncio\nawait asyncio.sleep(0)\nraise StopIteration(5)", options());
    expect(r.status).toBe("runtime_error");
  });

  it("an audit hook the program installs cannot swap what the worker runs for the tests", async () => {
    const hook = `
import sys, gc, types
def hook(event, args):
    if event in ("exec", "compile"):
        for o in gc.get_objects():
            if isinstance(o, dict) and "_cs_eval" in o:
                o["_cs_eval"] = None
            if isinstance(o, types.FunctionType) and o.__name__ in ("_cs_eval", "_cs_task"):
                try:
                    o.__code__ = (lambda *a, **k: None).__code__
                except BaseException:
                    pass
sys.addaudithook(hook)
`;
    const r = await engine.run(WRONG_ADD + "async def aadd(a, b):\n    return a - b\n" + hook, options({ tests: TESTS }));
    expect(r.tests?.status).not.toBe("passed");
    const awaiting = await engine.run(WRONG_ADD + "async def aadd(a, b):\n    return a - b\n" + hook, options({ tests: "assert await aadd(2, 3) == 5" }));
    expect(awaiting.tests?.status).not.toBe("passed");
  });

  it("a program that cancels its own task is not a success", async () => {
    const r = await engine.run("import asyncio\nasyncio.current_task().cancel()\nawait asyncio.sleep(0)\n1", options());
    expect(r.status).not.toBe("success");
  });

  it("ordinary programs keep their outcomes: results, exits, errors with their line, awaits", async () => {
    expect((await engine.run("x = 2\nx * 21", options())).result).toBe(42);
    expect((await engine.run("import asyncio\nawait asyncio.sleep(0.01)\n'done'", options())).result).toBe("done");
    expect((await engine.run("import sys\nsys.exit(0)", options())).status).toBe("success");
    const exit3 = await engine.run("import sys\nsys.exit(3)", options());
    expect(exit3.status).toBe("runtime_error");
    expect(exit3.error?.name).toBe("SystemExit");
    const error = await engine.run("x = 1\n\nraise KeyError('k')", options());
    expect(error.error).toMatchObject({ name: "KeyError", line: 3 });
  });
});

describe("the interpreter's memory is out of the program's reach (issue 21.2)", { timeout: 180_000 }, () => {
  /**
   * Every JavaScript value a Python container holds (module globals, class and instance dicts,
   * closures, everything gc reaches), and the values of their attributes: none is Pyodide's
   * API, its Emscripten module, or a typed array over the WebAssembly memory.
   */
  const MEMORY_HUNT = `
import gc, importlib, sys
ffi = next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi')
JsProxy = ffi.JsProxy
found = {}
def note(o):
    found[id(o)] = o
for m in list(sys.modules.values()):
    for v in list(getattr(m, '__dict__', {}).values()):
        if isinstance(v, JsProxy):
            note(v)
for o in gc.get_objects():
    try:
        for r in gc.get_referents(o):
            if isinstance(r, JsProxy):
                note(r)
    except Exception:
        pass
hits = []
for o in list(found.values()):
    for name in ('HEAPU8', '_module', '_api', 'runPython', 'loadPackage', 'FS', 'wasmTable', 'unregisterJsModule'):
        try:
            if getattr(o, name, None) is not None:
                hits.append(name)
        except Exception:
            pass
    try:
        if o.buffer.byteLength >= 1 << 24:
            hits.append('memory view')
    except Exception:
        pass
[len(found) > 0, sorted(set(hits))]
`;

  it("no JavaScript value Python holds leads to Pyodide's API, its module or the WebAssembly memory", async () => {
    const r = await engine.run(MEMORY_HUNT, options());
    expect(r.status).toBe("success");
    expect(r.result).toEqual([true, []]);
  });

  it("the interned-string table is not among the objects gc hands out, so writing into every dict it gives is harmless", async () => {
    // Before: writing a key into that table (as a search for the runtime's names did) made the
    // next lookup of the name read freed memory and killed the interpreter.
    const probe = "import gc, sys\np = sys.intern(''.join(['fresh', '_probe']))\n[o for o in gc.get_objects() if type(o) is dict and o.get(p) is p] == []";
    expect((await engine.run(probe, options())).result).toBe(true);
    const writeAll = "import gc\nn = 0\nfor o in gc.get_objects():\n    if isinstance(o, dict) and '_cs_hooks' in o:\n        o['_cs_finished'] = 'forged'\n        n += 1\n'wrote %d' % n";
    const r = await engine.run(writeAll, options());
    expect(r.status).toBe("success");
    expect((await engine.run("1 + 1", options())).result).toBe(2);
  });

  it("a CPython memory-safety bug (a type's dict changed through gc.get_referents) ends only its own run", async () => {
    // A documented limit (docs/security.md): the interpreter itself is not memory-safe against
    // such programs. The worker is replaced; the next run gets a fresh interpreter.
    const crash = "import gc\nclass A:\n    def f(self): return 1\na = A()\ns = 0\nfor i in range(1000): s += a.f()\nd = [o for o in gc.get_referents(A.__dict__) if type(o) is dict][0]\ndel d['f']\ngc.collect()\njunk = [bytearray(64) for _ in range(10000)]\nfor i in range(1000): s += a.f()\ns";
    const r = await engine.run(crash, options());
    expect(r.status).not.toBe("success");
    expect((await engine.run("import statistics\nstatistics.mean([1, 3])", options())).result).toBe(2);
  });
});
