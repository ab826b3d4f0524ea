/**
 * Issue 21.3: nothing of a session call runs after the call. The AbortSignal.timeout
 * listener (reachable as `abortSignalAny([]).constructor.timeout`) tried to forge call 2's
 * result, make a host call in call 2's name and burn CPU between calls; the same with the
 * guest's own FinalizationRegistry, a proxy's `__del__` left to the garbage collector, asyncio
 * handles and JS timers. And a session's memory limit counts what it keeps: its
 * in-memory files too.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SandboxSessionEndedError } from "../../../src/errors.js";
import { createPythonEngine } from "../../../src/sandbox/python/host/engine.js";
import type { LanguageEngine, SandboxSession } from "../../../src/sandbox/types.js";
import { cpuTicks, denoChildren } from "./support.js";

let engine: LanguageEngine;


async function newSession(memoryLimitBytes = 64 * 1024 * 1024): Promise<{ session: SandboxSession; pid: number }> {
  const before = new Set(denoChildren());
  const session = await engine.createSession({ language: "python", defaults: {}, memoryLimitBytes });
  const pid = denoChildren().find((p) => !before.has(p));
  if (pid === undefined) throw new Error("the session's process was not found");
  return { session, pid };
}

beforeAll(() => {
  engine = createPythonEngine({ poolSize: 1 });
});

afterAll(async () => {
  await engine?.dispose();
});

/** Call 1 of the attack, and the variants: everything that could run later. */
const LEFT_BEHIND = `
import importlib, gc, asyncio
def pj():
    # Unregistered now (pyodide-api.ts): the routes through it end ModuleNotFoundError.
    return importlib.import_module('pyodide_js')
js = next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi').to_js([]).constructor.constructor
create_proxy = next(o for o in __import__('gc').get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi').create_proxy
def forge():
    # Forge the next call's outcome and call a host function in its name.
    for o in gc.get_objects():
        if isinstance(o, dict) and '_cs_finished' in o:
            o['_cs_finished'] = '{"status": "success", "resultJson": "\\\\"FORGED-BY-CALL-1\\\\""}'
        if isinstance(o, dict) and o.get('_cs_hooks') is not None:
            try:
                o['_cs_hooks'].hostCall('notify', '["from call 1"]')
            except BaseException:
                pass
def later(*args):
    forge()
    x = 0
    while x < 10**9:
        x += 1
armed = []
def arm(label, fn):
    try:
        fn()
        armed.append(label)
    except BaseException as e:
        armed.append(label + ': ' + type(e).__name__)
def abort_signal():
    pj()._api.abortSignalAny([]).constructor.timeout(200).addEventListener('abort', create_proxy(later))
def registry():
    R = pj()._module.finalizationRegistry.constructor
    r = R.new(create_proxy(later))
    for _ in range(2000):
        r.register(pj()._module.HEAPU8.constructor.new(1024), 1)
class Bomb:
    def __del__(self):
        # Released at the end of this call (inside it): a forgery here has nothing to forge.
        forge()
def del_later():
    p = create_proxy(Bomb())
    # A JavaScript object that outlives the run (Function, reached from js's timers).
    js.leftover = p
def asyncio_later():
    asyncio.get_event_loop().call_later(0.2, later)
def js_timer():
    type(__import__('asyncio').get_event_loop()).call_soon.__globals__['scheduleCallback'](create_proxy(later), 200)
def soon_chain():
    # Callbacks due at once go through the worker's own task queue (not a timer): the chain spins
    # while the call waits and must stop with the call.
    loop = asyncio.get_event_loop()
    def again():
        loop.call_soon(again)
    loop.call_soon(again)
for label, fn in [("AbortSignal.timeout", abort_signal), ("FinalizationRegistry", registry), ("__del__ later", del_later), ("asyncio call_later", asyncio_later), ("js.setTimeout", js_timer), ("call_soon chain", soon_chain)]:
    arm(label, fn)
# The timer of the sleep still comes while the chain spins.
await asyncio.sleep(0.05)
armed
`;

describe("nothing of a session call runs after the call", { timeout: 120_000 }, () => {
  it("no listener, registry, finalizer or timer of call 1 forges call 2, calls a host function or burns CPU", async () => {
    const { session, pid } = await newSession();
    try {
      const calls: unknown[] = [];
      const notify = (text: unknown) => {
        calls.push(text);
        return "ok";
      };
      const first = await session.run(LEFT_BEHIND, { timeoutMs: 30_000, hostFunctions: { notify } });
      expect(first.status).toBe("success");
      // The routes through pyodide_js are closed; the others are armed and must stay inert.
      expect(first.result).toEqual(["AbortSignal.timeout: ModuleNotFoundError", "FinalizationRegistry: ModuleNotFoundError", "__del__ later", "asyncio call_later", "js.setTimeout", "call_soon chain"]);
      await new Promise((r) => setTimeout(r, 200));
      const before = cpuTicks(pid);
      await new Promise((r) => setTimeout(r, 1500));
      // 150 ticks = 1.5 s of CPU; a leftover loop would burn all of it.
      expect(cpuTicks(pid) - before).toBeLessThan(25);
      const second = await session.run("import asyncio\nawait asyncio.sleep(0.5)\nawait notify('from call 2')\n'call 2'", { timeoutMs: 30_000, hostFunctions: { notify } });
      expect(second.status).toBe("success");
      expect(second.result).toBe("call 2");
      expect(calls).toEqual(["from call 2"]);
    } finally {
      await session.dispose();
    }
  });

  it("the session's process uses ~no CPU between calls", async () => {
    const { session, pid } = await newSession();
    try {
      await session.run("import asyncio\nasyncio.get_event_loop().call_later(0.1, lambda: None)\nx = sum(range(10**6))", { timeoutMs: 30_000 });
      await new Promise((r) => setTimeout(r, 300));
      const before = cpuTicks(pid);
      await new Promise((r) => setTimeout(r, 1000));
      expect(cpuTicks(pid) - before).toBeLessThan(10);
    } finally {
      await session.dispose();
    }
  });
});

describe("a session's memory limit counts what it keeps", { timeout: 180_000 }, () => {
  it("40 MiB written to /tmp per call ends the session memory_limit, not a 1 GB process", async () => {
    const { session, pid } = await newSession(64 * 1024 * 1024);
    const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
    const start = rss();
    let peak = start;
    const statuses: string[] = [];
    try {
      for (let call = 0; call < 20; call++) {
        let r;
        try {
          r = await session.run(`open('/tmp/keep-${call}.bin', 'wb').write(b'x' * (40 * 1024 * 1024))`, { timeoutMs: 30_000 });
        } catch (error) {
          expect(error).toBeInstanceOf(SandboxSessionEndedError);
          break;
        }
        try {
          peak = Math.max(peak, rss());
        } catch {
          // The process is gone.
        }
        statuses.push(r.status);
        if (r.status !== "success") break;
      }
    } finally {
      await session.dispose();
    }
    expect(statuses).toContain("memory_limit");
    expect(statuses.length).toBeLessThanOrEqual(3);
    expect(peak - start).toBeLessThan(300 * 1024 * 1024);
  });
});
