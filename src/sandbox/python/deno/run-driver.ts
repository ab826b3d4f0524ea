/**
 * Runs a program, a session call or tests that contain an `await`, and decides how each ended:
 * from whether the interpreter's C-level call the worker made raised (`exec`, `eval`, a
 * coroutine stepped through PyIter_Send), never from anything Python reports. The program can
 * rewrite every Python function of the prelude (through `gc`) and every module it shares with
 * it (`json`, `asyncio`), so Python code below the guest decides nothing here:
 * - the cell is compiled before any of its code runs (in a pool run, by the baseline's prelude);
 *   the code objects are taken out at once, and the worker calls `exec`/`eval` on them itself,
 *   with the arguments in hand (no name is looked up after guest code ran: an audit hook or a
 *   finalizer of the program could change a namespace, not an argument);
 * - a coroutine (top-level `await`) is awaited by a one-line `async def` the worker compiles
 *   afresh for it (a function the program could have seen could have been given another
 *   `__code__`); inside a real coroutine function a `StopIteration` that escapes the awaited
 *   code becomes a `RuntimeError` (PEP 479), so "finished" from PyIter_Send means returned;
 * - what Python says afterwards (the description of an exception, the JSON of a result) is a
 *   description: a raised run is never `success` unless it exited, and the result's size
 *   limit is measured here.
 * What the program can still shape is documented in docs/security.md ("who writes a run's
 * outcome").
 *
 * Runs inside the Deno worker.
 */
import type { ExecutionError } from "../../types.js";
import { MAX_TEST_VALUE_CHARS, MAX_TEST_VALUES_TOTAL_CHARS, TEST_VALUE_BUDGET } from "../shared/bounds.js";
import type { PythonOutcome, PythonStepReport, PythonTestsOutcome } from "../shared/protocol.js";
import { splitPythonTests, type PythonCompareOp, type PythonTestStep } from "../shared/tests-split.js";
import { testsError } from "./tests-verdict.js";
import { ENCODER_SOURCE } from "./value-encoder.js";

/** A Pyodide proxy of a Python object, as far as the driver uses it. */
export interface PyObject {
  (...args: unknown[]): unknown;
  get(key: string): unknown;
  destroy(): void;
  done(): boolean;
  cancelled(): boolean;
  cancel(): boolean;
  exception(): unknown;
  result(): unknown;
  add_done_callback(fn: () => void): void;
  co_flags: number;
}

/** What the driver needs of the interpreter: C-level callables taken at init, and the prelude's steps. */
export interface DriverPython {
  /** `builtins.exec`, `builtins.eval`, `builtins.compile`, `builtins.hasattr`, `builtins.type`, `builtins.dict`. */
  exec: PyObject;
  eval: PyObject;
  compile: PyObject;
  hasattr: PyObject;
  type: PyObject;
  dict: PyObject;
  list: PyObject;
  /** `(SystemExit, KeyboardInterrupt)`: what asyncio's Task re-raises instead of recording. */
  stops: PyObject;
  /** `(SystemExit, KeyboardInterrupt, MemoryError)`: what the result's conversion lets through. */
  keeps: PyObject;
  /** `_cs_flush` and `_cs_result_text` as Python callables, handed to the task (steps of the guest's). */
  flushStep: PyObject;
  resultTextStep: PyObject;
  /** `_cs_describe_exception` and `_cs_format_exception` as Python callables, for the task. */
  describeStep: PyObject;
  formatStep: PyObject;
  /** `_cs_async_quiet` (prelude-async-errors.ts): true when the run left nothing for `_cs_unobserved` to find. */
  asyncQuiet(): unknown;
  /** `_cs_unobserved` (prelude-async-errors.ts): the outcome of a lost asynchronous error, or None. */
  unobservedStep: PyObject;
  /** `BaseException`, taken at init (the task looks up no name). */
  anything: PyObject;
  /** `builtins.slice` (a C type: a task returns a test's value as `slice(value, 0).start`). */
  slice: PyObject;
  /** The tuple of built-ins the value encoder uses (value-encoder.ts), taken at init. */
  encoderBuiltins: PyObject;
  /** `builtins.issubclass`, `SystemExit`, and the C member read of `SystemExit.code` (a guest subclass's property is not it). */
  issubclass: PyObject;
  systemExit: PyObject;
  exitCode: PyObject;
  /** `_asyncio.Task` (the C implementation: an immutable type) and the event loop, taken at init. */
  task: PyObject;
  loop: PyObject;
  /** The program's namespace (`__main__`'s dict). */
  mainNamespace: PyObject;
  /** The prelude's hand-over dict (`_CS_SLOT`). */
  slot: PyObject;
  /** `PyCF_ALLOW_TOP_LEVEL_AWAIT`. */
  topLevelAwait: number;
  prepareRun(code: string, optionsJson: string): unknown;
  prepareCall(name: string, optionsJson: string): unknown;
  /** `_cs_describe_exception(e)`: the outcome text of an exception. */
  describe(exception: unknown): unknown;
  /** `_cs_format_exception(e)`: `[type name, formatted traceback]` as JSON. */
  format(exception: unknown): unknown;
  /**
   * Interrupts land only in the guest's code. `mask` stops them from reaching Python (the
   * driver's own steps are not the guest's: a KeyboardInterrupt there failed Pyodide's
   * conversions and ended the session) and says whether a stop was asked for meanwhile (it is
   * taken); `unmask` lets them in again, before the guest's next step.
   */
  mask(): boolean;
  unmask(): void;
  /** Pyodide's proxies of Python objects (to destroy what the driver took). */
  isProxy(value: unknown): value is PyObject;
}

