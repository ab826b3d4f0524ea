/**
 * Hostile command lines through `CodeGenSandbox.execute`, in a child process that must survive
 * them all: host paths, `cd /..`, a fork-bomb-shaped function, loops that never end, huge
 * output, catastrophic-backtracking patterns for grep and sed, a memory bomb, a brace bomb,
 * floods of files and bytes, links, and the host's environment. After each one the child's
 * event loop must not have stalled, the next command must be answered, and at the end the
 * store holds only what the caps allow, the RSS is bounded and close() leaves nothing running.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

interface Run {
  name: string;
  exitCode: number;
  truncated: boolean;
  output: string;
  outputBytes: number;
  ms: number;
  stallMs: number;
  next: string;
}

interface Report {
  runs: Run[];
  listing: string[];
  entries: number;
  peakRss: number;
  resourcesBeforeClose: string[];
  resourcesAfterClose: string[];
}

const SECRET = "host-secret-7f3a9c";

const hostile: Array<{ name: string; command: string; check: (run: Run) => void }> = [
  {
    name: "host paths",
    command: "cat /etc/passwd; cat ../../../../etc/hostname; ls /proc /root /home; cat /proc/self/environ",
    check: (r) => {
      expect(r.exitCode).not.toBe(0);
      expect(r.output).not.toMatch(/root:x:0|PATH=/);
      expect(r.output).toMatch(/\/etc\/passwd: No such file or directory/);
    },
  },
  {
    name: "cd /..",
    command: "cd /..; cd ../../..; pwd; ls",
    check: (r) => expect(r.output).toBe("/\nevil.txt\nkeep.txt\n"),
  },
  {
    name: "the host's environment",
    command: "echo \"[$CODEGEN_TEST_SECRET]\"; env; printenv",
    check: (r) => {
      expect(r.output).not.toContain(SECRET);
      expect(r.output).toContain("[]");
    },
  },
  {
    name: "fork-bomb-shaped function",
    command: ":(){ :|:& };:",
    check: (r) => {
      expect(r.exitCode).not.toBe(0);
      expect(r.output).toMatch(/recursion depth/);
    },
  },
  {
    name: "a loop that never ends (and never yields)",
    command: "while :; do :; done",
    check: (r) => {
      expect(r.exitCode).toBe(124);
      expect(r.output).toMatch(/time limit \(timeoutMs\)/);
    },
  },
  {
    name: "a command that never ends",
    command: "echo started; sleep 100000",
    check: (r) => {
      expect(r.exitCode).toBe(124);
      expect(r.ms).toBeLessThan(2000 + 1500);
    },
  },
  {
    name: "a program that never ends",
    command: "node -e 'for (;;) {}'",
    check: (r) => expect(r.exitCode).toBe(124),
  },
  {
    name: "huge output",
    command: "seq 1 100000",
    check: (r) => {
      expect(r.truncated).toBe(true);
      expect(r.outputBytes).toBeLessThan(10_000 + 200);
      expect(r.output).toMatch(/^1\n2\n3\n/);
    },
  },
  {
    name: "output past what the interpreter may hold",
    command: "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do cat /evil.txt /evil.txt /evil.txt /evil.txt /evil.txt /evil.txt /evil.txt /evil.txt; done",
    check: (r) => {
      expect(r.outputBytes).toBeLessThan(10_000 + 300);
      expect(r.exitCode).not.toBe(0);
    },
  },
  {
    name: "catastrophic backtracking in grep and sed",
    command: "grep -cE '(a+)+$' /evil.txt; grep -cE '(a|aa)*b' /evil.txt; sed -E 's/(a|a?)+$/x/' /evil.txt | wc -c",
    check: (r) => {
      expect(r.exitCode).toBe(0);
      expect(r.ms).toBeLessThan(2000);
    },
  },
  {
    name: "memory bomb",
    command: 'x=a; while :; do x="$x$x$x$x"; done',
    check: (r) => {
      expect([124, 126, 137]).toContain(r.exitCode);
    },
  },
  {
    name: "brace bomb",
    command: "echo {1..1000000000} | wc -c; echo {a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b} | wc -c",
    check: (r) => expect(r.ms).toBeLessThan(2000 + 1500),
  },
  {
    name: "a flood of files past maxFiles",
    // One command writes the 600 files (a shell loop of 600 writes may take the whole time
    // limit on a loaded machine).
    command: "seq 1 600 > /lines.txt && mkdir /flood && split -l 1 -a 3 /lines.txt /flood/x && ls /flood | wc -l",
    check: (r) => {
      expect(r.output).toMatch(/^600\n\[codegen-sandbox\] the command's file changes were discarded: .*maxFiles is 500/);
      expect(r.exitCode).toBe(1);
    },
  },
  {
    name: "a file past maxFileBytes",
    command: "cat /evil.txt /evil.txt > /two.txt; for i in 1 2 3 4 5 6; do cat /two.txt /two.txt > /t && cat /t /t > /two.txt; done",
    check: (r) => {
      expect(r.exitCode).not.toBe(0);
      expect(r.output).toMatch(/maxFileBytes/);
    },
  },
  {
    name: "links out of the tree",
    command: "ln -s /etc/passwd /passwd; ln /evil.txt /hard",
    check: (r) => expect(r.exitCode).toBe(127),
  },
];

function runChild(): Promise<{ code: number | null; report?: Report; stderr: string }> {
  const script = fileURLToPath(new URL("./fixtures/hostile-child.mjs", import.meta.url));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, CODEGEN_TEST_SECRET: SECRET } });
    let stdout = "";
    let stderr = "";
    const killer = setTimeout(() => child.kill("SIGKILL"), 150_000);
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => {
      clearTimeout(killer);
      let report: Report | undefined;
      try {
        report = JSON.parse(stdout.trim().split("\n").pop() ?? "") as Report;
      } catch {
        report = undefined;
      }
      resolve({ code, report, stderr: stderr.slice(-3000) });
    });
    child.stdin.end(JSON.stringify(hostile.map(({ name, command }) => ({ name, command }))));
  });
}

describe("hostile command lines through execute", () => {
  it("end within their limits in a child process that survives, stays responsive and bounded, and answers every next command", { timeout: 180_000 }, async () => {
    const { code, report, stderr } = await runChild();
    expect(code, stderr).toBe(0);
    expect(report, stderr).toBeDefined();
    for (const expected of hostile) {
      const run = report!.runs.find((r) => r.name === expected.name)!;
      expect(run, expected.name).toBeDefined();
      try {
        expected.check(run);
        // The host's event loop kept turning: a command that held it would stall it for the
        // whole time limit (2 s); the interpreter runs in a thread of its own.
        expect(run.stallMs).toBeLessThan(1500);
        expect(run.next).toBe("next\nkept");
      } catch (error) {
        throw new Error(`${expected.name}: ${(error as Error).message}\n${JSON.stringify(run)}`);
      }
    }
    // Nothing of the floods was kept, and the files the sandbox held are intact.
    expect(report!.listing).toEqual(["/evil.txt", "/keep.txt", "/t", "/two.txt"]);
    expect(report!.entries).toBeLessThanOrEqual(500);
    expect(report!.peakRss).toBeLessThan(1024 * 1024 * 1024);
    // close() ended the shell's thread: its message port was there before (the check is not
    // blind) and nothing of it is left after.
    expect(report!.resourcesBeforeClose).toContain("MessagePort");
    expect(report!.resourcesAfterClose.filter((r) => /Worker|MessagePort/.test(r))).toEqual([]);
  });
});
