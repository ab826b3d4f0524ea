/**
 * `node`, `tsx`/`ts-node` and `tsc` inside `execute`: run by the package's QuickJS engine and
 * TypeScript checker (never a host binary), seeing the sandbox's files by absolute and
 * shell-relative paths, writing back into them, with shell exit codes. Python is in
 * programs-python.test.ts (its engine is slow to start).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeGenSandbox } from "../../src/deepagents/index.js";

let sandbox: CodeGenSandbox;

beforeAll(async () => {
  sandbox = await CodeGenSandbox.create({
    timeoutMs: 20_000,
    initialFiles: {
      "/data/in.txt": "hello",
      "/app/main.js": "#!/usr/bin/env node\nconst [, file, ...rest] = process.argv;\nconsole.log(file, rest.join(','), process.cwd());\nfiles.write('out.txt', files.read('../data/in.txt').toUpperCase());\n",
      "/app/typed.ts": "interface P { x: number }\nconst p: P = { x: 2 };\nconsole.log(p.x * 21);\n",
      "/app/bad.ts": "const n: number = 'one';\nconsole.log(n);\n",
    },
  });
});

afterAll(async () => {
  await sandbox.close();
});

describe("node", () => {
  it("runs -e and -p in the sandbox's engine, with process.argv, env and exit codes", async () => {
    expect(await sandbox.execute(`node -e "console.log(process.argv, typeof require)" a b`)).toEqual({ output: "[ 'node', 'a', 'b' ] undefined\n", exitCode: 0, truncated: false });
    expect((await sandbox.execute("export GREETING=hi; node -e 'console.log(process.env.GREETING)'")).output).toBe("hi\n");
    expect((await sandbox.execute("node -p '6 * 7'")).output).toBe("42\n");
    expect((await sandbox.execute("node -e 'process.exit(4)'; echo rc=$?")).output).toBe("rc=4\n");
    expect((await sandbox.execute("node --version")).output).toMatch(/QuickJS.*not Node\.js/);
  });

  it("runs a file (hashbang and all) whose files API takes shell-relative and absolute paths; writes come back", async () => {
    const r = await sandbox.execute("cd /app && node main.js x y && cat out.txt && node -e \"console.log(files.list().includes('/app/out.txt'), files.read('/data/in.txt'))\"");
    expect(r).toEqual({ output: "/app/main.js x,y /app\nHELLOtrue hello\n", exitCode: 0, truncated: false });
    expect(sandbox.read("/app/out.txt").content).toBe("HELLO");
  });

  it("reports an uncaught error on stderr with the program's own line, exit 1", async () => {
    const r = await sandbox.execute(`node -e "const a = 1;
throw new Error('boom')"`);
    expect(r.exitCode).toBe(1);
    expect(r.output).toMatch(/^Error: boom\n {4}at \[eval\]:2:\d+\n$/);
  });

  it("has no modules: require and import fail with a reason; a missing file says so", async () => {
    const r = await sandbox.execute(`node -e "const fs = require('fs')"`);
    expect(r.exitCode).toBe(1);
    expect(r.output).toMatch(/require|import/i);
    expect(await sandbox.execute("node /nope.js")).toMatchObject({ exitCode: 1, output: "node: Cannot find module '/nope.js'\n" });
    expect((await sandbox.execute("node -r fs -e 1")).exitCode).toBe(9);
  });

  it("reads a program piped in", async () => {
    expect((await sandbox.execute("echo 'console.log(1 + 1)' | node")).output).toBe("2\n");
  });
});

describe("tsx, ts-node and tsc", () => {
  it("tsx and ts-node run TypeScript (types stripped)", async () => {
    expect((await sandbox.execute("tsx /app/typed.ts && ts-node -e 'const s: string = \"ok\"; console.log(s)'")).output).toBe("42\nok\n");
    expect((await sandbox.execute("node /app/typed.ts")).output).toBe("42\n");
  });

  it("tsc --noEmit type-checks files and answers like tsc: exit 0 when clean, 2 with errors", async () => {
    expect(await sandbox.execute("tsc --noEmit /app/typed.ts")).toEqual({ output: "", exitCode: 0, truncated: false });
    const r = await sandbox.execute("cd /app && tsc --noEmit bad.ts");
    expect(r.exitCode).toBe(2);
    expect(r.output).toBe("bad.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.\n\nFound 1 error in 1 file.\n");
    const all = await sandbox.execute("cd /app && tsc --noEmit");
    expect(all.output).toContain("bad.ts(1,7)");
    expect(all.output).not.toContain("typed.ts");
    expect((await sandbox.execute("tsc --noEmit /missing.ts")).output).toBe("error TS6053: File '/missing.ts' not found.\n");
  });
});

describe("limits of a program", () => {
  it("a program that never ends stops at the time limit with exit 124, and the shell answers the next command", async () => {
    const quick = await CodeGenSandbox.create({ timeoutMs: 2000 });
    try {
      // The program gets the command's time less a margin and usually reports its own stop
      // ("node: stopped at the time limit"); on a loaded machine the command's own limit may
      // come first ("the command was stopped"). Either way: 124, and the time limit named.
      const r = await quick.execute(`node -e "for (;;) {}"`);
      expect(r.exitCode).toBe(124);
      expect(r.output).toMatch(/stopped at (the|its \d+ ms) time limit/);
      expect(await quick.execute("echo next")).toEqual({ output: "next\n", exitCode: 0, truncated: false });
    } finally {
      await quick.close();
    }
  });

  it("a program's output past maxOutputBytes is cut and marked truncated", async () => {
    const small = await CodeGenSandbox.create({ maxOutputBytes: 1000 });
    try {
      const r = await small.execute(`node -e "for (let i = 0; i < 1000; i++) console.log('line ' + i)"`);
      expect(r.truncated).toBe(true);
      expect(r.output).toMatch(/^line 0\nline 1\n/);
      expect(Buffer.byteLength(r.output)).toBeLessThan(1400);
    } finally {
      await small.close();
    }
  });
});