/** An outcome, whether it ended the interpreter, and the exit text of a program that called sys.exit. */
export interface DriverDone {
  outcome: PythonOutcome;
  fatal: boolean;
  exited?: string;
}

/**
 * How a task ended: returned a value, raised an exception (a proxy; SystemExit and
 * KeyboardInterrupt included), was cancelled, or was asked to stop (a limit's interrupt that
 * came after its last check: the run goes no further, whatever it returned).
 */
type TaskEnd = { returned: unknown } | { raised: unknown; told?: unknown } | { cancelled: true } | { stopped: true };

const ReflectApply = Reflect.apply;
const JSONParse = JSON.parse;
const charCodeAt = String.prototype.charCodeAt;
const CO_COROUTINE = 0x80;

/** Statuses a run that raised may have (forbidden: a refused import; memory_limit: a MemoryError). */
const RAISED_STATUSES = new Set(["runtime_error", "forbidden", "memory_limit"]);
/** Statuses of an outcome given before any of the run's code ran. */
const NOT_RUN_STATUSES = new Set(["syntax_error", "forbidden", "runtime_error"]);

/**
 * Compiled once, when the driver is made (before any program ran); its functions are made
 * afresh for every task from the code object, which Python cannot change (a function the
 * program could have seen could have been given another `__code__`; a code object is
 * immutable). It looks up no name: everything it uses is an argument.
 */
const TASK_SOURCE = [
  // asyncio's C Task records every exception but re-raises SystemExit and KeyboardInterrupt:
  // those are put in `exits` (a fresh list) instead, and the Task returns.
  // Flushing the streams and turning the result into text run the guest's code too (a replaced
  // sys.stdout, a dict subclass's items(), a __del__ of the result, a prelude function rewritten
  // through gc): they are steps of the task, where a limit's interrupt reaches them, not steps of
  // the driver (masked: a loop there could only be killed, and a session ended).
  // An exception is described in the task too (its __str__, an exit code's __repr__ are the
  // guest's), then raised on: the task still says that it raised.
  "async def _cs_eval(ev, code, ns, awaits, fl, rt, limit, dx, told, anything, keeps, stops, exits):",
  "    try:",
  "        try:",
  "            try:",
  "                value = ev(code, ns)",
  "                if awaits:",
  "                    value = await value",
  "            finally:",
  "                fl()",
  "        except anything as e:",
  "            told.append(dx(e))",
  "            raise",
  "        if rt is None:",
  "            return None",
  "        try:",
  "            return rt(value, limit)",
  "        except keeps:",
  "            raise",
  "        except:",
  "            return None",
  "    except stops as e:",
  "        exits.append(e)",
  "async def _cs_call(fn, hasattr, type, fl, rt, limit, dx, told, anything, keeps, stops, exits):",
  "    try:",
  "        try:",
  "            try:",
  "                value = fn()",
  "                if hasattr(type(value), '__await__'):",
  "                    value = await value",
  "            finally:",
  "                fl()",
  "        except anything as e:",
  "            told.append(dx(e))",
  "            raise",
  "        try:",
  "            return rt(value, limit)",
  "        except keeps:",
  "            raise",
  "        except:",
  "            return None",
  "    except stops as e:",
  "        exits.append(e)",
  // The coroutine is made here: a coroutine handed to JavaScript would be scheduled by Pyodide.
  // The task goes in `box` at once: a limit's interrupt that lands in this frame after the
  // guest's code ran (KeyboardInterrupt) leaves the task with the driver all the same.
  "def _cs_task(Task, loop, box, fn, *args):",
  "    box.append(Task(fn(*args), loop=loop, eager_start=True))",
  "",
].join("\n");

