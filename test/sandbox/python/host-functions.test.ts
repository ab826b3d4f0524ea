/**
 * Host functions called from Python (`await name(...)`): JSON values both ways, host errors as
 * Python exceptions, the in-flight and per-run budgets, the abort signal at the run's end, time
 * spent waiting counted against the time limit, and sessions.
 */
import { describe, expect, it } from "vitest";
import { currentHostCall } from "../../../src/sandbox/host-call-context.js";
import { options, useWarmPythonEngine } from "./support.js";

const engine = useWarmPythonEngine();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Python host functions", { timeout: 60_000 }, () => {
  it("passes JSON copies in and out and counts the calls", async () => {
    const seen: unknown[] = [];
    const r = await engine.run(
      "a = await add(2, 3)\nb = await echo({'xs': [1, 2.5, None, True], 's': 'é'})\nprint(a)\n[a, b, await nothing()]",
      options({
        hostFunctions: {
          add: (x, y) => Number(x) + Number(y),
          echo: async (value) => {
            seen.push(value);
            await sleep(5);
            return value;
          },
          nothing: () => undefined,
        },
      }),
    );
    expect(r.status).toBe("success");
    expect(r.stdout).toBe("5\n");
    expect(r.result).toEqual([5, { xs: [1, 2.5, null, true], s: "é" }, null]);
    expect(seen).toEqual([{ xs: [1, 2.5, null, true], s: "é" }]);
    expect(r.hostCalls).toBe(3);
  });

  it("turns a host error into a Python exception with its name and message, no host stack", async () => {
    const r = await engine.run(
      [
        "try:",
        "    await fail('x')",
        "except HostFunctionError as e:",
        "    caught = [e.name, e.message, str(e)]",
        "caught",
      ].join("\n"),
      options({
        hostFunctions: {
          fail: () => {
            throw new RangeError("secret path /srv/app is out of range");
          },
        },
      }),
    );
    expect(r.status).toBe("success");
    expect(r.result).toEqual(["RangeError", "secret path /srv/app is out of range", "RangeError: secret path /srv/app is out of range"]);

    const uncaught = await engine.run("x = 1\nawait fail()", options({ hostFunctions: { fail: () => Promise.reject(new TypeError("bad input")) } }));
    expect(uncaught.status).toBe("runtime_error");
    expect(uncaught.error?.name).toBe("HostFunctionError");
    expect(uncaught.error?.message).toBe("TypeError: bad input");
    expect(uncaught.error?.line).toBe(2);
    expect(uncaught.error?.stack ?? "").not.toContain("host-calls");
  });

  it("refuses arguments that are not JSON and keyword arguments inside Python", async () => {
    const r = await engine.run(
      [
        "out = []",
        "for bad in (lambda: f({1, 2}), lambda: f(float('nan')), lambda: f(x=1)):",
        "    try:",
        "        bad()",
        "    except TypeError as e:",
        "        out.append(str(e)[:40])",
        "out",
      ].join("\n"),
      options({ hostFunctions: { f: () => 1 } }),
    );
    expect(r.status).toBe("success");
    expect(r.result).toHaveLength(3);
    expect(r.hostCalls).toBe(0);
  });

  it("stops fan-out at maxHostCallsInFlight and the total at maxHostCalls, naming the limit", async () => {
    let running = 0;
    let peak = 0;
    const slow = async () => {
      running += 1;
      peak = Math.max(peak, running);
      await sleep(30);
      running -= 1;
      return 1;
    };
    const fanOut = await engine.run(
      [
        "import asyncio",
        "results = await asyncio.gather(*[slow() for _ in range(20)], return_exceptions=True)",
        "errors = [str(r) for r in results if isinstance(r, HostFunctionError)]",
        "[len(errors), errors[0]]",
      ].join("\n"),
      options({ hostFunctions: { slow }, maxHostCallsInFlight: 3 }),
    );
    expect(fanOut.status).toBe("success");
    const [refused, message] = fanOut.result as [number, string];
    expect(refused).toBeGreaterThanOrEqual(17 - 3);
    expect(message).toContain("maxHostCallsInFlight");
    expect(peak).toBeLessThanOrEqual(3);
    expect(fanOut.hostCalls).toBe(20 - refused);

    const total = await engine.run(
      ["n = 0", "try:", "    while True:", "        await tick()", "        n += 1", "except HostFunctionError as e:", "    message = str(e)", "[n, message]"].join("\n"),
      options({ hostFunctions: { tick: () => 1 }, maxHostCalls: 5 }),
    );
    expect(total.status).toBe("success");
    expect(total.result).toEqual([5, expect.stringContaining("maxHostCalls limit")]);
    expect(total.hostCalls).toBe(5);
  });

  it("counts waiting against the time limit, aborts the call's signal, and starts no call after the run", async () => {
    let aborted = false;
    let calls = 0;
    const r = await engine.run(
      "print('waiting')\nawait hang()",
      options({
        timeoutMs: 500,
        hostFunctions: {
          hang: () => {
            calls += 1;
            const { signal, name } = currentHostCall()!;
            expect(name).toBe("hang");
            return new Promise((resolve) => signal.addEventListener("abort", () => {
              aborted = true;
              resolve(1);
            }));
          },
        },
      }),
    );
    expect(r.status).toBe("timeout");
    expect(r.stdout).toBe("waiting\n");
    // Liveness on a loaded machine, not a speed goal: the run ends near its limit, not at the host's kill.
    expect(r.durationMs).toBeLessThan(500 + 5000);
    expect(aborted).toBe(true);
    expect(calls).toBe(1);
    // The interpreter is fine afterwards.
    const next = await engine.run("1 + 1", options());
    expect(next.result).toBe(2);
    expect(calls).toBe(1);
  });

  it("starts a call when it is made, even if the guest never awaits it", async () => {
    const calls: unknown[] = [];
    const r = await engine.run("note(1)\nnote(2)\n'done'", options({ hostFunctions: { note: (n) => void calls.push(n) } }));
    expect(r.status).toBe("success");
    expect(r.result).toBe("done");
    expect(calls).toEqual([1, 2]);
    expect(r.hostCalls).toBe(2);
  });

  it("refuses a value over maxResultBytes and values that are not JSON", async () => {
    const r = await engine.run(
      [
        "out = []",
        "for f in (big, cyclic):",
        "    try:",
        "        await f()",
        "    except HostFunctionError as e:",
        "        out.append(e.name)",
        "out",
      ].join("\n"),
      options({
        maxResultBytes: 1000,
        hostFunctions: {
          big: () => "x".repeat(5000),
          cyclic: () => {
            const o: Record<string, unknown> = {};
            o.self = o;
            return o;
          },
        },
      }),
    );
    expect(r.status).toBe("success");
    expect(r.result).toEqual(["HostCallError", "TypeError"]);
  });

  it("works in sessions, for run and for call", async () => {
    const session = await engine.createSession({ language: "python", memoryLimitBytes: 64 * 1024 * 1024, defaults: {} });
    try {
      const hostFunctions = { double: (x: unknown) => Number(x) * 2 };
      const defined = await session.run("async def quad(x):\n    return await double(await double(x))\nawait quad(1)", { hostFunctions });
      expect(defined.status).toBe("success");
      expect(defined.result).toBe(4);
      expect(await session.functionNames()).toEqual(["quad"]);
      const called = await session.call("quad", [5], { hostFunctions });
      expect(called.status).toBe("success");
      expect(called.result).toBe(20);
      expect(called.hostCalls).toBe(2);
    } finally {
      await session.dispose();
    }
  });
});
