/**
 * Bench section "deepagents": `CodeGenSandbox` (the deepagents backend of
 * `codegen-sandbox/deepagents`) beside deepagents' own backends in the same run:
 * `execute("python3 -c 'print(1)'")`, `execute("node -e '1'")` and `execute("echo hi")` beside
 * `LocalShellBackend` running the same on the host (the unsandboxed floor: a real shell, the
 * host's python3 and node, when they are installed), and `ls` / `read` beside `StateBackend`.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalShellBackend, StateBackend } from "deepagents";
import { CodeGenSandbox } from "../src/deepagents/index.js";
import { createSandbox } from "../src/sandbox/sandbox.js";
import { ms, percentiles, type BenchRow, type BenchSection } from "./table.js";

interface Backend {
  execute(command: string): Promise<{ exitCode: number | null; output: string }> | { exitCode: number | null; output: string };
}

async function timeCommand(backend: Backend, command: string, samples: number, pauseMs = 0): Promise<{ p50: number; p95: number }> {
  const first = await backend.execute(command); // warm (engine start, caches)
  if (first.exitCode !== 0) throw new Error(`bench command failed: ${command}: ${first.output}`);
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    const started = performance.now();
    await backend.execute(command);
    times.push(performance.now() - started);
  }
  return percentiles(times);
}

function timeSync(fn: () => unknown, samples: number): { p50: number; p95: number } {
  for (let i = 0; i < 50; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    fn();
    times.push(performance.now() - started);
  }
  return percentiles(times);
}

const both = (p: { p50: number; p95: number }): string => `${ms(p.p50)} p50 / ${ms(p.p95)} p95`;
const onHost = (binary: string): boolean => spawnSync(binary, ["--version"], { stdio: "ignore" }).status === 0;

const section: BenchSection = async (): Promise<BenchRow[]> => {
  const rows: BenchRow[] = [];
  const engines = createSandbox({ poolSize: 1 });
  const createStarted = performance.now();
  const ours = await CodeGenSandbox.create({ sandbox: engines });
  const createMs = performance.now() - createStarted;
  const root = mkdtempSync(join(tmpdir(), "bench-localshell-"));
  const local = await LocalShellBackend.create({ rootDir: root, virtualMode: true, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } });
  try {
    rows.push({ section: "deepagents", metric: "CodeGenSandbox.create() (starts the shell's worker)", ours: ms(createMs) });
    const hostPython = onHost("python3");
    const hostNode = onHost("node");
    const commands: Array<{ metric: string; command: string; samples: number; host: boolean }> = [
      { metric: "execute(\"echo hi\")", command: "echo hi", samples: 100, host: true },
      { metric: "execute(\"python3 -c 'print(1)'\"), no files", command: "python3 -c 'print(1)'", samples: 30, host: hostPython },
      { metric: "execute(\"node -e '1'\")", command: "node -e '1'", samples: 30, host: hostNode },
    ];
    for (const c of commands) {
      const mine = await timeCommand(ours, c.command, c.samples);
      const floor = c.host ? await timeCommand(local, c.command, c.samples) : undefined;
      rows.push({
        section: "deepagents",
        metric: c.metric,
        ours: both(mine),
        ...(floor ? { baseline: both(floor), baselineName: "LocalShellBackend, the host's own shell and binaries, not isolated" } : {}),
      });
    }
    // With files in the sandbox, every python3 run is given them, and the engine replaces its
    // interpreter after a run that had files (docs/python.md): this is the cost of that.
    ours.write("/data/notes.txt", "hello\n");
    await local.write("/data/notes.txt", "hello\n");
    const withFiles = await timeCommand(ours, "python3 -c 'print(1)'", 8);
    const floorWithFiles = hostPython ? await timeCommand(local, "python3 -c 'print(1)'", 8) : undefined;
    rows.push({
      section: "deepagents",
      metric: "execute(\"python3 -c 'print(1)'\"), one file in the sandbox, back to back",
      ours: both(withFiles),
      ...(floorWithFiles ? { baseline: both(floorWithFiles), baselineName: "LocalShellBackend" } : {}),
    });
    // As an agent calls it: a model turn between commands gives the engine time to replace
    // its interpreter in the background.
    const paused = await timeCommand(ours, "python3 -c 'print(1)'", 5, 2000);
    rows.push({ section: "deepagents", metric: "execute(\"python3 -c 'print(1)'\"), one file in the sandbox, 2 s apart", ours: both(paused) });

    // ls / read on 100 files, beside StateBackend reading the same files from agent state.
    const files: Record<string, { content: string; mimeType: string; created_at: string; modified_at: string }> = {};
    const now = new Date().toISOString();
    for (let i = 0; i < 100; i++) {
      const path = `/src/file${i}.txt`;
      const content = Array.from({ length: 200 }, (_, l) => `line ${l} of file ${i}`).join("\n");
      files[path] = { content, mimeType: "text/plain", created_at: now, modified_at: now };
      ours.write(path, content);
    }
    const state = new StateBackend({ state: { files }, store: undefined } as never);
    const lsOurs = timeSync(() => ours.ls("/src"), 500);
    const lsState = timeSync(() => state.ls("/src"), 500);
    rows.push({ section: "deepagents", metric: "ls of a directory of 100 files", ours: both(lsOurs), baseline: both(lsState), baselineName: "StateBackend" });
    const readOurs = timeSync(() => ours.read("/src/file50.txt", 100, 50), 500);
    const readState = timeSync(() => state.read("/src/file50.txt", 100, 50), 500);
    rows.push({ section: "deepagents", metric: "read 50 lines of a 200-line file", ours: both(readOurs), baseline: both(readState), baselineName: "StateBackend" });
    const grepOurs = timeSync(() => ours.grep("line 7 ", "/src"), 100);
    const grepState = timeSync(() => state.grep("line 7 ", "/src"), 100);
    rows.push({ section: "deepagents", metric: "grep a literal in 100 files of 200 lines", ours: both(grepOurs), baseline: both(grepState), baselineName: "StateBackend" });
    // A grep that matches every line of 12 MiB: ours stops at 10 000 matches (truncated), on
    // the host thread; StateBackend collects all six million.
    const flood = "a\n".repeat(3 * 1024 * 1024);
    ours.write("/flood/a.txt", flood);
    ours.write("/flood/b.txt", flood);
    const floodState = new StateBackend({ state: { files: { "/flood/a.txt": { content: flood, mimeType: "text/plain", created_at: now, modified_at: now }, "/flood/b.txt": { content: flood, mimeType: "text/plain", created_at: now, modified_at: now } } }, store: undefined } as never);
    const floodOurs = timeSync(() => ours.grep("a", "/flood"), 5);
    const started = performance.now();
    floodState.grep("a", "/flood");
    rows.push({ section: "deepagents", metric: "grep matching every line of 12 MiB (ours capped at 10 000 matches)", ours: both(floodOurs), baseline: ms(performance.now() - started), baselineName: "StateBackend, all 6 291 456 matches, one run" });
    ours.delete("/flood");
    // Removing many paths in one command (the worker and the store, one pass each).
    const many: Array<[string, Uint8Array]> = [];
    for (let i = 0; i < 5000; i++) many.push([`/many/f${i}`, new Uint8Array(1)]);
    ours.uploadFiles(many);
    await ours.execute("true");
    const rmStarted = performance.now();
    const removed = await ours.execute("rm -f /many/f*");
    if (removed.exitCode !== 0) throw new Error(`bench command failed: rm: ${removed.output}`);
    rows.push({ section: "deepagents", metric: "execute(\"rm -f /many/f*\") over 5 000 files, one run", ours: ms(performance.now() - rmStarted) });
    // tsc: the checker in the sandbox's own thread (the first call loads TypeScript there).
    ours.write("/t/ok.ts", "const n: number = 1;\n");
    const tscFirst = performance.now();
    await ours.execute("tsc --noEmit /t/ok.ts");
    rows.push({ section: "deepagents", metric: "execute(\"tsc --noEmit ok.ts\"), first call (loads TypeScript in the checker's thread)", ours: ms(performance.now() - tscFirst) });
    rows.push({ section: "deepagents", metric: "execute(\"tsc --noEmit ok.ts\"), warm", ours: both(await timeCommand(ours, "tsc --noEmit /t/ok.ts", 20)) });
  } finally {
    await ours.close();
    await engines.dispose();
    await local.close();
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
};

export default section;
