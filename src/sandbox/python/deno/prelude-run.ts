/**
 * The Python side of a run or a session call, installed after the prelude (prelude.ts):
 * top-level `await` (cells compiled with `PyCF_ALLOW_TOP_LEVEL_AWAIT`), host functions
 * (`await name(...)`), and what the worker's run driver (run-driver.ts) asks before and after
 * the guest's code: the cell compiled into `_CS_SLOT`, the description of an exception that
 * escaped, the JSON of the result.
 *
 * This code runs in the guest's interpreter and can be rewritten by the program (through `gc`,
 * for instance), so nothing it reports is an authority. Whether a run, a call or tests with an
 * `await` raised is seen by the worker itself (the C-level call it made raised or not, through
 * PyIter_Send for a coroutine); what these functions return afterwards is a description the
 * worker clamps (a raised run is never a success unless it exited) and the runner checks. The
 * one JavaScript object this code uses, `_cs_hooks.hostCall`, only asks for a host call, which
 * the runner and the host bound, count and time.
 */
export const PYTHON_RUN_PRELUDE = String.raw`
import asyncio as _cs_asyncio, functools as _cs_functools

_CS_TLA = _cs_ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
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

# What a prepare step hands the worker (run-driver.ts reads it at once, before any of the run's code).
_CS_SLOT = {}

def _cs_compile_cell(code, filename):
    """(body, last expression or None, None), or (None, None, outcome) for a syntax error or forbidden import."""
    # Compiled once, in its two parts: their syntax errors are the whole cell's.
    tree, bad = _cs_parse(code, filename, compiled=False)
    if bad:
        return None, None, bad
    try:
        last = None
        if tree.body and isinstance(tree.body[-1], _cs_ast.Expr):
            last_tree = _cs_ast.Expression(tree.body.pop().value)
            body = compile(tree, filename, "exec", flags=_CS_TLA)
            last = compile(last_tree, filename, "eval", flags=_CS_TLA)
        else:
            body = compile(tree, filename, "exec", flags=_CS_TLA)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as e:
        return None, None, _cs_syntax_outcome(e)
    _cs_linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    return body, last, None

def _cs_exit_text(code):
    return "sys.exit()" if code is None else "sys.exit(%r)" % (code,)

def _cs_describe_exception(e):
    """The outcome text of an exception the worker's task recorded. Only a description: the worker
    decided that the run raised and clamps the status."""
    if isinstance(e, SystemExit):
        out = {"status": "success"} if e.code in (None, 0) else {
            "status": "runtime_error", "error": _cs_error("SystemExit", "exit code %r" % (e.code,))}
        # The worker leaves the tests not_run after an exit (any code).
        out["exited"] = _cs_exit_text(e.code)
        return _cs_json.dumps(out)
    return _cs_json.dumps(_cs_exception(e))

def _cs_format_exception(e):
    """[type name, traceback text] of an exception the tests raised (the worker cuts and reads it)."""
    return _cs_json.dumps([type(e).__name__, "".join(_cs_traceback.format_exception(e))])

def _cs_result_text(value, max_bytes):
    """The JSON text of a run's result; its size in bytes (an int) when that is over max_bytes (the
    worker measures a text again); None for None or a value JSON cannot hold."""
    _CS_SLOT.clear()
    _cs_flush_step()
    if value is None:
        return None
    try:
        exact, changed = _cs_exact(value)
        text = _cs_json.dumps(exact, allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError, OverflowError):
        return None
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        return size
    if changed:
        try:
            _cs_sys.stderr.write("note: integers beyond 2**53 in the result are returned as exact decimal strings\n")
        except BaseException:
            pass
    return text

def _cs_prepare_run(code, options_json):
    """Before a run's code: options applied and the cell compiled into _CS_SLOT (_b: body, _l: last
    expression). Returns {"ready": true, "last"}, or the outcome of a
    syntax error, a forbidden import or a failed setup. Never raises."""
    try:
        _cs_watch_begin()
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
        body, last, bad = _cs_compile_cell(code, _CS_FILE)
        if bad:
            return _cs_json.dumps(bad)
        _CS_SLOT["_b"], _CS_SLOT["_l"] = body, last
        # Whether each part awaits, the worker reads from the code objects' flags itself.
        return _cs_json.dumps({"ready": True, "last": last is not None})
    except BaseException as e:
        _cs_flush()
        return _cs_json.dumps(_cs_exception(e))

def _cs_prepare_call(name, options_json):
    """Before a session call: the function with its arguments into _CS_SLOT (_p). Like _cs_prepare_run."""
    try:
        _cs_watch_begin()
        options = _cs_json.loads(options_json)
        fn = _CS_MAIN.get(name)
        if not callable(fn):
            known = ", ".join(_cs_function_list()) or "none"
            return _cs_json.dumps({"status": "runtime_error", "error": _cs_error(
                "NameError", "no function named '%s' is defined in the session (defined functions: %s)" % (name, known))})
        _cs_install_host(_CS_MAIN, options.get("hostFunctionNames") or [])
        _CS_SLOT["_p"] = _cs_functools.partial(fn, *(options.get("args") or []))
        return _cs_json.dumps({"ready": True})
    except BaseException as e:
        _cs_flush()
        return _cs_json.dumps(_cs_exception(e))
`;
