/**
 * No silent asynchronous error in Python: an exception of a task or future the program never
 * awaited, an exception of an event-loop callback, and a task left pending at the end each end
 * the run `runtime_error` with the error (prelude-async-errors.ts, run-driver.ts); errors the
 * program did observe, cancelled tasks and plain runs stay `success`.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { SandboxSession } from "../../../src/sandbox/types.js";
import { options, useWarmPythonEngine } from "./support.js";

const engine = useWarmPythonEngine();

const BOOM = ["import asyncio", "async def boom():", "    raise ValueError('lost')"];

describe("Python asynchronous errors the program never observed", { timeout: 120_000 }, () => {
  it("ends runtime_error with the exception of a task never awaited, kept or not", async () => {
    for (const start of ["t = asyncio.ensure_future(boom())", "asyncio.create_task(boom())"]) {
      const r = await engine.run([...BOOM, start, "await asyncio.sleep(0)", "print('end')", "42"].join("\n"), options());
      expect(r.status).toBe("runtime_error");
      expect(r.error?.name).toBe("ValueError");
      expect(r.error?.message).toContain("lost");
      expect(r.error?.message).toContain("boom()");
      expect(r.error?.message).toContain("never awaited");
      expect(r.error?.line).toBe(3);
      expect(r.result).toBeUndefined();
      expect(r.stdout).toBe("end\n");
      // Reported once, as the outcome (not also as a guess printed to stderr).
      expect(r.stderr).toBe("");
    }
  });

  it("ends runtime_error for a future whose exception nothing retrieved", async () => {
    const r = await engine.run("import asyncio\nf = asyncio.get_event_loop().create_future()\nf.set_exception(KeyError('k'))\nprint('end')", options());
    expect(r.status).toBe("runtime_error");
    expect(r.error?.name).toBe("KeyError");
    expect(r.error?.message).toContain("a future");
  });

  it("ends runtime_error for an exception raised in a loop callback", async () => {
    const r = await engine.run("import asyncio\ndef cb():\n    raise KeyError('cb')\nasyncio.get_event_loop().call_soon(cb)\nawait asyncio.sleep(0.01)\nprint('end')", options());
    expect(r.status).toBe("runtime_error");
    expect(r.error?.name).toBe("KeyError");
    expect(r.error?.message).toContain("callback");
    expect(r.error?.line).toBe(3);
  });

  it("ends runtime_error when a task the program started is still pending at the end", async () => {
    for (const code of [
      "import asyncio\nasync def slow():\n    await asyncio.sleep(5)\nt = asyncio.ensure_future(slow())\nprint('end')",
      // Never even started: the program did not yield to the loop.
      [...BOOM, "asyncio.get_event_loop().create_task(boom())", "print('end')"].join("\n"),
    ]) {
      const r = await engine.run(code, options());
      expect(r.status).toBe("runtime_error");
      expect(r.error?.name).toBe("RuntimeError");
      expect(r.error?.message).toMatch(/1 task it started was still pending \(never awaited\): (slow|boom)\(\) at line 2/);
      expect(r.stdout).toBe("end\n");
    }
  });

  it("keeps success when the program observed its errors, cancelled its task, or used no task", async () => {
    const cases: Array<[string, unknown]> = [
      // A task that failed before it was awaited, then awaited: retrieved.
      [[...BOOM, "t = asyncio.ensure_future(boom())", "await asyncio.sleep(0.01)", "try:", "    await t", "except ValueError as e:", "    print('caught', e)", "42"].join("\n"), 42],
      ["import asyncio\nasync def sq(x):\n    await asyncio.sleep(0)\n    raise ValueError(x)\ntry:\n    await asyncio.gather(sq(2), sq(3))\nexcept ValueError as e:\n    print('caught', e)\n1", 1],
      ["import asyncio\nasync def sq(x):\n    await asyncio.sleep(0)\n    return x * x\nawait asyncio.gather(sq(2), sq(3))", [4, 9]],
      ["import asyncio\nasync def sq(x):\n    await asyncio.sleep(0)\n    return x * x\nasync with asyncio.TaskGroup() as tg:\n    a = tg.create_task(sq(2))\na.result()", 4],
      ["import asyncio\nasync def slow():\n    await asyncio.sleep(5)\nt = asyncio.ensure_future(slow())\nawait asyncio.sleep(0)\nt.cancel()\n'cancelled'", "cancelled"],
      ["1 + 1", 2],
    ];
    for (const [code, result] of cases) {
      const r = await engine.run(code, options());
      expect(r.status, code).toBe("success");
      expect(r.result, code).toEqual(result);
      expect(r.stderr, code).toBe("");
    }
  });

  describe("in a session", () => {
    let session: SandboxSession | undefined;
    afterAll(async () => {
      await session?.dispose();
    });

    it("reports a call's lost error in that call only, and the session goes on", async () => {
      session = await engine.createSession({ language: "python", defaults: {}, memoryLimitBytes: 64 * 1024 * 1024 });
      const defined = await session.run([...BOOM, "async def fire():", "    asyncio.ensure_future(boom())", "    await asyncio.sleep(0)", "    return 'fired'"].join("\n"));
      expect(defined.status).toBe("success");
      const fired = await session.call("fire", []);
      expect(fired.status).toBe("runtime_error");
      expect(fired.error?.name).toBe("ValueError");
      expect(fired.error?.message).toContain("never awaited");
      const next = await session.run("'still here'");
      expect(next.status).toBe("success");
      expect(next.result).toBe("still here");
    });

    it("keeps a task pending across cells: a session's next cell still holds it", async () => {
      const started = await session!.run("import asyncio\nasync def later():\n    await asyncio.sleep(0)\n    return 7\ntask = asyncio.ensure_future(later())");
      expect(started.status).toBe("success");
      // Not lost at the end of the cell: the session keeps the task (not cancelled, not failed).
      const later = await session!.run("[isinstance(task, asyncio.Task), task.cancelled()]");
      expect(later.status).toBe("success");
      expect(later.result).toEqual([true, false]);
    });
  });
});
