/**
 * Python session images (src/sandbox/python/deno/session-image.ts): a fresh session restored
 * from a live session's image answers every later cell as the live one does — its names and
 * objects, its random state, its files with their inode numbers, times and order, its working
 * directory — or the image is refused and nothing is touched.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createPythonSession } from "../../../src/sandbox/python/host/session.js";
import { pythonEngineBuild } from "../../../src/sandbox/python/host/session-images.js";
import { resolvePythonPaths } from "../../../src/sandbox/python/host/deno-paths.js";
import type { EngineSnapshot, SandboxSession } from "../../../src/sandbox/types.js";

const paths = resolvePythonPaths();
const options = { language: "python" as const, defaults: {}, memoryLimitBytes: 64 << 20, snapshottable: true };
const sessions: SandboxSession[] = [];
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.dispose()));
});

async function open(): Promise<SandboxSession> {
  const session = await createPythonSession(paths, options);
  sessions.push(session);
  return session;
}

async function image(session: SandboxSession): Promise<EngineSnapshot> {
  const taken = await session.snapshot!();
  if (typeof taken === "string") throw new Error(`no image: ${taken}`);
  return taken;
}

const CELLS = [
  "import json, re, collections, random, os\ndef f(x):\n    return x * 2\nclass C:\n    n = 5\nd = {i: str(i) for i in range(1000)}\npattern = re.compile(r'a+b')",
  "open('/tmp/x.txt', 'w').write('tmpdata')\nos.makedirs('/home/pyodide/sub/deep', exist_ok=True)\nopen('/home/pyodide/sub/a', 'w').write('aa')\nos.symlink('/tmp/x.txt', '/home/pyodide/link')\nos.chmod('/home/pyodide/sub/a', 0o600)\nr = random.random()",
  "x = 100\nopen('/home/pyodide/z', 'w').close()\nopen('/home/pyodide/b', 'w').write('b')\nos.chdir('/home/pyodide/sub')\nbig = bytearray(8 * 1024 * 1024)\nbig[-1] = 9",
];
const QUERY = [
  "import os, random",
  "st = os.stat('/home/pyodide/sub/a')",
  "print(f(21), C.n, len(d), x, r, pattern.match('aab') is not None, big[-1], len(big))",
  "print(open('/tmp/x.txt').read(), os.listdir('/home/pyodide'), os.readlink('/home/pyodide/link'), oct(st.st_mode), st.st_ino, st.st_mtime)",
  "print(os.stat('/tmp').st_mtime, os.stat('/home/pyodide').st_mtime, os.getcwd(), random.random())",
].join("\n");

describe("Python session images", () => {
  it("a fresh session restored from an image answers as the live session: objects, random state, files, inode numbers, times, order, cwd", { timeout: 60_000 }, async () => {
    const live = await open();
    for (const cell of CELLS) expect((await live.run(cell, { timeoutMs: 10_000 })).status).toBe("success");
    const taken = await image(live);
    expect(taken.engine).toBe(pythonEngineBuild(paths));
    // Only what the session changed: a few hundred pages of ~7,700, not the whole memory.
    expect(taken.pageIndex.length).toBeLessThan(2000);
    const restored = await open();
    expect(await restored.restoreSnapshot!(taken)).toBeUndefined();
    const a = await restored.run(QUERY, { timeoutMs: 10_000 });
    const b = await live.run(QUERY, { timeoutMs: 10_000 });
    expect(b.status).toBe("success");
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).toContain("42 5 1000 100");
    // A restored session takes images too, and they restore.
    const again = await image(restored);
    const third = await open();
    expect(await third.restoreSnapshot!(again)).toBeUndefined();
    expect((await third.run("print(f(1), x, len(big))")).stdout).toBe("2 100 8388608\n");
  });

  it("takes no image while a file is open, and takes one once it is closed", { timeout: 60_000 }, async () => {
    const live = await open();
    await live.run("keep = open('/tmp/open.txt', 'w')\nkeep.write('held')");
    expect(await live.snapshot!()).toMatch(/file descriptor 3 is open/);
    await live.run("keep.close()");
    const restored = await open();
    expect(await restored.restoreSnapshot!(await image(live))).toBeUndefined();
    expect((await restored.run("open('/tmp/open.txt').read()")).result).toBe("held");
  });

  it("refuses a restore into a session that ran code, an image of another build, and a malformed image, leaving the session as it was", { timeout: 60_000 }, async () => {
    const live = await open();
    await live.run("v = 1");
    const taken = await image(live);
    const used = await open();
    await used.run("w = 2");
    expect(await used.restoreSnapshot!(taken)).toMatch(/already run code/);
    expect((await used.run("w")).result).toBe(2);
    const fresh = await open();
    expect(await fresh.restoreSnapshot!({ ...taken, engine: "pyodide-0-other" })).toMatch(/another engine build/);
    expect(await fresh.restoreSnapshot!({ ...taken, state: "{" })).toMatch(/not valid JSON/);
    expect(await fresh.restoreSnapshot!({ ...taken, state: taken.state.replace('"format":1', '"format":2') })).toMatch(/format/);
    expect(await fresh.restoreSnapshot!({ ...taken, pageIndex: Uint32Array.from([...taken.pageIndex].reverse()) })).toMatch(/page index/);
    // Nothing was touched: the session still restores the real image.
    expect(await fresh.restoreSnapshot!(taken)).toBeUndefined();
    expect((await fresh.run("v")).result).toBe(1);
  });

  it("a session opened without snapshots lets its fresh state go at its first run, and refuses images", { timeout: 60_000 }, async () => {
    const plain = await createPythonSession(paths, { ...options, snapshottable: false });
    sessions.push(plain);
    await plain.run("v = 1");
    expect(await plain.snapshot!()).toMatch(/not opened for snapshots/);
    // It can still be restored into while it ran nothing.
    const live = await open();
    await live.run("w = 3");
    const target = await createPythonSession(paths, { ...options, snapshottable: false });
    sessions.push(target);
    expect(await target.restoreSnapshot!(await image(live))).toBeUndefined();
    expect((await target.run("w")).result).toBe(3);
  });

  it("sessions start alike but their first runs draw different random numbers", { timeout: 60_000 }, async () => {
    const [a, b] = [await open(), await open()];
    const draw = "import random\nrandom.random()";
    expect((await a.run(draw)).result).not.toBe((await b.run(draw)).result);
  });
});
