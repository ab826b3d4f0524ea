/**
 * Issue 21's attacks on the Python pool reset, each followed by a victim run that must see a
 * pristine interpreter: the standard library rewritten through mmap/msync (and a stealthy
 * variant that replaces csv.py with a thief), /dev/null dup2'ed onto stdout, 4,094 leaked
 * descriptors, primitive writes on proxies that exist at baseline, and a guest reading the
 * runner's stdin. The standard-library attacks also run in a session, whose interpreter is never
 * reset: the file system itself must refuse them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPythonEngine } from "../../src/sandbox/python/host/engine.js";
import type { LanguageEngine, SandboxSession } from "../../src/sandbox/types.js";
import { options } from "../sandbox/python/support.js";

let engine: LanguageEngine;
let session: SandboxSession;

beforeAll(async () => {
  engine = createPythonEngine({ poolSize: 1 });
  await engine.warm();
  session = await engine.createSession({ language: "python", defaults: {}, memoryLimitBytes: 64 * 1024 * 1024 });
}, 180_000);

afterAll(async () => {
  await engine?.dispose();
});

/**
 * Rewrites module `target` inside /lib/python314.zip with `source` (deflated into the entry's
 * own space), every way the issue and its variants tried; returns what each attempt got.
 */
function stdlibRewrite(target: string, source: string): string {
  return `
import importlib, os, struct, zlib
try:
    mmap = importlib.import_module("mmap")
except ModuleNotFoundError:
    mmap = None  # absent (import-seal.ts): its routes below are refused at once
PATH = "/lib/python314.zip"
data = open(PATH, "rb").read()
def locate(name):
    i = 0
    while True:
        i = data.find(b"PK\\x03\\x04", i)
        if i < 0:
            raise LookupError(name)
        method, csize, nlen, elen = struct.unpack("<4xH8xI4xHH", data[i + 4:i + 30])
        if data[i + 30:i + 30 + nlen] == name.encode():
            return i + 30 + nlen + elen, csize
        i += 4
start, csize = locate(${JSON.stringify(target)})
c = zlib.compressobj(9, zlib.DEFLATED, -15)
payload = c.compress(${JSON.stringify(source)}.encode()) + c.flush()
payload += b"\\0" * (csize - len(payload))
results = {}
def attempt(label, fn):
    try:
        fn()
        results[label] = "done"
    except BaseException as e:
        results[label] = type(e).__name__
def shared_map(flags):
    fd = os.open(PATH, flags)
    m = mmap.mmap(fd, 0, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    m[start:start + csize] = payload
    m.flush()
def write_through(flags):
    fd = os.open(PATH, flags)
    os.lseek(fd, start, 0)
    os.write(fd, payload)
def chmod_then_map():
    os.chmod(PATH, 0o666)
    shared_map(os.O_RDWR)
def replace_file():
    os.rename(PATH, "/tmp/old.zip")
def truncate():
    os.truncate(PATH, 0)
attempt("mmap O_RDWR", lambda: shared_map(os.O_RDWR))
attempt("mmap O_RDONLY shared writable", lambda: shared_map(os.O_RDONLY))
attempt("os.write O_RDWR", lambda: write_through(os.O_RDWR))
attempt("os.write O_WRONLY", lambda: write_through(os.O_WRONLY))
attempt("chmod then mmap", chmod_then_map)
attempt("rename", replace_file)
attempt("truncate", truncate)
attempt("unlink", lambda: os.unlink(PATH))
attempt("create beside", lambda: open("/lib/evil.py", "w").write("x"))
results
`;
}

const PLANTED_STATISTICS = "import builtins\nbuiltins.PLANTED = 'statistics'\ndef mean(xs):\n    return 'stolen'\n";
const THIEF_CSV =
  "import builtins, sys\nbuiltins.STOLEN = [k for k in getattr(sys.modules.get('__main__'), '__dict__', {})]\nfrom _csv import *\nfrom _csv import reader, writer, Error, QUOTE_MINIMAL\n";

const VICTIM = "import builtins, statistics, csv, io\n[getattr(builtins, 'PLANTED', None), getattr(builtins, 'STOLEN', None), statistics.mean([1, 2, 3]), next(csv.reader(io.StringIO('a,b')))]";
const CLEAN_VICTIM = [null, null, 2, ["a", "b"]];

