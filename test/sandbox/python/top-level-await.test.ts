/**
 * Top-level `await` in Python programs, as in a notebook: the last expression is still the
 * result (awaited when it is an await), errors keep their lines, and a never-settling await
 * ends with `timeout` without losing the interpreter's health.
 */
import { describe, expect, it } from "vitest";
import { options, useWarmPythonEngine } from "./support.js";

const engine = useWarmPythonEngine();

describe("Python top-level await", { timeout: 60_000 }, () => {
  it("awaits at the top level and returns the last expression, awaited", async () => {
    const r = await engine.run(
      [
        "import asyncio",
        "async def square(x):",
        "    await asyncio.sleep(0.01)",
        "    return x * x",
        "values = await asyncio.gather(square(2), square(3))",
        "print(values)",
        "await square(sum(values))",
      ].join("\n"),
      options(),
    );
    expect(r.status).toBe("success");
    expect(r.stdout).toBe("[4, 9]\n");
    expect(r.result).toBe(169);
  });

  it("passes check() and keeps plain programs unchanged", async () => {
    expect((await engine.check("import asyncio\nawait asyncio.sleep(0)", "python")).ok).toBe(true);
    const plain = await engine.run("x = 2\nx * 21", options());
    expect(plain.result).toBe(42);
  });

  it("reports an error raised after an await with its line", async () => {
    const r = await engine.run("import asyncio\nawait asyncio.sleep(0)\nprint('before')\n1 / 0", options());
    expect(r.status).toBe("runtime_error");
    expect(r.stdout).toBe("before\n");
    expect(r.error?.name).toBe("ZeroDivisionError");
    expect(r.error?.line).toBe(4);
  });

  it("treats sys.exit after an await like sys.exit anywhere", async () => {
    const ok = await engine.run("import asyncio, sys\nawait asyncio.sleep(0)\nprint('bye')\nsys.exit(0)\nprint('never')", options());
    expect(ok.status).toBe("success");
    expect(ok.stdout).toBe("bye\n");
    const bad = await engine.run("import asyncio, sys\nawait asyncio.sleep(0)\nsys.exit(3)", options());
    expect(bad.status).toBe("runtime_error");
    expect(bad.error?.name).toBe("SystemExit");
  });

  it("ends a never-settling await with timeout, and the next run is clean", async () => {
    const r = await engine.run("import asyncio\nprint('start')\nawait asyncio.Future()", options({ timeoutMs: 400 }));
    expect(r.status).toBe("timeout");
    expect(r.stdout).toBe("start\n");
    expect(r.error?.name).toBe("TimeoutError");
    // Liveness on a loaded machine, not a speed goal.
    expect(r.durationMs).toBeLessThan(400 + 5000);
    const next = await engine.run("'fine'", options());
    expect(next.result).toBe("fine");
  });

  it("interrupts a long sleep in a session and keeps the session's state", async () => {
    const session = await engine.createSession({ language: "python", memoryLimitBytes: 64 * 1024 * 1024, defaults: {} });
    try {
      await session.run("kept = 41");
      const r = await session.run("import asyncio\nawait asyncio.sleep(60)", { timeoutMs: 300 });
      expect(r.status).toBe("timeout");
      expect(r.error?.message).toContain("interrupted");
      const after = await session.run("kept + 1");
      expect(after.result).toBe(42);
    } finally {
      await session.dispose();
    }
  });

  it("awaits the value of an async function called through session.call", async () => {
    const session = await engine.createSession({ language: "python", memoryLimitBytes: 64 * 1024 * 1024, defaults: {} });
    try {
      await session.run("import asyncio\nasync def later(x):\n    await asyncio.sleep(0.01)\n    return x + 1");
      const r = await session.call("later", [1]);
      expect(r.status).toBe("success");
      expect(r.result).toBe(2);
    } finally {
      await session.dispose();
    }
  });
});
