/**
 * The Python side of a run or a session call, installed after the prelude (prelude.ts):
 * top-level `await` (cells compiled with `PyCF_ALLOW_TOP_LEVEL_AWAIT`, driven by a small
 * driver on Pyodide's event loop), host functions (`await name(...)`), and `tests` run after
 * the program in the same namespace as their own cell.
 *
 * The worker gives Python one JavaScript object, `_cs_hooks`, captured before any user code:
 * `hostCall(name, argsJson)` posts a host call and returns its id (or an error text),
 * `phase("tests")` marks where the tests' output starts, `done(outcomeJson)` ends a run that
 * waited. None of them decides anything: the runner and the host count, bound and time every
 * call, and a forged `done` only ends the guest's own run early.
 */
export const PYTHON_RUN_PRELUDE = String.raw`
import asyncio as _cs_asyncio, inspect as _cs_inspect

_CS_TESTS_FILE = "<tests>"
_CS_TLA = _cs_ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
_CS_CO_COROUTINE = _cs_inspect.CO_COROUTINE
_cs_hooks = None

class HostFunctionError(Exception):
    """A host function failed; name and message are those of the host's error."""
    def __init__(self, name, message):
        Exception.__init__(self, "%s: %s" % (name, message))
        self.name = name
        self.message = message

_cs_host_pending = {}

def _cs_host_reply(call_id, reply_json):
    fut = _cs_host_pending.pop(call_id, None)
    if fut is not None and not fut.done():
        fut.set_result(reply_json)

class _CsHostCall:
    """What a host function returns: the call has started; await it for the value."""
    __slots__ = ("_fut",)
    def __init__(self, fut):
        self._fut = fut
    def __await__(self):
        reply = _cs_json.loads((yield from self._fut.__await__()))
        if reply.get("ok"):
            return reply.get("value")
        raise HostFunctionError(str(reply.get("name") or "Error"), str(reply.get("message") or ""))

def _cs_host_function(name):
    def call(*args, **kwargs):
        if kwargs:
            raise TypeError("host function %s() takes positional arguments only (JSON values), not %s=" % (name, next(iter(kwargs))))
        try:
            args_json = _cs_json.dumps(list(args), allow_nan=False, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError, OverflowError) as e:
            raise TypeError("the arguments of host function %s() must be JSON values: %s" % (name, e)) from None
        fut = _cs_asyncio.get_event_loop().create_future()
        started = _cs_hooks.hostCall(name, args_json)
        if isinstance(started, str):
            raise HostFunctionError("HostCallError", started)
        _cs_host_pending[started] = fut
        return _CsHostCall(fut)
    call.__name__ = call.__qualname__ = name
    call._cs_host = True
    call.__doc__ = "Host function: await %s(...) with JSON arguments; returns a JSON value." % name
    return call

def _cs_install_host(ns, names):
    if names:
        ns["HostFunctionError"] = HostFunctionError
        for name in names:
            ns[name] = _cs_host_function(name)

class _CsDriver:
    """Steps a coroutine: synchronously until it first waits, then from Pyodide's event loop."""
    __slots__ = ("coro", "done", "result", "token")
    def __init__(self, coro):
        self.coro = coro
        self.done = False
        self.result = None
        self.token = 0
    def step(self, exc=None):
        try:
            waited = self.coro.throw(exc) if exc is not None else self.coro.send(None)
        except StopIteration as e:
            self.done, self.result = True, e.value
            return
        except BaseException as e:
            self.done, self.result = True, _cs_json.dumps(_cs_exception(e))
            return
        self.token += 1
        token = self.token
        wake = lambda *_: self.wake(token)
        if hasattr(waited, "add_done_callback"):
            waited.add_done_callback(wake)
        else:
            _cs_asyncio.get_event_loop().call_soon(wake)
    def wake(self, token):
        if self.done or token != self.token:
            return
        self.step()
        if self.done:
            self.finish()
    def interrupt(self):
        if self.done:
            return
        self.token += 1
        self.step(KeyboardInterrupt())
        if self.done:
            self.finish()
    def finish(self):
        global _cs_driver
        if _cs_driver is self:
            _cs_driver = None
        _cs_flush()
        _cs_hooks.done(self.result)

_cs_driver = None

def _cs_start(coro):
    """The JSON outcome when coro finishes without waiting; else None, and hooks.done(outcome) later."""
    global _cs_driver
    driver = _CsDriver(coro)
    driver.step()
    if driver.done:
        _cs_flush()
        return driver.result
    _cs_driver = driver
    return None

def _cs_interrupt():
    """Stops a waiting run at its await (the runner asks after a limit; Python is idle then)."""
    if _cs_driver is not None:
        _cs_driver.interrupt()

def _cs_compile_cell(code, filename):
    """(body, last expression or None, None), or (None, None, outcome) for a syntax error or forbidden import."""
    tree, bad = _cs_parse(code, filename)
    if bad:
        return None, None, bad
    _cs_linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    last = None
    if tree.body and isinstance(tree.body[-1], _cs_ast.Expr):
        last = compile(_cs_ast.Expression(tree.body.pop().value), filename, "eval", flags=_CS_TLA)
    return compile(tree, filename, "exec", flags=_CS_TLA), last, None

async def _cs_eval_cell(body, last, ns):
    ran = eval(body, ns)
    if body.co_flags & _CS_CO_COROUTINE:
        await ran
    if last is None:
        return None
    value = eval(last, ns)
    if last.co_flags & _CS_CO_COROUTINE:
        value = await value
    return value

def _cs_exit_text(code):
    return "sys.exit()" if code is None else "sys.exit(%r)" % (code,)

async def _cs_program(code, ns, tests, max_result_bytes):
    body, last, bad = _cs_compile_cell(code, _CS_FILE)
    exit_code = ()
    if bad:
        out = bad
    else:
        try:
            out = _cs_result({"status": "success"}, await _cs_eval_cell(body, last, ns), max_result_bytes)
        except SystemExit as e:
            exit_code = e.code
            out = {"status": "success"} if e.code in (None, 0) else {
                "status": "runtime_error", "error": _cs_error("SystemExit", "exit code %r" % (e.code,))}
        except BaseException as e:
            out = _cs_exception(e)
    if tests is None:
        return _cs_json.dumps(out)
    if exit_code != ():
        out["tests"] = {"status": "not_run", "reason": "the program called %s before the tests ran" % _cs_exit_text(exit_code)}
    elif out["status"] != "success":
        err = out.get("error") or {}
        where = " at line %s" % err["line"] if err.get("line") else ""
        out["tests"] = {"status": "not_run", "reason": "the program ended with %s before the tests ran (%s%s: %s)" % (
            out["status"], err.get("name", "Error"), where, str(err.get("message", ""))[:300])}
    else:
        out["tests"] = await _cs_tests(tests, ns)
    return _cs_json.dumps(out)

async def _cs_tests(tests, ns):
    _cs_flush()
    _cs_hooks.phase("tests")
    body, last, bad = _cs_compile_cell(tests, _CS_TESTS_FILE)
    if bad:
        return {"status": "failed", "error": bad["error"]}
    try:
        await _cs_eval_cell(body, last, ns)
    except SystemExit as e:
        return {"status": "failed", "error": _cs_error("SystemExit", "the tests called %s before their end" % _cs_exit_text(e.code))}
    except BaseException as e:
        err = _cs_exception(e, _CS_TESTS_FILE)["error"]
        if isinstance(e, AssertionError) and not str(e) and err.get("line"):
            source = _cs_linecache.getline(_CS_TESTS_FILE, err["line"]).strip()
            if source:
                err["message"] = "failed: " + source[:300]
        return {"status": "failed", "error": err}
    finally:
        _cs_flush()
    return {"status": "passed"}

def _cs_run(code, options_json):
    """Entry point of a run. options: globals, session, maxResultBytes, hostFunctionNames, tests.
    Returns the outcome's JSON, or None when the run waits (it ends through _cs_hooks.done). Never raises."""
    global _cs_session_ns
    try:
        options = _cs_json.loads(options_json)
        extra = options.get("globals") or {}
        if options.get("session"):
            if _cs_session_ns is None:
                _cs_session_ns = _cs_new_namespace({})
            _cs_session_ns.update(extra)
            ns = _cs_session_ns
        else:
            ns = _cs_new_namespace(extra)
        _cs_install_host(ns, options.get("hostFunctionNames") or [])
        program = _cs_program(code, ns, options.get("tests"), options.get("maxResultBytes", 1 << 20))
    except BaseException as e:
        _cs_flush()
        return _cs_json.dumps(_cs_exception(e))
    return _cs_start(program)

async def _cs_call_async(fn, args, max_result_bytes):
    try:
        value = fn(*args)
        if _cs_inspect.isawaitable(value):
            value = await value
    except SystemExit as e:
        return _cs_json.dumps({"status": "runtime_error", "error": _cs_error("SystemExit", "exit code %r" % (e.code,))})
    except BaseException as e:
        return _cs_json.dumps(_cs_exception(e))
    return _cs_json.dumps(_cs_result({"status": "success"}, value, max_result_bytes))

def _cs_call(name, options_json):
    """Entry point of a session call. options: args, maxResultBytes, hostFunctionNames. Like _cs_run."""
    try:
        options = _cs_json.loads(options_json)
        ns = _cs_session_ns or {}
        fn = ns.get(name)
        if not callable(fn):
            known = ", ".join(_cs_function_list()) or "none"
            return _cs_json.dumps({"status": "runtime_error", "error": _cs_error(
                "NameError", "no function named '%s' is defined in the session (defined functions: %s)" % (name, known))})
        _cs_install_host(ns, options.get("hostFunctionNames") or [])
        call = _cs_call_async(fn, options.get("args") or [], options.get("maxResultBytes", 1 << 20))
    except BaseException as e:
        _cs_flush()
        return _cs_json.dumps(_cs_exception(e))
    return _cs_start(call)
`;
