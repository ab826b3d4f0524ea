/**
 * The Python worker's realm is untrusted: whatever the guest reaches from Python, the supervisor
 * decides when a run ended, how much output it made and how much memory it used; work the guest
 * leaves behind dies with its run; results are exact or absent; runs can be cancelled.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SandboxSessionEndedError } from "../../../src/errors.js";
import { createPythonEngine } from "../../../src/sandbox/python/host/engine.js";
import type { ExecutionResult, LanguageEngine, ResolvedRunOptions, SandboxSession } from "../../../src/sandbox/types.js";

let engine: LanguageEngine;
let session: SandboxSession;
/** The session's Deno process (the pool's own process may be busy replacing a worker). */
let sessionPid: number | undefined;

const FORGED_DONE = '{"type": "done", "fatal": false, "outcome": {"status": "success", "resultJson": "\\"forged\\""}}';

/** Every route from Python into the worker's realm named in the issue, each tried in turn. */
const REALM_ROUTES = `
import importlib, sys, json
routes = {}
def attempt(name, fn):
    try:
        routes[name] = repr(fn())[:80]
    except BaseException as e:
        routes[name] = "blocked: " + type(e).__name__
def via_js(js):
    for attr in ("Deno", "postMessage", "Worker", "process", "fetch", "console", "close", "addEventListener", "MessageChannel", "MessagePort"):
        if getattr(js, attr, None) is not None:
            return attr
    return None
attempt("importlib js", lambda: via_js(importlib.import_module("js")))
attempt("sys.modules js", lambda: via_js(sys.modules["js"]))
attempt("BuiltinImporter", lambda: via_js(importlib.machinery.BuiltinImporter.load_module("builtins").__import__("js")))
attempt("pyodide_js", lambda: via_js(importlib.import_module("pyodide_js")))
attempt("pyodide_js._module", lambda: via_js(importlib.import_module("pyodide_js")._module))
attempt("pyodide_js._api", lambda: via_js(importlib.import_module("pyodide_js")._api))
attempt("constructor.constructor", lambda: importlib.import_module("js").setTimeout.constructor("return globalThis")())
attempt("run_js", lambda: importlib.import_module("pyodide.code").run_js("globalThis.Deno"))
attempt("js.eval", lambda: importlib.import_module("js").eval("1"))
found = {k: v for k, v in routes.items() if not v.startswith("blocked") and v != "None"}
found
`;
import { cpuTicks, denoChildren, options } from "./support.js";


beforeAll(async () => {
  engine = createPythonEngine({ poolSize: 1 });
  await engine.warm();
  const poolPids = new Set(denoChildren());
  session = await engine.createSession({ language: "python", defaults: {}, memoryLimitBytes: 64 * 1024 * 1024 });
  sessionPid = denoChildren().find((p) => !poolPids.has(p));
}, 180_000);

afterAll(async () => {
  await engine?.dispose();
});

