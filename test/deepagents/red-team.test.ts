/**
 * Attacks on CodeGenSandbox (red team) that broke it as it landed, each fixed: what the host
 * holds and computes for a guest (program requests, grep, edit, read), outcomes it reported
 * wrong (output the shell dropped, files a command never touched), conformance edges (glob,
 * whitespace files) and close() races. The attacks that could take the host down run in a
 * child process: red-team.int.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExecutionResult, RunOptions, Sandbox } from "../../src/sandbox/types.js";
import { CodeGenSandbox } from "../../src/deepagents/index.js";
import { SandboxDisposedError } from "../../src/errors.js";

/** An engine stand-in that records how many runs it holds at once and what each was given. */
function countingEngine() {
  const seen = { inFlight: 0, maxInFlight: 0, runs: 0, largestArgs: 0 };
  const engine = {
    seen,
    async run(_code: string, options?: RunOptions): Promise<ExecutionResult> {
      seen.runs++;
      seen.inFlight++;
      seen.maxInFlight = Math.max(seen.maxInFlight, seen.inFlight);
      const shell = (options?.globals as { __codegen_shell?: { argv: string[] } } | undefined)?.__codegen_shell;
      seen.largestArgs = Math.max(seen.largestArgs, (shell?.argv ?? []).reduce((n, a) => n + a.length, 0));
      await new Promise((r) => setTimeout(r, 20));
      seen.inFlight--;
      return { status: "success", stdout: "ran\n", stderr: "", outputTruncated: false, durationMs: 1, language: options?.language ?? "javascript", ...(options?.files ? { files: options.files as Record<string, Uint8Array> } : {}) };
    },
  };
  return engine as typeof engine & Sandbox;
}

let engine: ReturnType<typeof countingEngine>;
let sandbox: CodeGenSandbox;

beforeAll(async () => {
  engine = countingEngine();
  sandbox = await CodeGenSandbox.create({ sandbox: engine, timeoutMs: 20_000, initialFiles: { "/data.txt": "x" } });
});

afterAll(async () => {
  await sandbox.close();
});

describe("programs: what each request makes the host hold", () => {
  it("xargs -P 20 runs every program, never more than four at once (each request carries every file)", async () => {
    const before = engine.seen.runs;
    const r = await sandbox.execute("seq 1 20 | xargs -P 20 -n 1 node -e 1 | wc -l");
    expect(r).toEqual({ output: "20\n", exitCode: 0, truncated: false });
    expect(engine.seen.runs - before).toBe(20);
    expect(engine.seen.maxInFlight).toBe(4);
  });

  it("refuses arguments and environment past 2 MiB as Linux does (Argument list too long, exit 126), before the engine", async () => {
    const before = engine.seen.runs;
    const args = await sandbox.execute('printf -v x %2200000s ""; node -e 1 "$x"');
    expect(args.exitCode).toBe(126);
    expect(args.output).toMatch(/^bash: node: Argument list too long/);
    const env = await sandbox.execute('export BIG; printf -v BIG %2200000s ""; python3 -c 1');
    expect(env.output).toMatch(/^bash: python3: Argument list too long/);
    expect(engine.seen.runs).toBe(before);
    // Below the bound it runs.
    expect(await sandbox.execute('printf -v x %2000000s ""; node -e 1 "$x"')).toMatchObject({ exitCode: 0, output: "ran\n" });
    expect(engine.seen.largestArgs).toBeLessThan(2 * 1024 * 1024);
  });

  it("refuses stdin past the shell's output bound", async () => {
    sandbox.write("/stdin.txt", "x".repeat(4_300_000));
    const r = await sandbox.execute("node < /stdin.txt");
    sandbox.delete("/stdin.txt");
    expect(r.exitCode).toBe(126);
    expect(r.output).toMatch(/^bash: node: the input piped in holds \d+ bytes; at most 4194304/);
  });
});

