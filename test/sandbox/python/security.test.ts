/**
 * Hostile Python programs against the real engine. The boundary is the Deno process (read
 * access to the Pyodide files only); each test asserts that the host was not reached (marker
 * files absent, the local listener never contacted, no host secrets in the output) and that
 * the next run starts clean.
 */
import { existsSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { denoArgs } from "../../../src/sandbox/python/host/deno-process.js";
import { resolvePythonPaths } from "../../../src/sandbox/python/host/deno-paths.js";
import { createPythonEngine } from "../../../src/sandbox/python/host/engine.js";
import type { ExecutionResult, LanguageEngine, ResolvedRunOptions } from "../../../src/sandbox/types.js";
import { HELD_FFI, HELD_FUNCTION, heldModule } from "./held-routes.js";
import { options as baseOptions } from "./support.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const marker = join(tmpdir(), `codegen-sandbox-py-marker-${process.pid}`);
const secretName = "CODEGEN_SANDBOX_PY_TEST_SECRET";
const secretValue = `s3cret-${process.pid}-${Date.now()}`;

let engine: LanguageEngine;
let server: Server;
let port = 0;
let connections = 0;

const LEAK_PREFIX = "import builtins as _leak_b\n_leak_b.LEAKED_FROM_PREVIOUS_RUN = True\nLEAKED_GLOBAL = 1\n";

function options(overrides: Partial<ResolvedRunOptions> = {}): ResolvedRunOptions {
  return baseOptions({ timeoutMs: 5000, maxOutputBytes: 64 * 1024, ...overrides });
}

function everything(result: ExecutionResult): string {
  return `${result.stdout}\n${result.stderr}\n${JSON.stringify(result.result ?? null)}\n${JSON.stringify(result.error ?? null)}`;
}

/** Runs a hostile program, asserts the host was not reached, then that the next run is clean. */
async function hostile(code: string, overrides: Partial<ResolvedRunOptions> = {}): Promise<ExecutionResult> {
  const result = await engine.run(LEAK_PREFIX + code, options(overrides));
  const text = everything(result);
  expect(existsSync(marker)).toBe(false);
  expect(text).not.toContain("root:x:0:0");
  expect(text).not.toContain(secretValue);
  expect(text).not.toContain('"name": "codegen-sandbox"');
  // Give a stray connection attempt time to arrive before asserting there was none.
  await new Promise((r) => setTimeout(r, 50));
  expect(connections).toBe(0);
  const probe = await engine.run(
    "import builtins\n[hasattr(builtins, 'LEAKED_FROM_PREVIOUS_RUN'), 'LEAKED_GLOBAL' in globals(), 1 + 1]",
    options(),
  );
  expect(probe.status).toBe("success");
  expect(probe.result).toEqual([false, false, 2]);
  return result;
}

beforeAll(async () => {
  process.env[secretName] = secretValue;
  rmSync(marker, { force: true });
  server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  port = (server.address() as { port: number }).port;
  // Two processes: one restarts its interpreter while the other serves the next run.
  engine = createPythonEngine({ poolSize: 2 });
  await engine.warm();
}, 180_000);

afterAll(async () => {
  await engine?.dispose();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(marker, { force: true });
  delete process.env[secretName];
});

describe("the Deno process boundary", () => {
  it("grants read access to the Pyodide files and runner only, and denies everything else", () => {
    const args = denoArgs(resolvePythonPaths(), false);
    const reads = args.filter((a) => a.startsWith("--allow-read="));
    expect(reads).toHaveLength(1);
    expect(args.filter((a) => a.startsWith("--allow-") && !a.startsWith("--allow-read="))).toEqual([]);
    for (const flag of ["--deny-write", "--deny-net", "--deny-env", "--deny-run", "--deny-ffi", "--deny-sys", "--no-prompt", "--no-remote", "--no-npm"]) {
      expect(args).toContain(flag);
    }
    expect(reads[0]).not.toContain(repoRoot + ",");
  });
});

describe("hostile Python programs", { timeout: 60_000 }, () => {
  it("1. `import js` is forbidden before running", async () => {
    const r = await hostile("import js\nprint(js.Deno.readTextFileSync('/etc/passwd'))");
    expect(r.status).toBe("forbidden");
    expect(r.error?.message).toMatch(/not allowed/);
  });

  it("2. a dynamic __import__('js') is stopped by the runtime guard", async () => {
    const r = await hostile("m = 'j' + 's'\n__import__(m).Deno.readTextFileSync('/etc/passwd')");
    expect(r.status).toBe("forbidden");
  });

  it("3. the js module reached through sys.modules cannot read host files", async () => {
    // js cannot be imported (import-seal.ts): the realm's Function, reached from a converted value, stands for it.
    const r = await hostile(`js = ${HELD_FUNCTION}\nprint(js.Deno.readTextFileSync('/etc/passwd'))`);
    expect(r.status).toBe("runtime_error");
    // The `js` module shows no Deno (jsglobals); even with Deno, the process may not read.
    expect(everything(r)).toMatch(/AttributeError|NotCapable|read access/);
  });

  it("4. pyodide.code.run_js is forbidden statically", async () => {
    const r = await hostile("from pyodide.code import run_js\nrun_js(\"Deno.readTextFileSync('/etc/passwd')\")");
    expect(r.status).toBe("forbidden");
  });

  it("5. pyodide.code.run_js via importlib cannot read host files", async () => {
    const r = await hostile(`code = ${heldModule("pyodide.code")}\nprint(code.run_js("Deno.readTextFileSync('/etc/passwd')"))`);
    // run_js imports js for eval (absent: forbidden); with it, code generation from strings is off.
    expect(["runtime_error", "forbidden"]).toContain(r.status);
  });

  it("6. pyodide_js.mountNodeFS cannot mount the host's file system", async () => {
    const r = await hostile(
      `import importlib, os\npj = importlib.import_module('pyodide_js')\npj.mountNodeFS('/hostroot', ${JSON.stringify(repoRoot)})\nprint(os.listdir('/hostroot'))`,
    );
    expect(r.status).not.toBe("success");
    expect(r.stdout).not.toContain("package.json");
  });

  it("7. pyodide_js._module internals cannot run host commands", async () => {
    const r = await hostile(
      `import importlib\npj = importlib.import_module('pyodide_js')\nm = pj._module\nm._system(m.stringToNewUTF8('touch ${marker}'))`,
    );
    expect(r.status).toBe("forbidden");
  });

  it("8. _pyodide_core proxy chains to the JS Function constructor cannot reach Deno", async () => {
    const r = await hostile(
      `core = ${heldModule("_pyodide_core")}\nF = ${HELD_FUNCTION}\nf = F.new("return Deno.readTextFileSync('/etc/passwd')")\nprint(f())`,
    );
    expect(r.status).toBe("runtime_error");
  });

  it("9. a __subclasses__ walk to os.system runs no host command", async () => {
    const r = await hostile(
      `w = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close'][0]\nw.__init__.__globals__['system']('touch ${marker}')`,
    );
    expect(r.status).toBe("runtime_error");
  });

  it("10. os.system runs no host command", async () => {
    const r = await hostile(`import os\nos.system('touch ${marker}')`);
    expect(r.status).toBe("runtime_error");
    expect(r.error?.name).toBe("PermissionError");
  });

  it("11. `import ctypes` is forbidden", async () => {
    const r = await hostile(`import ctypes\nctypes.CDLL(None).system(b'touch ${marker}')`);
    expect(r.status).toBe("forbidden");
  });

  it("12. ctypes through importlib runs no host command", async () => {
    const r = await hostile(`import importlib\nc = importlib.import_module('ctypes')\nc.CDLL(None).system(b'touch ${marker}')`);
    expect(r.status).not.toBe("success");
  });

  it("13. `import subprocess` is forbidden", async () => {
    const r = await hostile(`import subprocess\nsubprocess.run(['touch', '${marker}'])`);
    expect(r.status).toBe("forbidden");
    expect(r.error?.message).toMatch(/subprocess/);
  });

  it("14. subprocess through importlib starts no process", async () => {
    const r = await hostile(`import importlib\nsp = importlib.import_module('subprocess')\nsp.run(['touch', '${marker}'])`);
    expect(r.status).not.toBe("success");
  });

  it("15. /etc/passwd is not the host's", async () => {
    const r = await hostile("print(open('/etc/passwd').read())");
    expect(r.status).toBe("runtime_error");
    expect(r.error?.name).toBe("FileNotFoundError");
  });

  it("16. the project's files are not visible", async () => {
    const r = await hostile(`print(open(${JSON.stringify(join(repoRoot, "package.json"))}).read())`);
    expect(r.status).toBe("runtime_error");
    expect(r.error?.name).toBe("FileNotFoundError");
  });

  it("17. the root directory is the virtual one, not the host's", async () => {
    const r = await hostile("import os\nsorted(os.listdir('/'))");
    expect(r.status).toBe("success");
    expect(r.result).not.toContain("work");
    expect(r.result).not.toContain("usr");
  });

  it("18. writing a file lands in the virtual file system, never on the host", async () => {
    const r = await hostile(`open('${marker}', 'w').write('owned')\nopen('${marker}').read()`);
    expect(r.status).toBe("success");
    expect(existsSync(marker)).toBe(false);
    const again = await engine.run(`import os\nos.path.exists('${marker}')`, options());
    expect(again.result).toBe(false);
  });

  it("19. Deno.writeTextFileSync through js is denied", async () => {
    const r = await hostile(`${HELD_FUNCTION}.Deno.writeTextFileSync('${marker}', 'owned')`);
    expect(r.status).toBe("runtime_error");
  });

  it("20. `import socket` is forbidden", async () => {
    const r = await hostile(`import socket\nsocket.create_connection(('127.0.0.1', ${port}))`);
    expect(r.status).toBe("forbidden");
  });

  it("21. a socket through importlib does not reach the local listener", async () => {
    const r = await hostile(`import importlib\ns = importlib.import_module('socket')\ns.create_connection(('127.0.0.1', ${port}), timeout=1).send(b'hi')`);
    expect(r.status).not.toBe("success");
  });

  it("22. `import urllib.request` is forbidden", async () => {
    const r = await hostile(`import urllib.request\nurllib.request.urlopen('http://127.0.0.1:${port}/')`);
    expect(r.status).toBe("forbidden");
  });

  it("23. urllib through importlib does not reach the local listener", async () => {
    const r = await hostile(`import importlib\nu = importlib.import_module('urllib.request')\nu.urlopen('http://127.0.0.1:${port}/', timeout=1).read()`);
    expect(r.status).not.toBe("success");
  });

  it("24. fetch, Deno.connect and Deno.listen through js do not reach the network", async () => {
    const r = await hostile(
      `js = ${HELD_FUNCTION}\njs.fetch('http://127.0.0.1:${port}/')\njs.Deno.connect(js.JSON.parse('{"hostname": "127.0.0.1", "port": ${port}}'))\ntry:\n    js.Deno.listen(js.JSON.parse('{"port": 0}'))\nexcept Exception as e:\n    print(type(e).__name__, e)\n`,
    );
    expect(r.status).toBe("runtime_error");
    expect(everything(r)).toMatch(/AttributeError|NotCapable|net access/);
  });

  it("25. host environment variables are not visible to os.environ", async () => {
    const r = await hostile(`import os\nprint(dict(os.environ))\nos.environ.get('${secretName}')`);
    expect(r.status).toBe("success");
    expect(r.result).toBeUndefined();
  });

  it("26. Deno.env through js is denied", async () => {
    const r = await hostile(`${HELD_FUNCTION}.Deno.env.get('${secretName}')`);
    expect(r.status).toBe("runtime_error");
    expect(everything(r)).toMatch(/AttributeError|NotCapable|env access/);
  });

  it("27. Deno.Command through js is denied", async () => {
    const r = await hostile(`js = ${HELD_FUNCTION}\njs.Deno.Command.new('/usr/bin/touch', js.JSON.parse('{"args": ["${marker}"]}')).outputSync()`);
    expect(r.status).toBe("runtime_error");
    expect(everything(r)).toMatch(/AttributeError|NotCapable|run access/);
  });

  it("28. Deno.dlopen (FFI) through js is denied", async () => {
    const r = await hostile(`js = ${HELD_FUNCTION}\njs.Deno.dlopen('libc.so.6', js.JSON.parse('{}'))`);
    expect(r.status).toBe("runtime_error");
  });

  it("29b. forged protocol lines written to the process's stdout are ignored", async () => {
    const snapshot = resolvePythonPaths().snapshotFile;
    const before = existsSync(snapshot) ? statSync(snapshot).mtimeMs : undefined;
    const forged = (id: number) => JSON.stringify({ type: "result", id, outcome: { status: "success", resultJson: '"forged"' }, stdout: "", stderr: "", outputTruncated: false, durationMs: 0, interpreterReset: false });
    const lines = Array.from({ length: 200 }, (_, i) => forged(i + 1));
    lines.push(JSON.stringify({ type: "snapshot", base64: "AAAA" }), JSON.stringify({ type: "ready" }));
    const r = await hostile(
      `import json\njs = ${HELD_FUNCTION}\nfor line in json.loads(${JSON.stringify(JSON.stringify(lines))}):\n    js.console.log(line)\n    js.Deno.stdout.writeSync(js.TextEncoder.new().encode(line + "\\n"))\n"genuine"`,
    );
    // Either the realm is out of reach (runtime_error) or the raw bytes count as output (output_limit);
    // a forged line is never taken as the result.
    expect(["runtime_error", "output_limit", "success"]).toContain(r.status);
    expect(r.result).not.toBe("forged");
    expect(existsSync(snapshot) ? statSync(snapshot).mtimeMs : undefined).toBe(before);
  });

  it("29. a third-party package import is forbidden with a clear message", async () => {
    const r = await hostile("import requests\nrequests.get('http://127.0.0.1')");
    expect(r.status).toBe("forbidden");
    expect(r.error?.message).toMatch(/standard library/);
  });
});

describe("resource attacks end with their status and the host keeps serving", { timeout: 60_000 }, () => {
  it("30. a CPU loop times out (soft interrupt), output kept", async () => {
    const r = await hostile("print('started', flush=True)\nwhile True:\n    pass", { timeoutMs: 1000 });
    expect(r.status).toBe("timeout");
    expect(r.stdout).toContain("started");
    expect(r.error?.line).toBe(6); // line 3 of the program, after the 3-line leak prefix
    expect(r.durationMs).toBeLessThan(1000 + 5000); // liveness on a loaded machine, not a speed goal
  });

  it("31. a loop that swallows KeyboardInterrupt is killed", async () => {
    const r = await hostile("print('stubborn')\nwhile True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass", { timeoutMs: 1000 });
    expect(r.status).toBe("timeout");
    expect(r.stdout).toContain("stubborn");
  });

  it("32. time.sleep past the limit times out", async () => {
    const r = await hostile("import time\ntime.sleep(60)", { timeoutMs: 1000 });
    expect(r.status).toBe("timeout");
    expect(r.durationMs).toBeLessThan(30_000);
  });

  it("33. a memory bomb ends with memory_limit", async () => {
    const r = await hostile("x = []\nwhile True:\n    x.append(bytearray(4 * 1024 * 1024))", { timeoutMs: 30_000, memoryLimitBytes: 32 * 1024 * 1024 });
    expect(r.status).toBe("memory_limit");
  });

  it("34. a memory bomb in JavaScript memory (outside the WebAssembly heap) is stopped", async () => {
    const r = await hostile(
      `U8 = ${HELD_FFI}.to_js(bytearray(1)).constructor\nkeep = []\nwhile True:\n    b = U8.new(32 * 1024 * 1024)\n    b.fill(1)\n    keep.append(b)`,
      { timeoutMs: 30_000, memoryLimitBytes: 32 * 1024 * 1024 },
    );
    expect(["memory_limit", "runtime_error"]).toContain(r.status);
  });

  it("35. deep recursion past a raised limit ends with an error, not a crash of the host", async () => {
    const r = await hostile("import sys\nsys.setrecursionlimit(10**6)\ndef f(n):\n    return f(n + 1)\nf(0)", { timeoutMs: 30_000 });
    // Either the interpreter's stack overflows (RecursionError) or its frames exhaust the memory cap.
    expect(["runtime_error", "memory_limit"]).toContain(r.status);
    expect(["RecursionError", "MemoryError"]).toContain(r.error?.name);
  });

  it("36. plain deep recursion raises RecursionError with the user's line", async () => {
    const r = await hostile("def f(n):\n    return f(n + 1)\nf(0)");
    expect(r.status).toBe("runtime_error");
    expect(r.error?.name).toBe("RecursionError");
  });

  it("37. a print flood ends with output_limit and keeps output up to the limit", async () => {
    const r = await hostile("while True:\n    print('x' * 99)", { maxOutputBytes: 10_000 });
    expect(r.status).toBe("output_limit");
    expect(r.outputTruncated).toBe(true);
    expect(r.stdout.length).toBe(10_000);
    expect(r.stdout.startsWith("x".repeat(99) + "\n")).toBe(true);
  });
});
