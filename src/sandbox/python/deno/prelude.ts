/**
 * Python code installed in every fresh interpreter before user code runs: compile-first
 * checks, the import policy, notebook-style results and tracebacks trimmed to user frames.
 * Kept as a string so the Deno worker can load it without reading extra files.
 */

/**
 * Modules that cannot work here or would reach the host. They are absent at run time (the
 * worker seals them away before any guest code: import-seal.ts), so every way of importing them
 * raises ModuleNotFoundError, which a guarded import catches.
 */
export const FORBIDDEN_MODULES: readonly string[] = [
  "js", "pyodide", "pyodide_js", "_pyodide", "_pyodide_core", "micropip",
  "subprocess", "socket", "_socket", "ssl", "_ssl", "select", "selectors", "ctypes", "_ctypes",
  "multiprocessing", "_multiprocessing", "concurrent", "threading", "_thread", "signal", "pty",
  "tty", "termios", "fcntl", "resource", "mmap", "socketserver", "ftplib", "smtplib", "imaplib",
  "poplib", "telnetlib", "webbrowser", "xmlrpc", "urllib.request", "http.client", "http.server",
  "asyncio.subprocess", "_posixsubprocess", "posix", "nt", "_signal",
  // CPython's test and debugging modules built into Pyodide: they read and write raw memory.
  "_testcapi", "_testinternalcapi", "_testbuffer", "_testlimitedcapi", "_testclinic", "_testclinic_limited",
  "_testmultiphase", "_testsinglephase", "_testimportmultiple", "xxsubtype", "_xxtestfuzz", "_remote_debugging", "faulthandler",
];

/**
 * The prelude; defines `_cs_check` and `_cs_functions` (runs and calls: prelude-run.ts). It runs
 * in a module namespace of its own (`_cs_runtime`, not in sys.modules); programs run in
 * `__main__`, whose namespace the prelude prepares (guarded builtins).
 */
