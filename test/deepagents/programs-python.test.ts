/**
 * `python3` inside `execute`: CPython in the package's Pyodide engine (a locked-down Deno
 * process), never the host's `python3`. It sees the sandbox's files by relative and absolute
 * paths, follows the shell's `cd`, gets argv and stdin, and what it writes or removes comes
 * back into the store; `sys.exit` and tracebacks behave as in a shell. Few runs: each one with
 * files costs the engine a fresh interpreter.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeGenSandbox } from "../../src/deepagents/index.js";

let sandbox: CodeGenSandbox;

beforeAll(async () => {
  sandbox = await CodeGenSandbox.create({
    timeoutMs: 30_000,
    initialFiles: {
      "/notes.txt": "hello\n",
      "/src/app.py": [
        "import os, sys",
        "print(sys.argv, os.getcwd())",
        "print(open('../notes.txt').read().strip(), open('/notes.txt').read().strip())",
        "os.makedirs('out', exist_ok=True)",
        "open('out/report.txt', 'w').write('from python')",
        "open('/top.txt', 'w').write('at the root')",
        "open('/src/bytes.bin', 'wb').write(bytes(range(256)))",
        "os.remove('/old.txt')",
        "sys.exit(sys.stdin.read().strip() == 'piped' and 5 or 6)",
      ].join("\n"),
      "/old.txt": "to be removed",
      "/broken.py": "def f():\n    return 1 / 0\n\nf()\n",
    },
  });
});

afterAll(async () => {
  await sandbox.close();
});

describe("python3 in execute", () => {
  it("runs a file with argv, stdin and the shell's cwd; its writes and removals come back into the store", async () => {
    const r = await sandbox.execute("cd /src && echo piped | python3 app.py one two; echo rc=$?");
    expect(r).toEqual({ output: "['app.py', 'one', 'two'] /home/pyodide/src\nhello hello\nrc=5\n", exitCode: 0, truncated: false });
    expect(sandbox.read("/src/out/report.txt").content).toBe("from python");
    expect(sandbox.read("/top.txt").content).toBe("at the root");
    expect(sandbox.downloadFiles(["/src/bytes.bin"])[0]!.content).toEqual(new Uint8Array(256).map((_, i) => i));
    expect(sandbox.read("/old.txt").error).toMatch(/not found/);
    expect((await sandbox.execute("cat /src/out/report.txt")).output).toBe("from python");
    // A rename through an absolute path moves the file in the store.
    expect((await sandbox.execute(`python3 -c "import os; os.rename('/top.txt', '/moved.txt')"`)).exitCode).toBe(0);
    expect(sandbox.ls("/").files!.map((f) => f.path)).toEqual(["/broken.py", "/moved.txt", "/notes.txt", "/src/"]);
  });

  it("runs -c code; sys.exit codes and messages, tracebacks of the program's own frames, exit 1", async () => {
    const r = await sandbox.execute(`python3 -c "import sys; print(6 * 7); sys.exit('bad input')"; echo rc=$?; python3 /broken.py`);
    expect(r.exitCode).toBe(1);
    expect(r.output).toBe(
      "42\nrc=1\nbad input\nTraceback (most recent call last):\n" +
        '  File "/broken.py", line 4, in <module>\n    f()\n    ~^^\n  File "/broken.py", line 2, in f\n    return 1 / 0\n           ~~^~~\nZeroDivisionError: division by zero\n',
    );
  });

  it("keeps the engine's import policy, and has no pip, -m or interactive mode", async () => {
    const r = await sandbox.execute(`python3 -c "import socket"`);
    expect(r.exitCode).toBe(1);
    expect(r.output).toMatch(/import of 'socket' is not allowed in the sandbox/);
    expect(await sandbox.execute("python3 -m pip install requests")).toMatchObject({ exitCode: 2 });
    expect((await sandbox.execute("python3")).output).toMatch(/no interactive interpreter/);
    expect((await sandbox.execute("python --version")).output).toMatch(/^Python 3\.14/);
  });

  it("a program out of memory ends with exit 137, and the next command runs", async () => {
    const r = await sandbox.execute(`python3 -c "x = bytearray(512 * 1024 * 1024)"`);
    expect(r.exitCode).toBe(137);
    expect(r.output).toMatch(/out of memory/);
    expect((await sandbox.execute(`python3 -c "print('next')"`)).output).toBe("next\n");
  });
});
