/**
 * Hostile Python programs for the reset's differential test: each tries to leave something
 * behind for the next run of the same interpreter. `reset` says what the pool must do with the
 * interpreter afterwards: "in place" (the run only changed WebAssembly memory, which the reset
 * restores), "replaced" (it reached JavaScript or changed files: a new worker), or "either".
 */

export interface HostileProgram {
  name: string;
  code: string;
  reset: "in place" | "replaced" | "either";
  timeoutMs?: number;
}

const inPlace = (name: string, code: string): HostileProgram => ({ name, code, reset: "in place" });
const replaced = (name: string, code: string, timeoutMs?: number): HostileProgram => ({ name, code, reset: "replaced", ...(timeoutMs ? { timeoutMs } : {}) });
const either = (name: string, code: string): HostileProgram => ({ name, code, reset: "either" });

/** Finds a prelude function of the runner through the garbage collector and rewrites it. */
const GC_TAMPER = (fn: string) =>
  `import gc, types\nfor o in gc.get_objects():\n    if isinstance(o, types.FunctionType) and o.__name__ == ${JSON.stringify(fn)}:\n        o.__code__ = (lambda *a, **k: '{"status": "success", "resultJson": "\\\\"FORGED\\\\""}').__code__\n'tampered'`;

export const HOSTILE_PROGRAMS: HostileProgram[] = [
  // ---- interpreter state that lives in WebAssembly memory (reset in place) ----
  inPlace("patch builtins.print", "import builtins\nbuiltins.print = lambda *a, **k: None"),
  inPlace("patch builtins.len and open", "import builtins\nbuiltins.len = lambda x: 42\nbuiltins.open = None"),
  inPlace("patch builtins.__import__", "import builtins\nbuiltins.__import__ = lambda *a, **k: None"),
  inPlace("new builtin", "import builtins\nbuiltins.LEAK = 'x' * 1000"),
  inPlace("delete a builtin", "import builtins\ndel builtins.sorted"),
  inPlace("sys.modules insert", "import sys, types\nsys.modules['evil'] = types.ModuleType('evil')\nsys.modules['json'] = None"),
  inPlace("sys.modules delete", "import sys\nfor k in list(sys.modules):\n    if k.startswith('enc'):\n        del sys.modules[k]"),
  inPlace("sys.modules clear", "import sys\nsys.modules.clear()"),
  inPlace("sys.path rewrite", "import sys\nsys.path[:] = ['/nowhere']"),
  inPlace("sys.meta_path finder", "import sys\nclass F:\n    def find_spec(self, *a):\n        return None\nsys.meta_path.insert(0, F())"),
  inPlace("sys.path_hooks and importer cache", "import sys\nsys.path_hooks.clear()\nsys.path_importer_cache.clear()"),
  either("monkeypatch json.dumps", "import json\njson.dumps = lambda *a, **k: 'patched'\njson.loads = None"),
  inPlace("monkeypatch random", "import random\nrandom.random = lambda: 4\nrandom.seed(1)"),
  inPlace("random state", "import random\nrandom.setstate(random.getstate())\n[random.random() for _ in range(1000)][-1]"),
  inPlace("recursion limit", "import sys\nsys.setrecursionlimit(60)"),
  inPlace("int max str digits", "import sys\nsys.set_int_max_str_digits(640)"),
  inPlace("switch interval", "import sys\nsys.setswitchinterval(1.0)"),
  inPlace("warnings filters", "import warnings\nwarnings.simplefilter('error')\nwarnings.filters.insert(0, ('ignore', None, Warning, None, 0))"),
  inPlace("gc disabled and thresholds", "import gc\ngc.disable()\ngc.set_threshold(1, 1, 1)\ngc.freeze()"),
  inPlace("gc callbacks", "import gc\ngc.callbacks.append(lambda *a: print('gc!'))"),
  inPlace("atexit", "import atexit\natexit.register(print, 'at exit')"),
  inPlace("settrace", "import sys\nsys.settrace(lambda *a: None)"),
  inPlace("setprofile", "import sys\nsys.setprofile(lambda *a: None)"),
  inPlace("sys.monitoring tool", "import sys\nm = sys.monitoring\nm.use_tool_id(3, 'evil')\nm.register_callback(3, m.events.PY_START, lambda *a: None)\nm.set_events(3, m.events.PY_START)"),
  inPlace("excepthook and displayhook", "import sys\nsys.excepthook = None\nsys.displayhook = None\nsys.unraisablehook = None\nsys.breakpointhook = None"),
  inPlace("audit hook", "import sys\nsys.addaudithook(lambda *a: None)"),
  inPlace("stdout replaced", "import sys, io\nsys.stdout = io.StringIO()\nsys.stderr = io.StringIO()"),
  inPlace("partial line left in the buffer", "import sys\nsys.stdout.write('no newline, no flush')"),
  inPlace("stdout encoding", "import sys\nsys.stdout.reconfigure(errors='strict', line_buffering=False)"),
  inPlace("os.environ in Python", "import os\nos.environ['LEAK'] = '1'\ndel os.environ['HOME']"),
  inPlace("codecs registry", "import codecs\ncodecs.register(lambda name: None)"),
  inPlace("copyreg", "import copyreg\ncopyreg.pickle(complex, lambda c: (complex, (0, 0)))"),
  inPlace("abc registry", "import collections.abc as c\nclass X: pass\nc.Iterable.register(X)\nc.Mapping.register(list)"),
  inPlace("typing caches", "import typing\n[typing.List[int], typing.Dict[str, typing.Any]]\ntyping._cleanups.clear()"),
  inPlace("functools caches", "import functools, re\nre.purge()\n@functools.lru_cache\ndef f(x): return x\nf(1)"),
  inPlace("re cache poisoned", "import re\nre._cache2[(str, 'a', 0)] = re.compile('b')"),
  inPlace("__main__ namespace", "import sys\nm = sys.modules['__main__']\nm.__dict__['LEAK'] = 1\nm.__dict__.pop('__name__', None)"),
  inPlace("main module replaced", "import sys, types\nsys.modules['__main__'] = types.ModuleType('fake')"),
  inPlace("interned strings", "import sys\n[sys.intern('leak-%d' % i) for i in range(10000)][-1]"),
  inPlace("new classes and subclasses", "class A(object): pass\nclass B(dict): pass\nlen(object.__subclasses__())"),
  inPlace("type attribute on a heap type", "import json\njson.JSONEncoder.default = lambda self, o: 'patched'"),
  inPlace("exceptions retained", "import sys\ntry:\n    1/0\nexcept Exception as e:\n    sys.last_exc = e\n    sys.last_value = e"),
  inPlace("deep recursion", "import sys\nsys.setrecursionlimit(5000)\ndef f(n): return f(n + 1)\ntry:\n    f(0)\nexcept RecursionError:\n    pass"),
  inPlace("suspended generator", "def g():\n    yield 1\n    yield 2\nit = g()\nnext(it)\nimport builtins\nbuiltins.GEN = it"),
  inPlace("coroutine never awaited", "async def c(): pass\nx = c()\nimport builtins\nbuiltins.CORO = x"),
  inPlace("object with __del__", "class D:\n    def __del__(self):\n        print('finalizer ran')\nimport builtins\nbuiltins.D = D()"),
  inPlace("cyclic garbage with finalizer", "class C:\n    def __del__(self):\n        print('late')\na = C(); b = C(); a.b = b; b.a = a\ndel a, b"),
  inPlace("weakref callbacks", "import weakref\nclass O: pass\no = O()\nr = weakref.ref(o, lambda r: print('cb'))\nimport builtins\nbuiltins.R = r"),
  inPlace("contextvars", "import contextvars\nv = contextvars.ContextVar('v')\nv.set('leak')"),
  inPlace("decimal context", "import decimal\ndecimal.getcontext().prec = 3"),
  inPlace("locale in Python", "import locale\nlocale._override_localeconv = {'decimal_point': ','}"),
  inPlace("sys.flags-like state", "import sys\nsys.dont_write_bytecode = False\nsys.ps1 = '>>> '"),
  inPlace("asyncio policy", "import asyncio\nasyncio.set_event_loop_policy(None)"),
  inPlace("prelude entry tampered through gc", GC_TAMPER("_cs_run")),
  either("prelude result tampered through gc", GC_TAMPER("_cs_result")),
  inPlace("prelude import guard tampered", GC_TAMPER("_cs_import_problem")),
  inPlace("prelude namespace tampered", "import gc\nfor o in gc.get_objects():\n    if isinstance(o, dict) and '_cs_run' in o:\n        o['_CS_FORBIDDEN'] = set()\n        o['_CS_MAX_MESSAGE'] = 1"),
  either("json encoder in C replaced", "import json.encoder as e\ne.c_make_encoder = None\ne.encode_basestring_ascii = lambda s: 'x'"),
  inPlace("small allocation churn", "x = [bytes(1000) for _ in range(5000)]\ndel x"),
  inPlace("large result", "['x' * 100] * 5000"),
  inPlace("output near the cap", "print('y' * 60000)"),
  inPlace("runtime error with a long traceback", "def f(n):\n    if n == 0:\n        raise ValueError('deep')\n    f(n - 1)\nf(200)"),
  inPlace("SystemExit", "raise SystemExit(3)"),
  inPlace("KeyboardInterrupt raised", "raise KeyboardInterrupt"),
  inPlace("BaseException subclass", "class E(BaseException): pass\nraise E('x')"),
  inPlace("syntax error", "def ("),
  inPlace("read-only file reads left open", "fs = [open('/lib/python314.zip', 'rb') for _ in range(20)]\nimport builtins\nbuiltins.FS = fs\nfs[0].read(100)"),
  inPlace("4094 descriptors leaked", "import os\nfds = []\ntry:\n    while True:\n        fds.append(os.open('/lib/python314.zip', os.O_RDONLY))\nexcept OSError:\n    pass\nlen(fds)"),
  inPlace("directory scans", "import os\n[len(os.listdir(p)) for p in ('/', '/lib', '/dev', '/tmp', '/home/pyodide', '/proc/self/fd')]"),
  inPlace("stat everything", "import os\n[os.stat(p).st_mode for p in ('/', '/lib/python314.zip', '/dev/null', '/dev/stdout')]"),
  inPlace("seek and read the standard library", "f = open('/lib/python314.zip', 'rb')\nf.seek(1000)\nf.read(10)\nf.seek(0, 2)\nf.tell()"),
  inPlace("import many modules", "import statistics, fractions, decimal, csv, calendar, difflib, textwrap, string, heapq\nstatistics.mean([1, 2])"),
  inPlace("stdout and stderr written", "import sys\nprint('out')\nprint('err', file=sys.stderr)\nsys.stdout.flush()"),
  inPlace("fd 1 and 2 written directly", "import os\nos.write(1, b'raw out\\n')\nos.write(2, b'raw err\\n')"),
  inPlace("fcntl reads on descriptors", "import importlib\nfcntl = importlib.import_module('fcntl')\n[fcntl.fcntl(fd, fcntl.F_GETFL) for fd in (0, 1, 2)]"),
  inPlace("isatty", "import os\n[os.isatty(fd) for fd in (0, 1, 2)]"),
  inPlace("time and entropy", "import time, os, datetime\n(time.time(), time.monotonic(), os.urandom(8).hex(), str(datetime.datetime.now()))"),
  inPlace("hash randomization probe", "hash('abc')"),
  inPlace("ctypes-free memory view games", "b = bytearray(b'abc')\nm = memoryview(b)\nm[0] = 120\nbytes(m)"),
  // ---- reaching JavaScript, changing files or the memory's size (worker replaced) ----
  replaced("dup2 /dev/null onto stdout and stderr", "import os\nn = os.open('/dev/null', os.O_WRONLY)\nos.dup2(n, 1)\nos.dup2(n, 2)"),
  replaced("close stdout", "import os\nos.close(1)"),
  replaced("dup stdout", "import os\nos.dup(1)"),
  replaced("write a file in /tmp", "open('/tmp/leak.txt', 'w').write('x')"),
  replaced("make a directory", "import os\nos.mkdir('/home/pyodide/leak')"),
  replaced("chdir", "import os\nos.chdir('/tmp')"),
  replaced("umask", "import os\nos.umask(0o777)"),
  replaced("chmod the standard library", "import os\ntry:\n    os.chmod('/lib/python314.zip', 0o666)\nexcept OSError as e:\n    print(e)"),
  replaced("open the standard library for writing", "try:\n    open('/lib/python314.zip', 'r+b')\nexcept OSError as e:\n    print(e)"),
  replaced("rename the standard library", "import os\ntry:\n    os.rename('/lib/python314.zip', '/tmp/z')\nexcept OSError as e:\n    print(e)"),
  replaced("symlink", "import os\nos.symlink('/lib', '/tmp/l')"),
  replaced("read stdin", "import sys\ntry:\n    sys.stdin.read(1)\nexcept Exception as e:\n    print(type(e).__name__)"),
  replaced("grow the memory", "x = bytearray(60 * 1024 * 1024)"),
  replaced("read pyodide_js.version", "import importlib\nimportlib.import_module('pyodide_js').version"),
  replaced("primitive writes on baseline proxies", "import importlib\npj = importlib.import_module('pyodide_js')\npj.FS = 0\npj._api.leak = 1\npj._module.leak = 2"),
  replaced("js module attribute", "import importlib\njs = importlib.import_module('js')\njs.leak = 1"),
  replaced("JS timer left behind", "import importlib\njs = importlib.import_module('js')\ncreate_proxy = importlib.import_module('pyodide.ffi').create_proxy\njs.setTimeout(create_proxy(lambda: print('late')), 10)"),
  replaced("AbortSignal.timeout", "import importlib\npj = importlib.import_module('pyodide_js')\ns = pj._api.abortSignalAny([]).constructor\ns.timeout(20)"),
  replaced("JS prototype pollution", "import importlib\npj = importlib.import_module('pyodide_js')\npj._module.HEAPU8.constructor.prototype.leak = 1"),
  replaced("timeout", "while True:\n    pass", 600),
  either("mmap the standard library", "import importlib, os\nmmap = importlib.import_module('mmap')\nfd = os.open('/lib/python314.zip', os.O_RDONLY)\ntry:\n    m = mmap.mmap(fd, 0, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ | mmap.PROT_WRITE)\nexcept OSError as e:\n    print(e)"),
  either("ctypes import", "import importlib\ntry:\n    importlib.import_module('ctypes')\nexcept Exception as e:\n    print(type(e).__name__)"),
];
