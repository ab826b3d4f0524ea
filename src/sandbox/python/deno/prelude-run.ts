/**
 * The Python side of a run or a session call, installed after the prelude (prelude.ts):
 * top-level `await` (cells compiled with `PyCF_ALLOW_TOP_LEVEL_AWAIT`, driven by a small
 * driver on Pyodide's event loop), host functions (`await name(...)`), and tests that contain
 * an `await` (other tests are run by the worker itself, see worker.ts).
 *
 * This code runs in the guest's interpreter and can be rewritten by the program (through `gc`,
 * for instance), so nothing it reports is an authority: a program's result and its own
 * exceptions are the program's to shape anyway, the worker and the runner check every field,
 * and limits, phases and (for tests without `await`) test verdicts are decided outside Python.
 * The one JavaScript object it uses, `_cs_hooks.hostCall`, only asks for a host call, which the
 * runner and the host bound, count and time. A run that waits ends when the worker, after a
 * callback it dispatched, finds the driver finished (`_cs_poll`).
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
        global _cs_driver, _cs_finished
        if _cs_driver is self:
            _cs_driver = None
        _cs_flush()
        _cs_finished = self.result

_cs_driver = None
_cs_finished = None

def _cs_poll():
    """The JSON outcome of a run that waited, once its driver finished (else None)."""
    global _cs_finished
    done, _cs_finished = _cs_finished, None
    return done

def _cs_start(coro):
    """The JSON outcome when coro finishes without waiting; else None (then _cs_poll gives it later)."""
    global _cs_driver, _cs_finished
    _cs_finished = None
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

async def _cs_program(code, ns, max_result_bytes):
    body, last, bad = _cs_compile_cell(code, _CS_FILE)
    if bad:
        return _cs_json.dumps(bad)
    try:
        out = _cs_result({"status": "success"}, await _cs_eval_cell(body, last, ns), max_result_bytes)
    except SystemExit as e:
        out = {"status": "success"} if e.code in (None, 0) else {
            "status": "runtime_error", "error": _cs_error("SystemExit", "exit code %r" % (e.code,))}
        # The worker leaves the tests not_run after an exit (any code).
        out["exited"] = _cs_exit_text(e.code)
    except BaseException as e:
        out = _cs_exception(e)
    return _cs_json.dumps(out)

async def _cs_tests_async(tests, ns):
    """Tests that contain an await, run as a cell of their own in the program's namespace."""
    body, last, bad = _cs_compile_cell(tests, _CS_TESTS_FILE)
    if bad:
        return _cs_json.dumps({"status": "failed", "error": bad["error"]})
    try:
        await _cs_eval_cell(body, last, ns)
    except SystemExit as e:
        return _cs_json.dumps({"status": "failed", "error": _cs_error("SystemExit", "the tests called %s before their end" % _cs_exit_text(e.code))})
    except BaseException as e:
        err = _cs_exception(e, _CS_TESTS_FILE)["error"]
        if isinstance(e, AssertionError) and not str(e) and err.get("line"):
            source = _cs_linecache.getline(_CS_TESTS_FILE, err["line"]).strip()
            if source:
                err["message"] = "failed: " + source[:300]
        return _cs_json.dumps({"status": "failed", "error": err})
    finally:
        _cs_flush()
    return _cs_json.dumps({"status": "passed"})

def _cs_run_tests_async(tests, options_json):
    """Entry point of tests with an await: like _cs_run."""
    try:
        call = _cs_tests_async(tests, _CS_MAIN)
    except BaseException as e:
        return _cs_json.dumps({"status": "failed", "error": _cs_exception(e, _CS_TESTS_FILE)["error"]})
    return _cs_start(call)

def _cs_run(code, options_json):
    """Entry point of a run. options: globals, session, reseed, maxResultBytes, hostFunctionNames, seed.
    Returns the outcome's JSON, or None when the run waits (see _cs_poll). Never raises."""
    try:
        options = _cs_json.loads(options_json)
        if not options.get("session") or options.get("reseed"):
            # Every interpreter starts from the same memory snapshot (and pool runs from the same
            # baseline): without a reseed (fresh bits from the worker), random would repeat its
            # numbers in every run. A run that must repeat exactly (given inputs) reseeds in a
            # session too, from the seed its inputs give.
            _cs_random = _cs_sys.modules.get("random")
            if _cs_random is not None and options.get("seed") is not None:
                _cs_random.seed(options["seed"])
        ns = _CS_MAIN
        ns.update(options.get("globals") or {})
        _cs_install_host(ns, options.get("hostFunctionNames") or [])
        program = _cs_program(code, ns, options.get("maxResultBytes", 1 << 20))
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
        ns = _CS_MAIN
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
