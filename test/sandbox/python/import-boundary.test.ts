/**
 * The import policy as a run-time boundary (import-seal.ts): what it forbids is absent from the
 * interpreter on every import route, in a pool run and in a session; a guarded import runs its
 * fallback; an unguarded one is the program's error at its line; tracebacks show the user's
 * frames only; the guest sees no host path.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxSession } from "../../../src/sandbox/types.js";
import { options, useWarmPythonEngine } from "./support.js";

const engine = useWarmPythonEngine();
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** The modules of the bypass list, and the native ones that write raw memory. */
const TARGETS = ["ctypes", "_ctypes", "js", "pyodide_js", "pyodide", "pyodide.ffi", "_pyodide_core", "posix", "signal", "_signal", "mmap", "socket", "_socket", "threading", "_thread", "subprocess", "_posixsubprocess", "select", "_testcapi", "_testinternalcapi"];

/** Every import route, per module: what it gave ("absent" when it raised ModuleNotFoundError or found nothing). */
const ROUTES = `
import importlib, importlib.util, importlib.machinery as machinery, sys, _imp, zipimport, builtins
def routes(name):
    out = {}
    def attempt(route, fn):
        try:
            got = fn()
            out[route] = "absent" if got is None else "GOT " + repr(got)[:60]
        except ModuleNotFoundError:
            out[route] = "absent"
        except BaseException as e:
            out[route] = "raised " + type(e).__name__
    attempt("import_module", lambda: importlib.import_module(name))
    attempt("__import__", lambda: __import__(name))
    attempt("builtins.__import__", lambda: builtins.__import__(name))
    attempt("sys.modules", lambda: sys.modules.get(name))
    attempt("find_spec", lambda: importlib.util.find_spec(name))
    attempt("BuiltinImporter", lambda: machinery.BuiltinImporter.find_spec(name))
    attempt("_imp.create_builtin", lambda: _imp.create_builtin(machinery.ModuleSpec(name, None)))
    attempt("_imp.is_builtin", lambda: _imp.is_builtin(name) or None)
    path = name.replace(".", "/")
    attempt("zipimporter", lambda: zipimport.zipimporter("/lib/python314.zip").find_spec(name))
    def from_file():
        for suffix in ("/__init__.py", ".py"):
            try:
                loader = machinery.SourceFileLoader(name, "/lib/python314.zip/" + path + suffix)
                return loader.load_module()
            except (OSError, ImportError):
                continue
    attempt("SourceFileLoader", from_file)
    def after_cache_clear():
        importlib.invalidate_caches()
        zipimport._zip_directory_cache.clear()
        sys.path_importer_cache.clear()
        sys.meta_path[:] = [f for f in sys.meta_path]
        return importlib.import_module(name)
    attempt("caches cleared", after_cache_clear)
    return out
got = {name: routes(name) for name in ${JSON.stringify(TARGETS)}}
{name: {route: what for route, what in r.items() if what != "absent"} for name, r in got.items() if any(what != "absent" for what in r.values())}
`;

/** The forgery: a done callback (through ctypes) clearing the exception the task stored. */
const CTYPES_DONE_CALLBACK = `
import importlib, asyncio
ctypes = importlib.import_module("ctypes")
task = asyncio.current_task()
def clear(t):
    ctypes.pythonapi.PyErr_Clear()
    ctypes.c_void_p.from_address(id(t) + 8 * 4).value = None
task.add_done_callback(clear)
await asyncio.sleep(0)
raise ValueError("the program raised")
`;

/** The issue's other forgery: an audit hook rewriting the tests' compiled code (through ctypes). */
const CTYPES_AUDIT_HOOK = `
import sys, importlib
ctypes = importlib.import_module("ctypes")
def add(a, b):
    return a - b
def hook(event, args):
    if event == "exec" and args and hasattr(args[0], "co_code"):
        code = args[0]
        ret = (lambda: None).__code__.co_code
        ctypes.memmove(id(code) + 64, ret, len(ret))
sys.addaudithook(hook)
`;

