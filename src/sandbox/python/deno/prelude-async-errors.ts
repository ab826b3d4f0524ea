/**
 * The Python side of "no silent asynchronous error": installed on the event loop after the run
 * prelude (prelude-run.ts), before any guest code. Honest code loses errors in two ways: a task
 * or future that failed and that nothing ever awaited (its exception is never retrieved), and a
 * task still pending when the program ends (nothing runs it afterwards: the run's callbacks and
 * timers die with the run). Pyodide's WebLoop only printed a guess to stderr when a future failed
 * with no one waiting yet, and that guess also read the exception (so CPython's own "never
 * retrieved" check could no longer see it), and was wrong for a task awaited later.
 *
 * - every task and future the loop makes (`create_task`, so `asyncio.create_task`,
 *   `ensure_future`, `gather`, `TaskGroup`; and `create_future`) is kept for the run;
 * - the loop's done-callback no longer guesses (nor reads the exception);
 * - the loop's exception handler keeps the exceptions it is given (a callback that raised, a
 *   future collected with its exception never retrieved) and prints them as before;
 * - after the program's code, `_cs_async_quiet()` answers at once, reading only our own lists
 *   and running none of the program's code, whether the run made any task or future through the
 *   loop or handed the loop's exception handler anything; most runs use no task, and for them
 *   the check ends there (no task of its own, no turn of the loop);
 * - otherwise `_cs_unobserved()` (in a task: describing an exception runs the program's
 *   `__str__`) says which kept future ended with an exception never retrieved (CPython's own
 *   flag, `_log_traceback`), and which tasks started in the run are still pending (not
 *   cancelled). The run driver (run-driver.ts) makes that a `runtime_error`.
 *
 * A program that replaces the loop's methods or its exception handler, or rewrites these
 * functions, can hide its own errors (it could always catch them): the threat here is honest
 * code losing an error silently, not a program forging its outcome. Futures made without the
 * loop (`asyncio.Future()` directly) are seen only when collected during the run, and a task
 * made without the loop (`asyncio.Task(coro)` directly, not `create_task`) only when its error
 * reaches the loop's exception handler.
 *
 * Runs inside the Deno worker (the source runs in Pyodide).
 */
export const PYTHON_ASYNC_ERRORS_PRELUDE = String.raw`
_CS_LOOP_WATCH = {"started": [], "raised": [], "before": ()}

def _cs_watch_loop():
    loop = _cs_asyncio.get_event_loop()
    cls = type(loop)
    make_task = cls.create_task.__get__(loop)
    make_future = cls.create_future.__get__(loop)
    watch = _CS_LOOP_WATCH
    def create_task(coro, **kwargs):
        task = make_task(coro, **kwargs)
        watch["started"].append(task)
        return task
    def create_future():
        fut = make_future()
        watch["started"].append(fut)
        return fut
    def settled(fut=None):
        # WebLoop's bookkeeping, without its guess (which read the exception).
        loop._in_progress -= 1
        if loop._no_in_progress_handler and loop._in_progress == 0:
            loop._no_in_progress_handler()
    def on_error(loop_, context):
        exc = context.get("exception")
        if exc is not None:
            watch["raised"].append(exc)
        loop_.default_exception_handler(context)
    loop.create_task = create_task
    loop.create_future = create_future
    loop._decrement_in_progress = settled
    loop.set_exception_handler(on_error)

_cs_watch_loop()
del _cs_watch_loop

def _cs_watch_begin():
    """Before a run's code: what the loop keeps is this run's from here."""
    watch = _CS_LOOP_WATCH
    watch["started"] = []
    watch["raised"] = []
    watch["before"] = frozenset(_cs_asyncio.all_tasks(_cs_asyncio.get_event_loop()))

def _cs_task_place(task):
    coro = task.get_coro()
    name = getattr(coro, "__qualname__", None) or type(coro).__name__
    frame = getattr(coro, "cr_frame", None)
    if frame is not None and frame.f_code.co_filename == _CS_FILE:
        return "%s() at line %d" % (name, frame.f_lineno)
    return "%s()" % name

def _cs_async_quiet():
    """After the program's code: True when _cs_unobserved has nothing to find (nothing made
    through the loop, nothing given to its exception handler). Reads our lists by exact type
    and length only, so none of the program's code runs (this is called outside any task)."""
    watch = _CS_LOOP_WATCH
    if type(watch) is not dict:
        return False
    started, raised = dict.get(watch, "started"), dict.get(watch, "raised")
    if type(started) is not list or type(raised) is not list or len(started) != 0 or len(raised) != 0:
        return False
    watch["before"] = ()
    return True

def _cs_unobserved(pending_lost=False, _ns=None):
    """After the program's code: the outcome of its first lost asynchronous error, or None."""
    watch = _CS_LOOP_WATCH
    started, raised, before = watch["started"], watch["raised"], watch["before"]
    watch["started"], watch["raised"], watch["before"] = [], [], ()
    loop = _cs_asyncio.get_event_loop()
    current = _cs_asyncio.current_task(loop)
    lost = []
    for fut in started:
        # _log_traceback: CPython's flag for "an exception was set and never retrieved".
        if fut.done() and not fut.cancelled() and fut._log_traceback:
            fut._log_traceback = False
            where = "task " + _cs_task_place(fut) if isinstance(fut, _cs_asyncio.Task) else "a future"
            lost.append((fut._exception, "raised in %s, which the program never awaited: await it, or asyncio.gather the tasks, so its error reaches the program" % where))
    lost += [(exc, "raised in a callback the event loop ran, where the program never saw it") for exc in raised]
    # A session's tasks run on in its next call; a pool run's pending tasks never run again.
    pending = [t for t in _cs_asyncio.all_tasks(loop) if t is not current and t not in before and not t.cancelling()] if pending_lost is True else []
    if lost:
        exc, where = lost[0]
        out = _cs_exception(exc)
        err = out["error"]
        more = "; %d more asynchronous errors were lost too" % (len(lost) - 1) if len(lost) > 1 else ""
        err["message"] = ("%s (%s%s)" % (err["message"], where, more))[:_CS_MAX_MESSAGE]
        return _cs_json.dumps({"status": out["status"], "error": err})
    if pending:
        places = ", ".join(_cs_task_place(t) for t in pending[:5])
        count = "1 task it started was" if len(pending) == 1 else "%d tasks it started were" % len(pending)
        message = "the program ended while %s still pending (never awaited): %s. A task the program does not await does not run after the program ends: await it (or asyncio.gather the tasks) before the end" % (count, places)
        return _cs_json.dumps({"status": "runtime_error", "error": _cs_error("RuntimeError", message)})
    return None
`;