describe("outcomes", () => {
  it("marks a command line the interpreter stopped at its output bound as truncated, and says so", async () => {
    const r = await sandbox.execute("echo first; seq 1 1000000");
    expect(r.exitCode).toBe(126);
    expect(r.truncated).toBe(true);
    expect(r.output).toMatch(/^first\nbash: seq: output size limit exceeded \(4194304 bytes\)\n\[codegen-sandbox\] the command line was stopped: a command's output passed 4194304 bytes/);
  });

  it("keeps what file operations did while a command ran (deepagents runs a turn's tool calls at once)", async () => {
    sandbox.write("/conc/notes.md", "old");
    sandbox.write("/conc/gone.md", "bye");
    // More than 64 removals make the replica compare its whole tree and report every entry.
    const running = sandbox.execute("for i in $(seq 70); do mkdir /t$i; rm -r /t$i; done; sleep 0.5; echo cmd > /conc/cmd.txt");
    await new Promise((r) => setTimeout(r, 150));
    sandbox.write("/conc/notes.md", "new");
    sandbox.delete("/conc/gone.md");
    expect((await running).exitCode).toBe(0);
    expect(sandbox.read("/conc/notes.md").content).toBe("new");
    expect(sandbox.read("/conc/gone.md").error).toMatch(/not found/);
    expect(sandbox.read("/conc/cmd.txt").content).toBe("cmd");
    // A directory a file operation removed still holds what the command wrote in it.
    const second = sandbox.execute("for i in $(seq 70); do mkdir /u$i; rm -r /u$i; done; sleep 0.5; echo in > /conc/late.txt");
    await new Promise((r) => setTimeout(r, 150));
    sandbox.delete("/conc");
    expect((await second).exitCode).toBe(0);
    expect(sandbox.glob("**", "/conc").files?.map((f) => f.path)).toEqual(["/conc/late.txt"]);
  });

  it("removes thousands of files in one command (one pass, not one scan per removed path)", async () => {
    const files: Array<[string, Uint8Array]> = [];
    for (let i = 0; i < 2000; i++) files.push([`/many/f${i}`, new Uint8Array([i % 256])]);
    sandbox.uploadFiles(files);
    const r = await sandbox.execute("cd /many && rm f1* && ls | wc -l");
    expect(r.output).toBe(`${2000 - 1111}\n`);
    expect(sandbox.ls("/many").files?.length).toBe(889);
    sandbox.delete("/many");
  });
});

describe("what the host computes for one file operation", () => {
  it("grep returns at most 10 000 matches, truncated, whatever maxCount asks", () => {
    sandbox.write("/g/lines.txt", "a\n".repeat(30_000));
    expect(sandbox.grep("a", "/g", null, 1e9)).toMatchObject({ truncated: true });
    expect(sandbox.grep("a", "/g", null, 1e9).matches).toHaveLength(10_000);
    expect(sandbox.grep("a", "/g").matches).toHaveLength(10_000);
    expect(sandbox.grep("a", "/g", null, 5).matches!.map((m) => m.line)).toEqual([1, 2, 3, 4, 5]);
    sandbox.delete("/g");
  });

  it("edit sizes a replace-all before building it", () => {
    sandbox.write("/e.txt", "a".repeat(100_000));
    const r = sandbox.edit("/e.txt", "a", "b".repeat(100), true);
    expect(r.error).toBe("Error editing file '/e.txt': the file would hold 10000000 bytes, over the 8388608-byte maxFileBytes limit");
    expect(sandbox.edit("/e.txt", "aa", "b", true)).toMatchObject({ occurrences: 50_000 });
    expect(sandbox.read("/e.txt").content).toBe("b".repeat(50_000));
  });

  it("grep and read agree with deepagents' split-by-line rules on random texts", () => {
    let seed = 7;
    const random = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const alphabet = ["a", "b", "\n", "\r", "ab", "\n\n", " "];
    for (let iter = 0; iter < 400; iter++) {
      let text = "";
      for (let i = random(10) + 1; i > 0; i--) text += alphabet[random(alphabet.length)];
      sandbox.write("/f.txt", text);
      const lines = text.split("\n");
      const total = lines.at(-1) === "" ? lines.length - 1 : lines.length;
      for (const pattern of ["", "a", "ab", "\r", " ", "a\n"]) {
        const expected = pattern.includes("\n") ? [] : lines.flatMap((l, i) => (l.includes(pattern) ? [{ path: "/f.txt", line: i + 1, text: l }] : []));
        expect(sandbox.grep(pattern, "/f.txt").matches, JSON.stringify([text, pattern])).toEqual(expected);
      }
      for (const [offset, limit] of [[0, 500], [0, 1], [1, 2], [2, 3], [0, 0]] as const) {
        const selected = lines.slice(offset, Math.min(offset + limit, total));
        const expected =
          offset >= total
            ? { error: `Line offset ${offset} exceeds file length (${total} lines)` }
            : selected.length === 0
              ? { content: "", mimeType: "text/plain" }
              : { content: selected.join("\n"), mimeType: "text/plain", totalLines: total, startLine: offset + 1, endLine: offset + selected.length, ...(offset + selected.length < total ? { nextOffset: offset + selected.length } : {}) };
        expect(sandbox.read("/f.txt", offset, limit), JSON.stringify([text, offset, limit])).toEqual(expected);
      }
    }
  });
});

describe("conformance edges", () => {
  it("reads whitespace-only files as they are; only an empty file gets deepagents' notice", () => {
    sandbox.write("/ws.txt", "   ");
    sandbox.write("/blank.txt", "\n\n\n");
    sandbox.write("/empty.txt", "");
    expect(sandbox.read("/ws.txt")).toMatchObject({ content: "   ", totalLines: 1 });
    expect(sandbox.read("/blank.txt", 1, 1)).toMatchObject({ content: "", startLine: 2, endLine: 2, nextOffset: 2 });
    expect(sandbox.read("/empty.txt").content).toBe("System reminder: File exists but has empty contents");
  });

  it("glob: a pattern ending in / matches directories only; a file as the base is matched by its name", () => {
    sandbox.write("/gl/a.txt", "a");
    sandbox.write("/gl/sub/b.txt", "b");
    expect(sandbox.glob("*/", "/gl").files!.map((f) => f.path)).toEqual(["/gl/sub/"]);
    expect(sandbox.glob("*", "/gl").files!.map((f) => f.path)).toEqual(["/gl/a.txt", "/gl/sub/"]);
    expect(sandbox.glob("*.txt", "/gl/a.txt").files!.map((f) => f.path)).toEqual(["/gl/a.txt"]);
    expect(sandbox.glob("*.md", "/gl/a.txt").files).toEqual([]);
    expect(sandbox.grep("a", "/gl", "*/").matches).toEqual([]);
  });
});

describe("paths in every form (held: each is a name in the store, or refused)", () => {
  it("refuses '..' and NUL; takes percent-, unicode- and backslash-encoded dots as plain names under /", async () => {
    for (const path of ["/../etc/passwd", "/a/../../etc/passwd", "..", "/a\0b"]) {
      expect(sandbox.write(path, "x").error, path).toMatch(/Invalid path/);
      expect(sandbox.downloadFiles([path])[0]!.error, path).toBe("invalid_path");
    }
    const literal = ["/%2e%2e/etc/passwd", "/\u2025/etc", "/\uff0e\uff0e/etc/passwd", "/p\\..\\etc\\passwd"];
    for (const path of literal) expect(sandbox.write(path, "mine"), path).toMatchObject({ path });
    const r = await sandbox.execute("cat /%2e%2e/etc/passwd /p\\\\..\\\\etc\\\\passwd; cat /etc/passwd");
    expect(r.output).toBe("minemine\ncat: /etc/passwd: No such file or directory\n");
    for (const path of literal) sandbox.delete(path.split("/").slice(0, 2).join("/"));
  });
});

describe("close() races", () => {
  it("close() during initialize() rejects it with SandboxDisposedError", async () => {
    const s = new CodeGenSandbox();
    const starting = s.initialize();
    await s.close();
    await expect(starting).rejects.toBeInstanceOf(SandboxDisposedError);
    await expect(s.execute("echo hi")).rejects.toBeInstanceOf(SandboxDisposedError);
  });
});