describe("what the policy forbids is absent at run time", { timeout: 180_000 }, () => {
  let session: SandboxSession;
  beforeAll(async () => {
    session = await engine.createSession({ language: "python", defaults: {}, memoryLimitBytes: 64 * 1024 * 1024 });
  }, 120_000);
  afterAll(async () => {
    await session?.dispose();
  });

  it("no import route reaches a forbidden module in a pool run", async () => {
    const r = await engine.run(ROUTES, options({ timeoutMs: 30_000 }));
    expect(r.error).toBeUndefined();
    expect(r.status).toBe("success");
    expect(r.result).toEqual({});
  });

  it("no import route reaches a forbidden module in a session, on its first call or later", async () => {
    for (let i = 0; i < 2; i++) {
      const r = await session.run(ROUTES, { timeoutMs: 30_000 });
      expect(r.status).toBe("success");
      expect(r.result).toEqual({});
    }
  });

  it("the ctypes forgeries end in ModuleNotFoundError: a raising program is not success, a wrong add does not pass", async () => {
    const raised = await engine.run(CTYPES_DONE_CALLBACK, options({ tests: "assert True" }));
    expect(raised.status).toBe("forbidden");
    expect(raised.error?.name).toBe("ModuleNotFoundError");
    expect(raised.tests?.status).not.toBe("passed");
    const hooked = await engine.run(CTYPES_AUDIT_HOOK, options({ tests: "assert add(2, 3) == 5\nassert type(add(2, 3)) is int\nassert repr(add(2, 3)) == '5'" }));
    expect(hooked.status).toBe("forbidden");
    expect(hooked.tests?.status).not.toBe("passed");
    const inSession = await session.run(CTYPES_DONE_CALLBACK, { timeoutMs: 10_000 });
    expect(inSession.status).toBe("forbidden");
  });

  it("what stays held by the runtime is not importable again, and its process calls are gone", async () => {
    const r = await engine.run(
      "import os, asyncio\nposix = os.stat.__self__\n[hasattr(posix, 'system'), hasattr(posix, 'fork'), hasattr(posix, 'execv'), os.getcwd() != '']",
      options(),
    );
    expect(r.result).toEqual([false, false, false, true]);
  });
});

describe("a guarded import runs its fallback; an unguarded one is the program's error at its line", { timeout: 120_000 }, () => {
  const shapes = [
    "try:\n    import numpy as np\nexcept ImportError:\n    np = None\nprint('fallback' if np is None else 'numpy')",
    "try:\n    import ctypes\nexcept ModuleNotFoundError:\n    ctypes = None\nprint('fallback' if ctypes is None else 'ctypes')",
    "import importlib.util\nif importlib.util.find_spec('numpy') is None and importlib.util.find_spec('socket') is None:\n    print('fallback')\nelse:\n    import numpy",
  ];

  it("the three guarded shapes run and take the fallback (run and check)", async () => {
    for (const code of shapes) {
      const r = await engine.run(code, options());
      expect(r.status, code).toBe("success");
      expect(r.stdout, code).toBe("fallback\n");
      expect((await engine.check(code, "python")).ok, code).toBe(true);
    }
  });

  it("an unguarded import is the program's error at its line, with the sandbox's message", async () => {
    const numpy = await engine.run("print('ran')\nx = 1\nimport numpy as np\nprint('after')", options());
    expect(numpy.status).toBe("forbidden");
    expect(numpy.stdout).toBe("ran\n");
    expect(numpy.error?.name).toBe("ModuleNotFoundError");
    expect(numpy.error?.line).toBe(3);
    // numpy is in Pyodide's lock: the message names the option that adds it.
    expect(numpy.error?.message).toBe("module 'numpy' is not available: the sandbox runs the Python standard library; its package numpy is in Pyodide's package list but not configured (the sandbox's option python.packages: [\"numpy\"], the CLI's --package, the MCP server's --python-package add it), or rewrite it with the standard library.");
    const unknown = await engine.run("import no_such_package_xyz", options());
    expect(unknown.error?.message).toBe("module 'no_such_package_xyz' is not available: the sandbox runs the Python standard library only (no third-party packages, no installs). Rewrite it with the standard library.");
    const sub = await engine.run("def f():\n    from subprocess import run\n\nf()", options());
    expect(sub.status).toBe("forbidden");
    expect(sub.error?.line).toBe(2);
    expect(sub.error?.message).toMatch(/^import of 'subprocess' is not allowed in the sandbox/);
    const submodule = await engine.run("from urllib import request", options());
    expect(submodule.status).toBe("forbidden");
    expect(submodule.error?.message).toMatch(/urllib\.request/);
    const viaImportlib = await engine.run("import importlib\n\nimportlib.import_module('js')", options());
    expect(viaImportlib.status).toBe("forbidden");
    expect(viaImportlib.error?.line).toBe(3);
  });

  it("a check still refuses an unguarded top-level import without running", async () => {
    const checked = await engine.check("import socket\nprint(1)", "python");
    expect(checked.ok).toBe(false);
    if (!checked.ok) {
      expect(checked.status).toBe("forbidden");
      expect(checked.error.line).toBe(1);
    }
  });

  it("the standard library modules built on forbidden ones still import", async () => {
    const r = await engine.run("import queue, unittest, doctest, email.message, email.utils, logging.handlers, sched, tempfile, asyncio, zipfile\nq = queue.Queue()\nq.put(1)\n[q.get(), email.utils.parseaddr('A <a@b.c>')[1]]", options());
    expect(r.error).toBeUndefined();
    expect(r.result).toEqual([1, "a@b.c"]);
  });
});