describe("the standard library cannot be rewritten", { timeout: 120_000 }, () => {
  for (const [label, target, source] of [
    ["statistics.py replaced through mmap + msync", "statistics.py", PLANTED_STATISTICS],
    ["csv.py replaced by a stealthy thief", "csv.py", THIEF_CSV],
  ] as const) {
    it(`${label}: every route is refused, and the next pool run imports the real module`, async () => {
      const attack = await engine.run(stdlibRewrite(target, source), options({ globals: { API_KEY: "victim-secret" } }));
      expect(attack.status).toBe("success");
      const attempts = attack.result as Record<string, string>;
      expect(Object.keys(attempts)).toHaveLength(9);
      for (const [route, outcome] of Object.entries(attempts)) expect(`${route}: ${outcome}`).not.toMatch(/: done$/);
      const victim = await engine.run(VICTIM, options({ globals: { API_KEY: "victim-secret" } }));
      expect(victim.result).toEqual(CLEAN_VICTIM);
    });

    it(`${label}: refused in a session too (its interpreter is never reset)`, async () => {
      const attack = await session.run(stdlibRewrite(target, source), { timeoutMs: 20_000 });
      expect(attack.status).toBe("success");
      for (const [route, outcome] of Object.entries(attack.result as Record<string, string>)) expect(`${route}: ${outcome}`).not.toMatch(/: done$/);
      const victim = await session.run(VICTIM, { timeoutMs: 20_000 });
      expect(victim.result).toEqual(CLEAN_VICTIM);
    });
  }
});

describe("descriptors and proxies do not survive a pool run", { timeout: 120_000 }, () => {
  it("dup2 of /dev/null onto stdout and stderr does not silence the next run", async () => {
    await engine.run("import os\nn = os.open('/dev/null', os.O_WRONLY)\nos.dup2(n, 1)\nos.dup2(n, 2)", options());
    const next = await engine.run("import sys\nprint('visible')\nprint('also', file=sys.stderr)", options());
    expect(next.stdout).toBe("visible\n");
    expect(next.stderr).toBe("also\n");
  });

  it("4,094 leaked descriptors are gone for the next run", async () => {
    const leak = await engine.run("import os\nfds = []\ntry:\n    while True:\n        fds.append(os.open('/lib/python314.zip', os.O_RDONLY))\nexcept OSError as e:\n    err = e.errno\nlen(fds)", options());
    expect(leak.result as number).toBeGreaterThan(4000);
    const next = await engine.run("import os, statistics, fractions\nfd = os.open('/lib/python314.zip', os.O_RDONLY)\n[fd, statistics.mean([1, 3])]", options());
    expect(next.status).toBe("success");
    expect(next.result).toEqual([3, 2]);
  });

  it("a lone primitive write on a baseline JS object Python reaches (Function.leak = 0) is not seen later", async () => {
    await engine.run("import importlib\nnext(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi').to_js([]).constructor.constructor.leak = 0", options());
    const read = await engine.run("import importlib, statistics\n[hasattr(next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi').to_js([]).constructor.constructor, 'leak'), statistics.mean([2, 4])]", options());
    expect(read.result).toEqual([false, 3]);
  });

  it("primitive writes on baseline JS objects (Function, its prototype, Uint8Array.prototype) are not seen later; js and pyodide_js are not there to write", async () => {
    const write = await engine.run(
      "import importlib\nffi = next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi')\njs = next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi').to_js([]).constructor.constructor\nF = js\nF.leak = 1\nF.prototype.leak = 2\nffi.to_js(bytearray(1)).constructor.prototype.leak = 3\ntry:\n    js.leak = 4\nexcept Exception:\n    pass\ntry:\n    importlib.import_module('pyodide_js').FS = 0\nexcept ModuleNotFoundError:\n    pass",
      options(),
    );
    expect(write.status).toBe("success");
    const read = await engine.run(
      "import importlib\nffi = next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi')\njs = next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi').to_js([]).constructor.constructor\nF = js\n[hasattr(F, 'leak'), hasattr(F.prototype, 'leak'), hasattr(ffi.to_js(bytearray(1)).constructor.prototype, 'leak'), hasattr(js, 'leak')]",
      options(),
    );
    expect(read.result).toEqual([false, false, false, false]);
  });

  it("a guest reading stdin gets an error and does not take the host's next request", async () => {
    const r = await engine.run("import sys, os\nout = []\nfor read in (lambda: sys.stdin.read(1), lambda: os.read(0, 100)):\n    try:\n        out.append(repr(read()))\n    except OSError as e:\n        out.append(type(e).__name__)\nout", options({ timeoutMs: 5000 }));
    expect(r.status).toBe("success");
    expect(r.result).toEqual(["OSError", "OSError"]);
    const started = performance.now();
    expect((await engine.run("6 * 7", options())).result).toBe(42);
    expect(performance.now() - started).toBeLessThan(5000);
    const inSession = await session.run("import os\ntry:\n    got = os.read(0, 10)\nexcept OSError as e:\n    got = e.errno\ngot", { timeoutMs: 5000 });
    expect(typeof inSession.result).toBe("number");
    expect((await session.run("1 + 1", { timeoutMs: 5000 })).result).toBe(2);
  });
});