describe("the realm reached from Python holds no capability", { timeout: 60_000 }, () => {
  it("finds no Deno, postMessage, Worker, process, fetch or eval on any route", async () => {
    const r = await engine.run(REALM_ROUTES, options());
    expect(r.status).toBe("success");
    expect(r.result).toEqual({});
  });

  it("cannot forge a completion in a pool run", async () => {
    const r = await engine.run(
      `import importlib\nfor mod in ("js", "pyodide_js"):\n    try:\n        m = importlib.import_module(mod)\n    except ModuleNotFoundError:\n        continue\n    for target in (m, getattr(m, "_api", None)):\n        post = getattr(target, "postMessage", None)\n        if post is not None:\n            post(importlib.import_module("js").JSON.parse('${FORGED_DONE}'))\nwhile True:\n    pass`,
      options({ timeoutMs: 1500 }),
    );
    expect(r.status).toBe("timeout");
    expect(r.result).toBeUndefined();
  });

  it("cannot forge a completion in a session, and nothing keeps running after a call", async () => {
    const r = await session.run(
      "import importlib, asyncio\ncreate_proxy = next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi').create_proxy\njs = next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi').to_js([]).constructor.constructor\ndef spin(*a):\n    while True:\n        pass\n" +
        "type(__import__('asyncio').get_event_loop()).call_soon.__globals__['scheduleCallback'](create_proxy(spin), 50)\ntype(__import__('asyncio').get_event_loop()).call_soon.__globals__['scheduleCallback'](create_proxy(spin), 60)\nasyncio.get_event_loop().call_later(0.05, spin)\n'left behind'",
      { timeoutMs: 30_000 },
    );
    expect(r.status).toBe("success");
    expect(r.result).toBe("left behind");
    expect(sessionPid).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = cpuTicks(sessionPid!);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // 100 ticks = 1 s of CPU; a guest left spinning would burn ~100.
    expect(cpuTicks(sessionPid!) - before).toBeLessThan(30);
    const next = await session.run("1 + 1", { timeoutMs: 30_000 });
    expect(next.status).toBe("success");
    expect(next.result).toBe(2);
  });

  it("pyodide_js is out of reach, and with it _module.print, the file system object and the interpreter's memory", async () => {
    // Before: Emscripten's console.log bound at load wrote around the channel through
    // pyodide_js._module.print, and pyodide_js._module.HEAPU8 read and wrote the interpreter's
    // whole memory (so a program could rewrite the code objects of its own tests).
    const code = [
      "import importlib, sys",
      "out = []",
      "for name in ('pyodide_js', 'pyodide_js._api'):",
      "    try:",
      "        importlib.import_module(name)",
      "        out.append(name + ' imported')",
      "    except ModuleNotFoundError:",
      "        out.append(name + ' not found')",
      "out.append(sorted(k for k in sys.modules if k.startswith('pyodide_js')))",
      "out",
    ].join("\n");
    const r = await engine.run(code, options());
    expect(r.status).toBe("success");
    expect(r.result).toEqual(["pyodide_js not found", "pyodide_js._api not found", []]);
  });

  it("PyProxy.getBuffer, which answered with a view of the whole WebAssembly memory, refuses", async () => {
    const code = [
      "import importlib",
      "ffi = next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi')",
      "p = ffi.create_proxy(bytearray(b'abc'))",
      "try:",
      "    whole = p.getBuffer().data.buffer.byteLength",
      "except Exception as e:",
      "    whole = str(e)",
      "[whole, ffi.to_js(bytearray(b'abc')).buffer.byteLength]",
    ].join("\n");
    const r = await engine.run(code, options());
    expect(r.status).toBe("success");
    expect(r.result).toEqual([expect.stringMatching(/getBuffer\(\) is not available in the sandbox/), 3]);
  });

  it("/dev/tty and /dev/tty1 write into the run's counted stdout and stderr, and /dev/tty cannot be read", async () => {
    // Before: Emscripten's terminal operations wrote through the console bound at load, around
    // the channel (the host replaced the whole process), and read the process's real stdin.
    const small = await engine.run(
      `import os\nfor dev, text in (("/dev/tty", b"to tty\\n"), ("/dev/tty1", b"to tty1\\n")):\n    fd = os.open(dev, os.O_WRONLY)\n    os.write(fd, text)\n    os.close(fd)\ntry:\n    os.read(os.open("/dev/tty", os.O_RDONLY), 10)\nexcept OSError as e:\n    print(e.errno)`,
      options(),
    );
    expect(small.status).toBe("success");
    expect(small.stdout).toBe("to tty\n29\n");
    expect(small.stderr).toBe("to tty1\n");
    const flood = await engine.run(`import os\nfd = os.open("/dev/tty", os.O_WRONLY)\nfor _ in range(40):\n    os.write(fd, b"y" * 100000)`, options({ maxOutputBytes: 64 * 1024 }));
    expect(flood.status).toBe("output_limit");
    expect(flood.stdout.length).toBe(64 * 1024);
    expect(flood.error?.message).not.toMatch(/around the sandbox's output channel/);
  });

  it("has no timers outside a run and no nested workers", async () => {
    const r = await engine.run("import importlib\njs = next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi').to_js([]).constructor.constructor\n[getattr(js, 'Worker', None) is None, getattr(js, 'SharedWorker', None) is None]", options());
    expect(r.result).toEqual([true, true]);
  });
});

describe("output and results are capped by the supervisor", { timeout: 60_000 }, () => {
  it("caps 12 MB written straight to file descriptor 1 at a 1 MiB cap", async () => {
    const r = await engine.run("import os\nfor _ in range(12):\n    os.write(1, b'x' * 1_000_000)", options({ maxOutputBytes: 1024 * 1024 }));
    expect(r.status).toBe("output_limit");
    expect(r.stdout.length).toBeLessThanOrEqual(1024 * 1024);
  });

  it("caps 12 MB written through Pyodide's file system object", async () => {
    const r = await engine.run(
      "import importlib\nfs = importlib.import_module('pyodide_js').FS\nstream = fs.getStream(1)\ndata = next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi').to_js(bytearray(1)).constructor.new(1_000_000)\nfor _ in range(12):\n    fs.write(stream, data, 0, 1_000_000)",
      options({ maxOutputBytes: 1024 * 1024 }),
    );
    // The file system object is out of reach now (pyodide_js is unregistered and absent).
    expect(r.status).toBe("forbidden");
    expect(r.error?.name).toBe("ModuleNotFoundError");
    expect(r.stdout.length).toBeLessThanOrEqual(1024 * 1024);
  });

  it("drops a result over maxResultBytes with its size in the message", async () => {
    const r = await engine.run("['x' * 1000] * 24000", options({ maxResultBytes: 1024 * 1024 }));
    expect(r.status).toBe("output_limit");
    expect(r.result).toBeUndefined();
    expect(r.error?.message).toMatch(/\d+ bytes, over the 1048576-byte result limit/);
  });

  it("returns integers beyond 2**53 exactly, as decimal strings, and 10**400 is never Infinity", async () => {
    const r = await engine.run("[2**64, -(2**60) - 1, 10**400 == int(str(10**400)), 2**53, {'n': 10**20}]", options());
    expect(r.status).toBe("success");
    expect(r.result).toEqual(["18446744073709551616", "-1152921504606846977", true, 9007199254740992, { n: "100000000000000000000" }]);
    expect(r.stderr).toMatch(/exact decimal strings/);
    const big = await engine.run("10**400", options());
    expect(big.result).toBe(`1${"0".repeat(400)}`);
  });
});

describe("memory is limited from outside the realm", { timeout: 90_000 }, () => {
  it("a guest spying on Function.prototype.call does not recover the real grow (and cannot allocate past the limit)", async () => {
    // Pyodide's own glue calls Function.prototype.call, so the spy wedges the interpreter: the run
    // must end in a limit status, never with the 160 MiB allocated under a 32 MiB limit.
    const r = await engine.run(
      "import importlib\ncreate_proxy = next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi').create_proxy\nF = next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi').to_js([]).constructor.constructor\ngot = []\n" +
        "def spy(this, *args):\n    got.append(this)\n    return None\nF.prototype.call = create_proxy(spy, capture_this=True)\n" +
        "keep = []\nfor _ in range(40):\n    keep.append(bytearray(4 * 1024 * 1024))\nlen(keep)",
      options({ memoryLimitBytes: 32 * 1024 * 1024, timeoutMs: 3000 }),
    );
    expect(["memory_limit", "timeout"]).toContain(r.status);
    expect(r.result).toBeUndefined();
    expect((await engine.run("1 + 1", options())).result).toBe(2);
  });

  it("a guest finds no route to WebAssembly.Memory (to delete or replace its grow) and still ends memory_limit", async () => {
    // Before: pyodide_js._module.memory.constructor.prototype.grow was one attribute path away.
    const r = await engine.run(
      [
        "import importlib",
        "ffi = next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi')",
        "routes = []",
        "for route in (lambda: importlib.import_module('pyodide_js')._module.HEAPU8.buffer, lambda: ffi.create_proxy(bytearray(1)).getBuffer().data.buffer):",
        "    try:",
        "        route()",
        "        routes.append('open')",
        "    except Exception:",
        "        routes.append('closed')",
        "print(routes)",
        "keep = []",
        "for _ in range(40):",
        "    keep.append(bytearray(4 * 1024 * 1024))",
        "len(keep)",
      ].join("\n"),
      options({ memoryLimitBytes: 32 * 1024 * 1024, timeoutMs: 30_000 }),
    );
    expect(r.stdout).toBe("['closed', 'closed']\n");
    expect(r.status).toBe("memory_limit");
  });

  it("a JavaScript-side memory bomb is stopped by the supervisor's watchdog (memory_limit, not timeout)", async () => {
    const r = await engine.run(
      "import importlib\nU8 = next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi').to_js(bytearray(1)).constructor\nkeep = []\nwhile True:\n    b = U8.new(8 * 1024 * 1024)\n    b.fill(1)\n    keep.append(b)",
      options({ memoryLimitBytes: 32 * 1024 * 1024, timeoutMs: 30_000 }),
    );
    expect(r.status).toBe("memory_limit");
    const next = await engine.run("1 + 1", options());
    expect(next.result).toBe(2);
  });
});

describe("cancellation", { timeout: 60_000 }, () => {
  async function cancelAfter(ms: number, start: (signal: AbortSignal) => Promise<ExecutionResult>): Promise<{ result: ExecutionResult; latencyMs: number }> {
    const controller = new AbortController();
    let abortedAt = 0;
    setTimeout(() => {
      abortedAt = performance.now();
      controller.abort();
    }, ms);
    const result = await start(controller.signal);
    return { result, latencyMs: performance.now() - abortedAt };
  }

  it("ends a pool run with status cancelled, and the pool keeps serving", async () => {
    const { result, latencyMs } = await cancelAfter(500, (signal) => engine.run("while True:\n    pass", options({ signal, timeoutMs: 20_000 })));
    expect(result.status).toBe("cancelled");
    expect(latencyMs).toBeLessThan(3000); // liveness on a loaded machine; the goal (300 ms) is a bench row
    expect((await engine.run("1 + 1", options())).result).toBe(2);
  });

  it("an already aborted signal does not start the run", async () => {
    const r = await engine.run("1", options({ signal: AbortSignal.abort() }));
    expect(r.status).toBe("cancelled");
  });

  it("ends a session call with status cancelled; a call that had to be killed ends the session", async () => {
    await session.run("def spin():\n    while True:\n        pass\ndef stubborn():\n    while True:\n        try:\n            spin()\n        except BaseException:\n            pass", { timeoutMs: 30_000 });
    const soft = await cancelAfter(300, (signal) => session.call("spin", [], { signal, timeoutMs: 20_000 }));
    expect(soft.result.status).toBe("cancelled");
    expect((await session.run("1 + 1", { timeoutMs: 30_000 })).result).toBe(2);
    const hard = await cancelAfter(300, (signal) => session.call("stubborn", [], { signal, timeoutMs: 20_000 }));
    expect(hard.result.status).toBe("cancelled");
    expect(() => session.run("1")).toThrow(SandboxSessionEndedError);
  });
});

describe("fresh state per run after the in-place reset", { timeout: 120_000 }, () => {
  const probe = "import builtins, sys, os\n[hasattr(builtins, 'LEAK'), 'LEAK_GLOBAL' in globals(), 'leaky_mod' in sys.modules, os.path.exists('/tmp/leak.txt'), getattr(sys, 'leak', None), len(getattr(builtins, 'BIG', b''))]";
  const clean = [false, false, false, false, null, 0];
  const leaks: Array<[string, Partial<ResolvedRunOptions>]> = [
    ["import builtins, sys, types\nbuiltins.LEAK = 1\nLEAK_GLOBAL = 2\nsys.modules['leaky_mod'] = types.ModuleType('leaky_mod')\nsys.leak = 'x'\nbuiltins.BIG = bytearray(20_000_000)", {}],
    ["open('/tmp/leak.txt', 'w').write('x')\nimport builtins\nbuiltins.LEAK = 1", {}],
    ["import builtins, sys\nbuiltins.LEAK = 1\nsys.leak = 'x'\nwhile True:\n    pass", { timeoutMs: 800 }],
    ["import builtins\nbuiltins.LEAK = 1\nkeep = []\nwhile True:\n    keep.append(bytearray(4 * 1024 * 1024))", { memoryLimitBytes: 32 * 1024 * 1024 }],
    ["import builtins\nbuiltins.LEAK = 1\nwhile True:\n    print('x' * 1000)", { maxOutputBytes: 10_000 }],
    ["import builtins, json\nbuiltins.LEAK = 1\njson.dumps = lambda *a, **k: 'patched'\nraise ValueError('after the patch')", {}],
  ];
  for (const [code, overrides] of leaks) {
    it(`nothing of ${JSON.stringify(code.split("\n").slice(-1)[0]).slice(0, 50)} reaches the next run`, async () => {
      await engine.run(code, options(overrides));
      const r = await engine.run(probe, options());
      expect(r.status).toBe("success");
      expect(r.result).toEqual(clean);
      expect((await engine.run("import json\njson.dumps([1])", options())).result).toBe("[1]");
    });
  }

  it("gives every run fresh random numbers", async () => {
    const a = await engine.run("import random\nrandom.random()", options());
    const b = await engine.run("import random\nrandom.random()", options());
    expect(a.result).not.toEqual(b.result);
  });
});