/** The encoder's tag of an opaque object (value-encoder.ts; text is hex, so it appears nowhere else). */
const OPAQUE_TAG = '["o",';
const COMPARE_OPS: readonly PythonCompareOp[] = ["==", "!=", "<", "<=", ">", ">=", "in", "not in", "is", "is not"];
/**
 * One function per operator, `_cs_<index>(left, right)`: the comparison of two boxed values
 * (each a `slice` whose `start` is the value), as a real bool. Compiled once, like TASK_SOURCE;
 * it looks up no name.
 */
const COMPARE_SOURCE = COMPARE_OPS.map((op, i) => `def _cs_${i}(a, b):\n    return True if (a.start ${op} b.start) else False\n`).join("");

function violation(message: string): DriverDone {
  return { outcome: { status: "runtime_error", error: { name: "SandboxViolation", message } }, fatal: true };
}

function parseObject(text: unknown): Record<string, unknown> | undefined {
  if (typeof text !== "string") return undefined;
  try {
    const value: unknown = JSONParse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** UTF-8 bytes of a string (lone surrogates count 3, as Python's surrogatepass does). */
function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = ReflectApply(charCodeAt, text, [i]) as number;
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = ReflectApply(charCodeAt, text, [i + 1]) as number;
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i += 1;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * The driver of one interpreter's runs. `isPythonError` tells an exception the guest's code
 * raised from a fault of the JavaScript side (which ends the interpreter).
 *
 * @example
 * const driver = createRunDriver(python, isPythonError);
 * const done = await driver.runProgram("x = 1\nx + 1", optionsJson, 1 << 20);
 */
export function createRunDriver(py: DriverPython, isPythonError: (error: unknown) => error is { type: string; message: string }) {
  /** TASK_SOURCE compiled, kept for the interpreter's life (made before any program ran). */
  const taskModule = py.compile(TASK_SOURCE, "<sandbox>", "exec");
  /** ENCODER_SOURCE compiled, kept likewise. */
  const encoderModule = py.compile(ENCODER_SOURCE, "<sandbox>", "exec");
  /** COMPARE_SOURCE compiled, kept likewise. */
  const compareModule = py.compile(COMPARE_SOURCE, "<sandbox>", "exec");
  /** The task of the run in progress, while it waits. */
  let waitingTask: PyObject | undefined;
  /** Settles the waiting run; dropped when the run is over. */
  let settleWaiting: (() => void) | undefined;

  const release = (value: unknown): void => {
    if (!py.isProxy(value)) return;
    try {
      value.destroy();
    } catch {
      // Already destroyed (or released with the run).
    }
  };

  /** Set when a limit asked the run to stop; no further guest step of the run starts. */
  let stopAsked = false;

  /** How a finished task ended, read with the Task's own C methods (interrupts masked). */
  function ending(task: PyObject, exits: PyObject, told: PyObject): TaskEnd {
    // The description the task made of the exception that left the guest's code: the last entry
    // (the task's except clause appends once; the guest can reach the list through its frames,
    // but what it puts there is a description too, clamped like one).
    const raisedWith = (exception: unknown): TaskEnd => {
      const text = told.get(-1 as never);
      if (text === undefined) return { raised: exception };
      if (typeof text === "string") return { raised: exception, told: text };
      release(text); // not what _cs_describe_exception returns: the program rewrote it
      return { raised: exception };
    };
    if (stopAsked) {
      const stopped = exits.get(0 as never) ?? (task.cancelled() ? undefined : task.exception());
      if (stopped !== undefined) return raisedWith(stopped);
      if (!task.cancelled()) release(task.result());
      return { stopped: true };
    }
    if (task.cancelled()) return { cancelled: true };
    const exception = task.exception();
    if (exception !== undefined) return raisedWith(exception);
    const stopped = exits.get(0 as never);
    if (stopped !== undefined) return raisedWith(stopped);
    return { returned: task.result() };
  }

  /**
   * Runs the fresh coroutine function `name` (of TASK_SOURCE) on `args` in a C-level asyncio
   * Task started eagerly: code that never waits is over when the Task is made; code that waits
   * goes on from the event loop, and the Task's done callback settles it. The Task records how
   * the coroutine ended (PyIter_Send inside CPython); nothing in Python reports it.
   */
  function inTask(name: string, args: unknown[], describer: PyObject): Promise<TaskEnd> {
    if (stopAsked) return Promise.resolve({ stopped: true });
    const scope = py.dict() as PyObject;
    const exits = py.list() as PyObject;
    const told = py.list() as PyObject;
    const box = py.list() as PyObject;
    let task: PyObject | undefined;
    try {
      py.exec(taskModule, scope);
      const fn = scope.get(name);
      const start = scope.get("_cs_task") as PyObject;
      try {
        py.unmask();
        try {
          start(py.task, py.loop, box, fn, ...args, describer, told, py.anything, py.keeps, py.stops, exits);
        } catch (error) {
          // A limit's interrupt in our frames, around the guest's code: a stop, not a fault.
          if (!isPythonError(error) || error.type !== "KeyboardInterrupt") throw error;
          stopAsked = true;
        } finally {
          if (py.mask()) stopAsked = true;
        }
        task = box.get(0 as never) as PyObject | undefined;
      } finally {
        release(start);
        release(fn);
        release(box);
      }
    } finally {
      scope.destroy();
    }
    if (task === undefined) {
      // The Task re-raised the interrupt before it was boxed: it is over (its exception is set).
      release(exits);
      release(told);
      return Promise.resolve({ stopped: true });
    }
    if (task.done()) {
      try {
        return Promise.resolve(ending(task, exits, told));
      } finally {
        release(task);
        release(exits);
        release(told);
      }
    }
    return new Promise((resolve, reject) => {
      waitingTask = task;
      settleWaiting = () => {
        if (waitingTask !== task) return;
        // Called by the event loop, from Python: the guest's steps are over when the task is.
        if (py.mask()) stopAsked = true;
        if (!task.done()) {
          py.unmask();
          return;
        }
        waitingTask = undefined;
        settleWaiting = undefined;
        try {
          resolve(ending(task, exits, told));
        } catch (error) {
          reject(error);
        } finally {
          release(task);
          release(exits);
          release(told);
        }
      };
      task.add_done_callback(() => settleWaiting?.());
      // The guest's code goes on from the event loop.
      py.unmask();
    });
  }

  /**
   * Evaluates a code object in the program's namespace, in a task (awaited when it is a
   * coroutine); the streams are flushed in the task, and with `maxResultBytes` the value is
   * turned into its JSON text there too (what the task returns).
   */
  function evalInTask(code: unknown, maxResultBytes?: number, describer: PyObject = py.describeStep, step?: PyObject): Promise<TaskEnd> {
    const awaits = ((code as PyObject).co_flags & CO_COROUTINE) !== 0;
    const result = step !== undefined ? [step, 0] : maxResultBytes === undefined ? [undefined, 0] : [py.resultTextStep, maxResultBytes];
    return inTask("_cs_eval", [py.eval, code, py.mainNamespace, awaits, py.flushStep, ...result], describer);
  }

  /** The error of a tests step that did not return (raised, stopped, cancelled). */
  function stepError(ran: Exclude<TaskEnd, { returned: unknown }>, tests: string): ExecutionError {
    if ("stopped" in ran) return { name: "KeyboardInterrupt", message: "the tests were stopped by their limit" };
    if (!("raised" in ran)) return { name: "CancelledError", message: "the tests' task was cancelled" };
    let formatted: unknown;
    try {
      formatted = JSONParse(String(typeof ran.told === "string" ? ran.told : py.format(ran.raised)));
    } catch {
      formatted = undefined;
    }
    // The name is read from the exception's type here; the traceback text is the prelude's (a description).
    const type = py.type(ran.raised) as unknown as { __name__: unknown };
    const name = String(type.__name__);
    release(type);
    const text = Array.isArray(formatted) && typeof formatted[1] === "string" ? formatted[1] : "";
    release(ran.raised);
    return testsError(name, text, tests);
  }

  /** Source compiled so that its first line is `line` of the tests (their tracebacks name it). */
  function compileAt(source: string, line: number, mode: "exec" | "eval"): unknown {
    const text = mode === "eval" ? `(${source}\n)` : source;
    return py.compile(`${"\n".repeat(Math.max(0, line - 1))}${text}`, "<string>", mode, py.topLevelAwait);
  }

  /**
   * Runs `name` of `module` (our own compiled code) in a task of its own, the module executed
   * afresh in a scope of its own so nothing the program did reaches the function's globals.
   */
  async function moduleFunctionInTask(module: unknown, name: string, args: readonly unknown[], describer: PyObject, scopeGlobals: Record<string, unknown> = {}): Promise<TaskEnd> {
    const scope = py.dict() as PyObject;
    try {
      py.exec(module, scope);
      for (const [key, value] of Object.entries(scopeGlobals)) (scope as unknown as { set(k: string, v: unknown): void }).set(key, value);
      const fn = scope.get(name);
      try {
        return await inTask("_cs_eval", [fn, ...args, false, py.dict, py.slice, 0], describer);
      } finally {
        release(fn);
      }
    } finally {
      scope.destroy();
    }
  }

  /**
   * Encodes a value the task returned in a `slice` (value-encoder.ts), in a task of its own
   * made afresh: the value's own code runs only for an opaque object's truth.
   */
  function encodeInTask(box: unknown): Promise<TaskEnd> {
    return moduleFunctionInTask(encoderModule, "_cs_encode", [box, TEST_VALUE_BUDGET], py.describeStep, { K: py.encoderBuiltins });
  }

  /**
   * Evaluates `left op right` in the program's interpreter (its `__eq__`, `__lt__`, `__contains__`
   * and `__bool__` run: the verdict is the program's), on the values the parts' tasks returned,
   * each in a `slice`; returns `slice(True or False, 0)`.
   */
  function compareInTask(op: PythonCompareOp, left: unknown, right: unknown): Promise<TaskEnd> {
    return moduleFunctionInTask(compareModule, `_cs_${COMPARE_OPS.indexOf(op)}`, [left, right], py.formatStep);
  }

  /** The parts of a shaped test, in the order Python evaluates them. */
  function partsOf(step: PythonTestStep): string[] {
    const shape = step.shape!;
    if (shape.kind === "compare") return [shape.left, shape.right];
    if (shape.kind === "truthy") return [shape.operand];
    return [shape.a, shape.b, ...(shape.relTol !== undefined ? [shape.relTol] : []), ...(shape.absTol !== undefined ? [shape.absTol] : [])];
  }

  /** Characters of encoded values sent so far in this run's tests. */
  let valueChars = 0;

  /** Runs one statement of the tests: a whole statement, or each part of a shaped test. */
  async function runStep(step: PythonTestStep, tests: string): Promise<{ report: PythonStepReport; stopped: boolean }> {
    const parts = step.shape ? partsOf(step) : [];
    const compiled: unknown[] = [];
    try {
      try {
        if (step.shape) parts.forEach((part, i) => compiled.push(compileAt(part, step.partLines?.[i] ?? step.line, "eval")));
        else compiled.push(compileAt(step.source, step.line, "exec"));
      } catch (error) {
        if (!isPythonError(error)) throw error;
        return { report: { kind: "raised", error: testsError(error.type, error.message, tests) }, stopped: false };
      }
      if (!step.shape) {
        const ran = await evalInTask(compiled[0], undefined, py.formatStep);
        if ("returned" in ran) {
          release(ran.returned);
          return { report: { kind: "ran" }, stopped: false };
        }
        return { report: { kind: "raised", error: stepError(ran, tests) }, stopped: "stopped" in ran };
      }
      const values: string[] = [];
      const boxes: unknown[] = [];
      try {
        for (const code of compiled) {
          const ran = await evalInTask(code, undefined, py.formatStep, py.slice);
          if (!("returned" in ran)) return { report: { kind: "raised", error: stepError(ran, tests) }, stopped: "stopped" in ran };
          const box = ran.returned;
          boxes.push(box);
          const encoded: TaskEnd = py.isProxy(box) ? await encodeInTask(box) : { returned: undefined };
          if (!("returned" in encoded)) return { report: { kind: "raised", error: stepError(encoded, tests) }, stopped: "stopped" in encoded };
          let text = "[\"c\"]";
          const slice = encoded.returned;
          if (py.isProxy(slice)) {
            const start = (slice as unknown as { start: unknown }).start;
            if (typeof start === "string" && start.length <= MAX_TEST_VALUE_CHARS && valueChars + start.length <= MAX_TEST_VALUES_TOTAL_CHARS) text = start;
            else release(start);
            release(slice);
          }
          valueChars += text.length;
          values.push(text);
        }
        // Objects of the program's class on both sides have no data to compare by (their `__eq__`
        // is their own): the comparison is evaluated by the program's interpreter, on the values
        // already made. With plain data on one side the host decides (a lying `__eq__` gains nothing).
        const shape = step.shape!;
        if (shape.kind !== "compare" || !values.every((text) => text.includes(OPAQUE_TAG))) return { report: { kind: "values", values }, stopped: false };
        const compared = await compareInTask(shape.op, boxes[0], boxes[1]);
        if (!("returned" in compared)) return { report: { kind: "raised", error: stepError(compared, tests) }, stopped: "stopped" in compared };
        const box = compared.returned;
        const verdict = py.isProxy(box) ? (box as unknown as { start: unknown }).start : undefined;
        release(box);
        if (typeof verdict !== "boolean") {
          release(verdict);
          return { report: { kind: "values", values }, stopped: false };
        }
        return { report: { kind: "values", values, byProgram: verdict }, stopped: false };
      } finally {
        for (const box of boxes) release(box);
      }
    } finally {
      for (const code of compiled) release(code);
    }
  }

  /** Whether `exception` is a SystemExit (its type, by C-level `type` and `issubclass`) and its code 0 or None (the C member). */
  function exitKind(exception: unknown): "zero" | "other" | "none" {
    const type = py.type(exception);
    try {
      if (!py.issubclass(type, py.systemExit)) return "none";
    } finally {
      release(type);
    }
    const code = py.exitCode(exception);
    if (code === undefined || code === 0 || code === false) return "zero";
    release(code);
    return "other";
  }

  /** The outcome of a run or call whose code raised `exception` (clamped: never success unless it exited with 0). */
  function raised(end: Exclude<TaskEnd, { returned: unknown }>, exits: boolean): DriverDone {
    let described: Record<string, unknown> | undefined;
    /** Whether the exception is really a SystemExit, and its code 0 or None (read by C-level calls, not by the description). */
    let exit: "zero" | "other" | "none" = "none";
    if ("raised" in end) {
      try {
        exit = exitKind(end.raised);
      } catch {
        exit = "none";
      }
      try {
        // Described in the task when it could be (interruptible there); else here, masked.
        described = parseObject(typeof end.told === "string" ? end.told : py.describe(end.raised));
      } catch {
        described = undefined;
      } finally {
        release(end.raised);
      }
    } else if ("stopped" in end) {
      // The runner names the limit; this only keeps the run from going on.
      described = { status: "runtime_error", error: { name: "KeyboardInterrupt", message: "the run was stopped by its limit" } };
    } else {
      described = { status: "runtime_error", error: { name: "CancelledError", message: "the program cancelled its own task" } };
    }
    const error = described?.error;
    const fallback = { name: "Error", message: "the program raised an exception" };
    // An exit the description claims for an exception that is not one is not believed.
    const exited = typeof described?.exited === "string" && exit !== "none" ? described.exited.slice(0, 200) : undefined;
    if (exited !== undefined) {
      if (exits && exit === "zero" && described!.status === "success") return { outcome: { status: "success" }, fatal: false, exited };
      const exitError = error ?? { name: "SystemExit", message: exited };
      return { outcome: { status: "runtime_error", error: exitError as never }, fatal: false, ...(exits ? { exited } : {}) };
    }
    const status = typeof described?.status === "string" && RAISED_STATUSES.has(described.status) ? described.status : "runtime_error";
    return { outcome: { status: status as PythonOutcome["status"], error: (error ?? fallback) as never }, fatal: false };
  }

  /**
   * The outcome of a run or call whose task returned `text`: the result's JSON text, its size
   * when over the limit, or nothing (what `_cs_result_text` said, in the task; a description
   * only: the result's size is measured here).
   */
  function succeeded(text: unknown, maxResultBytes: number): DriverDone {
    if (py.isProxy(text)) {
      // Not what _cs_result_text returns: the program rewrote it.
      release(text);
      text = undefined;
    }
    const size = typeof text === "string" ? utf8Bytes(text) : typeof text === "number" && Number.isFinite(text) ? text : undefined;
    if (size !== undefined && size > maxResultBytes) {
      return {
        outcome: {
          status: "output_limit",
          error: {
            name: "OutputLimitError",
            message: `the result's JSON is ${size} bytes, over the ${maxResultBytes}-byte result limit (maxResultBytes); it was dropped. Return a summary (counts, a slice) instead of the whole value.`,
          },
        },
        fatal: false,
      };
    }
    if (typeof text !== "string") return { outcome: { status: "success" }, fatal: false };
    return { outcome: { status: "success", resultJson: text } as PythonOutcome, fatal: false };
  }

  /**
   * After a run or call that succeeded: an exception of a task or future the program never
   * awaited, or a task it left pending, ends it `runtime_error` (prelude-async-errors.ts finds
   * them, in a task of its own: describing an exception runs the guest's `__str__`). A run that
   * made no task or future through the loop is answered at once, with no task (most runs). A
   * check the program broke says nothing; a limit that stopped it stops the run.
   */
  async function unobserved(done: DriverDone, pendingLost = false): Promise<DriverDone> {
    if (done.outcome.status !== "success" || done.fatal || stopAsked) return done;
    if (py.asyncQuiet() === true) return done;
    const ran = await inTask("_cs_eval", [py.unobservedStep, pendingLost, undefined, false, py.dict, py.slice, 0], py.describeStep);
    if ("stopped" in ran) return raised(ran, true);
    if (!("returned" in ran)) {
      if ("raised" in ran) release(ran.raised);
      return done;
    }
    const slice = ran.returned;
    let text: unknown;
    if (py.isProxy(slice)) {
      text = (slice as unknown as { start: unknown }).start;
      release(slice);
    }
    const described = parseObject(text);
    release(text); // a proxy: not what _cs_unobserved returns (the program rewrote it)
    const error = described?.error as Record<string, unknown> | undefined;
    if (!described || !RAISED_STATUSES.has(described.status as string) || typeof error?.name !== "string" || typeof error.message !== "string") return done;
    return { outcome: { status: described.status as PythonOutcome["status"], error: error as never }, fatal: false };
  }

  /** A prepare step's refusal (syntax error, forbidden import, failed setup): nothing of the run ran. */
  function notRun(prepared: Record<string, unknown> | undefined): DriverDone {
    if (!prepared || typeof prepared.status !== "string" || !NOT_RUN_STATUSES.has(prepared.status)) {
      return violation("the interpreter's prepare step returned an outcome that is not one; it was replaced");
    }
    return { outcome: prepared as unknown as PythonOutcome, fatal: false };
  }

  return {
    /** A program: its body, then its last expression (the result), each in a task of its own. */
    async runProgram(code: string, optionsJson: string, maxResultBytes: number, pendingLost = false): Promise<DriverDone> {
      stopAsked = false;
      const prepared = parseObject(py.prepareRun(code, optionsJson));
      if (prepared?.ready !== true) return notRun(prepared);
      // Taken out at once, before any code of the run.
      const body = py.slot.get("_b");
      const last = prepared.last === true ? py.slot.get("_l") : undefined;
      try {
        const ranBody = await evalInTask(body);
        if (!("returned" in ranBody)) return raised(ranBody, true);
        release(ranBody.returned);
        if (last === undefined) return await unobserved(succeeded(undefined, maxResultBytes), pendingLost);
        const ranLast = await evalInTask(last, maxResultBytes);
        if (!("returned" in ranLast)) return raised(ranLast, true);
        return await unobserved(succeeded(ranLast.returned, maxResultBytes), pendingLost);
      } finally {
        release(body);
        release(last);
      }
    },

    /** A session call of a function the session defined; an awaitable result is awaited. */
    async callFunction(name: string, optionsJson: string, maxResultBytes: number): Promise<DriverDone> {
      stopAsked = false;
      const prepared = parseObject(py.prepareCall(name, optionsJson));
      if (prepared?.ready !== true) return notRun(prepared);
      const call = py.slot.get("_p");
      try {
        const ran = await inTask("_cs_call", [call, py.hasattr, py.type, py.flushStep, py.resultTextStep, maxResultBytes], py.describeStep);
        if (!("returned" in ran)) return raised(ran, false);
        return await unobserved(succeeded(ran.returned, maxResultBytes));
      } finally {
        release(call);
      }
    },

    /**
     * Tests, compiled whole here after the program ran (a syntax error fails them at once),
     * then run one top-level statement at a time (splitPythonTests), each in a task of its own,
     * so a failing test does not hide the next. A test of a decomposable shape has each part
     * evaluated and encoded; the host compares them. Stops at a limit.
     */
    async runTests(tests: string): Promise<PythonTestsOutcome> {
      let code: unknown;
      try {
        code = py.compile(tests, "<string>", "exec", py.topLevelAwait);
      } catch (error) {
        if (!isPythonError(error)) throw error;
        return { status: "failed", error: testsError(error.type, error.message, tests) };
      } finally {
        release(code);
      }
      valueChars = 0;
      const steps: PythonStepReport[] = [];
      let error: ExecutionError | undefined;
      for (const step of splitPythonTests(tests)) {
        const { report, stopped } = await runStep(step, tests);
        steps.push(report);
        if (report.kind === "raised") {
          // One traceback is enough; the other steps' errors keep their line and message.
          if (error !== undefined) delete report.error.stack;
          error ??= report.error;
        }
        if (stopped) break;
      }
      // A description: the host judges the steps again from their values.
      return { status: error === undefined ? "passed" : "failed", ...(error ? { error } : {}), steps };
    },

    /** Cancels the waiting task at its await (the runner asks after a limit; Python is idle then). */
    interrupt(): void {
      // A task already over whose done callback was lost (an interrupt in the event loop's own
      // frames) is settled now, not left for the hard kill.
      if (waitingTask?.done()) settleWaiting?.();
      else waitingTask?.cancel();
    },

    /** Whether a run waits on an await. */
    waiting(): boolean {
      return waitingTask !== undefined;
    },

    /** Ends the bookkeeping of a run that is over (its limit, its end): its task is let go. */
    abandon(): void {
      const task = waitingTask;
      waitingTask = undefined;
      settleWaiting = undefined;
      stopAsked = false;
      py.mask();
      release(task);
      // Between runs as at the start: the interpreter sees the buffer (the runner clears it).
      py.unmask();
    },
  };
}

/** The driver of one interpreter. */
export type RunDriver = ReturnType<typeof createRunDriver>;