export const PYTHON_PRELUDE = String.raw`
import ast as _cs_ast, builtins as _cs_builtins, json as _cs_json, linecache as _cs_linecache
import sys as _cs_sys, traceback as _cs_traceback, types as _cs_types

_CS_FILE = "<code>"
_CS_FORBIDDEN = set(_cs_json.loads(_CS_FORBIDDEN_JSON))
_CS_PACKAGES = sorted(_cs_json.loads(globals().get("_CS_PACKAGES_JSON", "[]")))
_CS_STDLIB = set(_cs_sys.stdlib_module_names) | set(_cs_sys.builtin_module_names) | set(_CS_PACKAGES)
_CS_MAX_MESSAGE = 2000
# Import name -> package name of every package in Pyodide's lock: an import of one that is not
# configured says which option adds it.
_CS_LOCK_IMPORTS = _cs_json.loads(globals().get("_CS_LOCK_IMPORTS_JSON", "{}"))

import os as _cs_os

# Imports must not write .pyc files: a run that leaves the file system as it found it can be
# reset in place (see worker.ts).
_cs_sys.dont_write_bytecode = True
# Emscripten finds its entropy source on first use (through Deno's node:crypto); do it now,
# before the worker strips Deno from the realm.
_cs_os.urandom(1)

# Emscripten names the program after the script that started the process (the runner's host
# path): it showed as sys.executable, sys.orig_argv and $_. The guest sees no host path.
_cs_os.environ.pop("_", None)
_cs_sys.modules["posix"].environ.pop(b"_", None)
_cs_sys.executable = _cs_sys._base_executable = ""
_cs_sys.orig_argv = ["python"]

def _cs_no_processes(*args, **kwargs):
    raise PermissionError("the sandbox has no processes: os.system, os.popen, fork and exec are unavailable")

for _cs_name in ("system", "popen", "fork", "forkpty", "execv", "execve", "execl", "execle", "execlp",
                 "execvp", "execvpe", "spawnv", "spawnve", "spawnl", "spawnle", "posix_spawn", "posix_spawnp"):
    if hasattr(_cs_os, _cs_name):
        setattr(_cs_os, _cs_name, _cs_no_processes)

def _cs_import_problem(name):
    """The message of an import the sandbox cannot satisfy (a forbidden or an absent module), or
    None for a module that may exist (the standard library, the configured packages)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        if ".".join(parts[:i]) in _CS_FORBIDDEN:
            return ("import of '%s' is not allowed in the sandbox: processes, sockets, native code, "
                    "threads and the JavaScript bridge are unavailable. Use only pure standard-library "
                    "modules and return or print the data instead." % name)
    if parts[0] not in _CS_STDLIB:
        if parts[0] in _CS_LOCK_IMPORTS:
            return ("module '%s' is not available: the sandbox runs the Python standard library%s; its package "
                    "%s is in Pyodide's package list but not configured (the sandbox's option "
                    "python.packages: [\"%s\"], the CLI's --package, the MCP server's --python-package add it), "
                    "or rewrite it with the standard library." % (name, (" and " + ", ".join(_CS_PACKAGES)) if _CS_PACKAGES else "",
                    _CS_LOCK_IMPORTS[parts[0]], _CS_LOCK_IMPORTS[parts[0]]))
        if _CS_PACKAGES:
            return ("module '%s' is not available: the sandbox runs the Python standard library and only these "
                    "installed packages: %s (no installs). Rewrite it with those." % (name, ", ".join(_CS_PACKAGES)))
        return ("module '%s' is not available: the sandbox runs the Python standard library only "
                "(no third-party packages, no installs). Rewrite it with the standard library." % name)
    return None

class _CsModuleNotFound(ModuleNotFoundError):
    """What the import system raises for a module it does not find: the ordinary ModuleNotFoundError
    (a guarded import catches it), with the sandbox's message for a forbidden or absent module.
    The import system looks its exception class up in its own globals (set below); raised inside
    it, the traceback shows only the program's frames (CPython drops the import system's)."""
    def __init__(self, *args, name=None, path=None, **kwargs):
        problem = _cs_import_problem(name) if isinstance(name, str) and name else None
        if problem and args and isinstance(args[0], str) and args[0].startswith("No module named"):
            args = (problem,) + args[1:]
        ModuleNotFoundError.__init__(self, *args, name=name, path=path, **kwargs)

_CsModuleNotFound.__name__ = _CsModuleNotFound.__qualname__ = "ModuleNotFoundError"
_CsModuleNotFound.__module__ = "builtins"
_cs_sys.modules["_frozen_importlib"].ModuleNotFoundError = _CsModuleNotFound
_cs_sys.modules["_frozen_importlib_external"].ModuleNotFoundError = _CsModuleNotFound

def _cs_refused_import(e):
    """The sandbox's message when an exception is an import it cannot satisfy (status forbidden
    when it ends a run): a module not found, or a name that is a forbidden submodule
    (from urllib import request: the import system reports the name, not the module), else None."""
    if not isinstance(e, ImportError) or not isinstance(e.name, str) or not e.name:
        return None
    if isinstance(e, ModuleNotFoundError):
        return _cs_import_problem(e.name)
    name_from = getattr(e, "name_from", None)
    if isinstance(name_from, str) and name_from:
        return _cs_import_problem(e.name + "." + name_from)
    return None

def _cs_error(name, message, line=None, column=None, stack=None):
    err = {"name": name, "message": str(message)[:_CS_MAX_MESSAGE]}
    if line is not None: err["line"] = line
    if column is not None: err["column"] = column
    if stack: err["stack"] = stack[:4 * _CS_MAX_MESSAGE]
    return err

def _cs_syntax(e):
    filename = e.filename or _CS_FILE
    line = e.lineno if isinstance(e.lineno, int) and e.lineno > 0 else None
    col = e.offset if isinstance(e.offset, int) and e.offset > 0 else None
    text = (e.text or "").rstrip("\n")
    stack = '  File "%s", line %s\n    %s\n%s: %s' % (filename, line, text.strip(), type(e).__name__, e.msg) if line else None
    return {"status": "syntax_error", "error": _cs_error(type(e).__name__, e.msg, line, col, stack)}

def _cs_syntax_outcome(e):
    if isinstance(e, SyntaxError):
        return _cs_syntax(e)
    return {"status": "syntax_error", "error": _cs_error("SyntaxError", str(e))}

def _cs_parse(code, filename=_CS_FILE, compiled=True, imports=False):
    """Returns (tree, None) or (None, outcome) for a syntax error, or with imports=True (a check
    without running) an unguarded import of a forbidden or absent module: one among the module's
    own top-level statements (an import in a try, an if, a function may be the program coping, and
    runs: the import raises ModuleNotFoundError there). With compiled=False the caller compiles
    the tree itself (and reports its syntax errors)."""
    try:
        tree = _cs_ast.parse(code, filename, "exec")
        if compiled:
            compile(tree, filename, "exec", flags=_cs_ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as e:
        return None, _cs_syntax_outcome(e)
    if not imports or (code.isascii() and "import" not in code):
        return tree, None
    for node in tree.body:
        names = []
        if isinstance(node, _cs_ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, _cs_ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + [node.module + "." + a.name for a in node.names]
        for n in names:
            problem = _cs_import_problem(n)
            if problem:
                return None, {"status": "forbidden", "error": _cs_error("ModuleNotFoundError", problem, node.lineno, node.col_offset + 1)}
    return tree, None

def _cs_check(code):
    tree, bad = _cs_parse(code, imports=True)
    return _cs_json.dumps(bad or {"status": "success"})

import __main__ as _cs_main_module

# Programs run in __main__'s own namespace, with a builtins dict of their own (what they change
# there is not what the prelude sees). A pool interpreter is restored to this state after every
# run; a session keeps it.
_CS_MAIN = _cs_main_module.__dict__
_CS_MAIN["__builtins__"] = dict(_cs_builtins.__dict__)
del _cs_main_module

_CS_USER_FILES = (_CS_FILE, "<tests>")

def _cs_user_frames(tb):
    return [f for f in _cs_traceback.extract_tb(tb) if f.filename in _CS_USER_FILES]

def _cs_exception(e, filename=_CS_FILE):
    """Outcome for an exception; its line is the last frame in filename (the program or the tests)."""
    if isinstance(e, SyntaxError) and e.filename in _CS_USER_FILES:
        return _cs_syntax(e)
    frames = _cs_user_frames(e.__traceback__)
    name = type(e).__name__
    refused = _cs_refused_import(e)
    message = refused or str(e)
    own = [f for f in frames if f.filename == filename]
    line = own[-1].lineno if own else None
    lines = ["Traceback (most recent call last):"] + [l.rstrip("\n") for l in _cs_traceback.format_list(frames[-20:])]
    lines.append("%s: %s" % (name, message) if message else name)
    if refused:
        status = "forbidden"
    elif isinstance(e, MemoryError):
        status = "memory_limit"
    else:
        status = "runtime_error"
    return {"status": status, "error": _cs_error(name, message or name, line, None, "\n".join(lines))}

_CS_SAFE_INT = 2 ** 53

def _cs_exact(value, depth=0):
    """Integers beyond 2**53 cannot cross as JSON numbers without rounding: they become decimal strings."""
    if depth > 200:
        raise RecursionError("result nested too deeply")
    if isinstance(value, bool) or value is None or isinstance(value, (str, float)):
        return value, False
    if isinstance(value, int):
        if -_CS_SAFE_INT <= value <= _CS_SAFE_INT:
            return value, False
        return str(value), True
    if isinstance(value, dict):
        out, changed = {}, False
        for k, v in value.items():
            out[k], c = _cs_exact(v, depth + 1)
            changed = changed or c
        return out, changed
    if isinstance(value, (list, tuple)):
        out, changed = [], False
        for v in value:
            x, c = _cs_exact(v, depth + 1)
            out.append(x)
            changed = changed or c
        return out, changed
    return value, False

def _cs_flush(let_through=()):
    """Flushes the program's streams; what their flush raises is dropped, but let_through."""
    for stream in (_cs_sys.stdout, _cs_sys.stderr):
        try:
            stream.flush()
        except let_through:
            raise
        except BaseException:
            pass

def _cs_flush_step():
    """_cs_flush as a step of the guest's task (a replaced stream's flush is the guest's code): a
    limit's interrupt there stops the run instead of being swallowed."""
    _cs_flush(KeyboardInterrupt)

def _cs_install_scheduler(fn):
    import pyodide.webloop as _w
    _w.scheduleCallback = fn

def _cs_function_list():
    ns = _CS_MAIN
    return sorted(k for k, v in ns.items() if isinstance(v, _cs_types.FunctionType) and not k.startswith("__") and not getattr(v, "_cs_host", False))

def _cs_functions():
    return _cs_json.dumps(_cs_function_list())
`;