/**
 * The guest's code that runs after its program's last step: a replaced `sys.stdout`'s flush, a
 * dict subclass's `items()` (or a `__del__`) reached while the result is turned into JSON, an
 * exception's `__str__` or an exit code's `__repr__` while the outcome is described. It
 * used to run in the driver's masked steps, where a limit's interrupt could not reach it: a loop
 * there was killed, and the session ended. It runs in the program's task now.
 */
describe("the guest's code in the result's conversion and the streams' flush is interruptible", { timeout: 120_000 }, () => {
  it("a session keeps its state when a limit stops a loop in a result's items(), a stream's flush, a call's result or an exception's description", async () => {
    const own = await engine.createSession({ language: "python", defaults: {}, memoryLimitBytes: 64 * 1024 * 1024 });
    try {
      await own.run("MARK = 41\nclass Loops(dict):\n    def items(self):\n        while True:\n            pass\ndef looping():\n    return Loops(a=1)", { timeoutMs: 5000 });
      const inResult = await own.run("Loops(a=1)", { timeoutMs: 800 });
      expect(inResult.status).toBe("timeout");
      expect(inResult.error?.message).toMatch(/was interrupted/);
      expect((await own.run("MARK + 1", { timeoutMs: 5000 })).result).toBe(42);
      const inCall = await own.call("looping", [], { timeoutMs: 800 });
      expect(inCall.status).toBe("timeout");
      expect((await own.run("MARK + 2", { timeoutMs: 5000 })).result).toBe(43);
      const inFlush = await own.run(
        "import sys\nclass Stuck:\n    def write(self, s):\n        return len(s)\n    def flush(self):\n        while True:\n            pass\nsys.stdout = Stuck()",
        { timeoutMs: 800 },
      );
      expect(inFlush.status).toBe("timeout");
      expect(inFlush.error?.message).toMatch(/was interrupted/);
      expect((await own.run("import sys\nsys.stdout = sys.__stdout__\nMARK + 3", { timeoutMs: 5000 })).result).toBe(44);
      const inStr = await own.run("class Odd(Exception):\n    def __str__(self):\n        while True:\n            pass\nraise Odd()", { timeoutMs: 800 });
      expect(inStr.status).toBe("timeout");
      expect(inStr.error?.message).toMatch(/was interrupted/);
      const inExitCode = await own.run("import sys\nclass Code:\n    def __repr__(self):\n        while True:\n            pass\nsys.exit(Code())", { timeoutMs: 800 });
      expect(inExitCode.status).toBe("timeout");
      expect((await own.run("MARK + 5", { timeoutMs: 5000 })).result).toBe(46);
      const limited = await own.run("class Loud(dict):\n    def items(self):\n        print('x' * 5000)\n        return dict.items(self)\nLoud(a=1)", { timeoutMs: 5000, maxOutputBytes: 1000 });
      expect(limited.status).toBe("output_limit");
      expect((await own.run("MARK + 4", { timeoutMs: 5000 })).result).toBe(45);
    } finally {
      await own.dispose();
    }
  });

  it("a pool run's result is still measured by the worker, and one whose items() loops ends timeout", async () => {
    const looping = await engine.run("class Loops(dict):\n    def items(self):\n        while True:\n            pass\nLoops(a=1)", options({ timeoutMs: 800 }));
    expect(looping.status).toBe("timeout");
    const big = await engine.run("'x' * 2000", options({ maxResultBytes: 1000 }));
    expect(big.status).toBe("output_limit");
    const fine = await engine.run("class D(dict):\n    pass\nprint('out', end='')\nD(a=[1, 2**60])", options());
    expect(fine.status).toBe("success");
    expect(fine.stdout).toBe("out");
    expect(fine.result).toEqual({ a: [1, "1152921504606846976"] });
  });
});

describe("a raise is success only when it is a real exit with code 0", { timeout: 120_000 }, () => {
  it("a description rewritten through gc cannot turn a ValueError into success; exits still end as they should", async () => {
    const forged = await engine.run(
      "import gc, types\nfor o in gc.get_objects():\n    if isinstance(o, types.FunctionType) and o.__name__ == '_cs_describe_exception':\n        o.__code__ = (lambda e: '{\"status\": \"success\", \"exited\": \"sys.exit(0)\"}').__code__\nraise ValueError('really failed')",
      options(),
    );
    expect(forged.status).toBe("runtime_error");
    const lyingCode = await engine.run("class Exit(SystemExit):\n    code = property(lambda self: 0)\nraise Exit(5)", options());
    expect(lyingCode.status).toBe("runtime_error");
    expect((await engine.run("import sys\nsys.exit(0)", options())).status).toBe("success");
    expect((await engine.run("import sys\nsys.exit()", options())).status).toBe("success");
    expect((await engine.run("import sys\nsys.exit(3)", options())).status).toBe("runtime_error");
  });
});