describe("tracebacks show the user's frames only", { timeout: 120_000 }, () => {
  it("no _cs_ name, runner file or wrapper line in an error, a printed traceback or a failing test", async () => {
    const code = "import traceback\ntry:\n    import numpy\nexcept ImportError:\n    print(traceback.format_exc())\ndef f(x):\n    return 1 / x\nf(0)";
    const r = await engine.run(code, options());
    expect(r.status).toBe("runtime_error");
    expect(r.error?.line).toBe(7);
    const tests = await engine.run("def g():\n    import numpy\n", options({ tests: "g()" }));
    const texts = [r.stdout, r.stderr, JSON.stringify(r.error), JSON.stringify(tests.tests), JSON.stringify(tests.error ?? null)];
    for (const text of texts) {
      expect(text).not.toMatch(/_cs_|<sandbox>|frozen importlib/);
    }
    expect(r.stdout).toContain('File "<code>", line 3, in <module>');
    expect(tests.tests?.status).toBe("failed");
  });
});

describe("the guest sees no host path", { timeout: 120_000 }, () => {
  it("sys.executable, argv, $_ and every string the collector can reach hold no host path", async () => {
    const r = await engine.run(
      "import sys, os, gc\n# Reversed in the source, so the program's own text does not hold the path.\nneedle = " + JSON.stringify([...repoRoot].reverse().join("")) + "[::-1]\nhits = set()\nfor o in gc.get_objects():\n    try:\n        items = list(o.keys()) + list(o.values()) if isinstance(o, dict) else list(o) if isinstance(o, (list, tuple, set, frozenset)) else []\n    except Exception:\n        continue\n    for v in items:\n        if (isinstance(v, str) and needle in v and v is not needle) or (isinstance(v, bytes) and needle.encode() in v):\n            hits.add(v[:100] if isinstance(v, str) else repr(v[:100]))\n" +
        "[sys.executable, sys.argv, sys.orig_argv, os.environ.get('_'), os.stat.__self__.environ.get(b'_'), sorted(hits)]",
      options({ timeoutMs: 30_000 }),
    );
    expect(r.error).toBeUndefined();
    const [executable, argv, origArgv, underscore, rawUnderscore, hits] = r.result as unknown[];
    expect(executable).toBe("");
    expect(argv).toEqual([""]);
    expect(origArgv).toEqual(["python"]);
    expect(underscore).toBeNull();
    expect(rawUnderscore).toBeNull();
    expect(hits).toEqual([]);
  });
});
