/**
 * The shell's worker thread: just-bash interprets each command line over the replica of the
 * sandbox's files, with only the granted commands; `python3`, `node`, `tsx`, `tsc` are
 * forwarded to the host, which runs them on the package's engines. The host owns this thread:
 * it starts it with an empty environment and V8 heap limits, bounds every command by time, and
 * terminates the thread when a command does not stop. Nothing here trusts the command line.
 */
import { parentPort, workerData } from "node:worker_threads";
import { Bash, decodeBytesToUtf8, defineCommand, latin1FromBytes, type Command } from "just-bash";
import { MAX_PROGRAMS_IN_FLIGHT, MAX_PROGRAM_ARGS_CHARS, type HostToShell, type ProgramName, type ProgramOutcome, type ShellToHost, type ShellWorkerData } from "../protocol.js";
import { GRANTED_COMMANDS, PROGRAM_COMMANDS } from "../shell-commands.js";
import { ReplicaFs } from "./replica-fs.js";

const port = parentPort!;
const settings = workerData as ShellWorkerData;
const fs = new ReplicaFs({ maxFileBytes: settings.maxFileBytes, maxTotalFileBytes: settings.maxTotalFileBytes });

interface RunningCommand {
  id: number;
  abort: AbortController;
  nextCallId: number;
  /** Program runs waiting for the host's answer. */
  calls: Map<number, (outcome: ProgramOutcome) => void>;
  /** Program runs sent to the host and not answered yet (at most MAX_PROGRAMS_IN_FLIGHT). */
  inFlight: number;
  /** Programs waiting for a free slot. */
  waiting: Array<() => void>;
}

/** What a program gets when its command line was stopped while it waited or ran. */
const STOPPED: ProgramOutcome = { stdout: "", stderr: "", exitCode: 130, truncated: false, written: [], removed: [] };

/** Waits for a free program slot; false when the command line was stopped meanwhile. */
async function acquireSlot(run: RunningCommand): Promise<boolean> {
  while (run.inFlight >= MAX_PROGRAMS_IN_FLIGHT && !run.abort.signal.aborted) {
    await new Promise<void>((resolve) => run.waiting.push(resolve));
  }
  if (run.abort.signal.aborted) return false;
  run.inFlight++;
  return true;
}

function releaseSlot(run: RunningCommand): void {
  run.inFlight--;
  run.waiting.shift()?.();
}

/** Characters of arguments and environment, counted as the host counts them. */
function argumentChars(args: string[], env: Record<string, string>): number {
  let n = 0;
  for (const a of args) n += a.length + 1;
  for (const [k, v] of Object.entries(env)) n += k.length + v.length + 2;
  return n;
}

let running: RunningCommand | undefined;

function post(message: ShellToHost): void {
  port.postMessage(message);
}

/** A command that hands its program to the host and waits for the outcome. */
function programCommand(name: string, program: ProgramName): Command {
  return defineCommand(name, async (args, ctx) => {
    const run = running;
    if (!run || run.abort.signal.aborted) return { stdout: "", stderr: `${name}: the command line was stopped\n`, exitCode: 130 };
    const env = ctx.exportedEnv ?? {};
    // As execve(2) refuses an argument list past ARG_MAX; the host checks the same bound.
    if (argumentChars(args, env) > MAX_PROGRAM_ARGS_CHARS) {
      return { stdout: "", stderr: `bash: ${name}: Argument list too long (arguments and environment pass ${MAX_PROGRAM_ARGS_CHARS} characters; pass large data in a file)\n`, exitCode: 126 };
    }
    // The byte view (one character per byte) measures the input before it is decoded.
    const stdinBytes = latin1FromBytes(ctx.stdin).length;
    if (stdinBytes > settings.maxShellOutputBytes) {
      return { stdout: "", stderr: `bash: ${name}: the input piped in holds ${stdinBytes} bytes; at most ${settings.maxShellOutputBytes} (pass large data in a file)\n`, exitCode: 126 };
    }
    const stdin = decodeBytesToUtf8(ctx.stdin);
    // Every request carries a copy of every file: at most MAX_PROGRAMS_IN_FLIGHT at once
    // (xargs -P 200 runs them four at a time).
    if (!(await acquireSlot(run))) return { stdout: "", stderr: "", exitCode: 130 };
    let outcome: ProgramOutcome;
    try {
      const callId = run.nextCallId++;
      const files = await fs.allFiles();
      outcome = await new Promise<ProgramOutcome>((resolve) => {
        run.calls.set(callId, resolve);
        post({ type: "program", id: run.id, callId, request: { program, command: name, args, cwd: ctx.cwd, env, stdin, files } });
      });
    } finally {
      releaseSlot(run);
    }
    if (running !== run || run.abort.signal.aborted) return { stdout: "", stderr: "", exitCode: 130 };
    await fs.applyProgramOutcome(outcome.written, outcome.removed);
    return { stdout: outcome.stdout, stderr: outcome.stderr, exitCode: outcome.exitCode };
  });
}

/**
 * A fresh interpreter for each command line: just-bash copies `set` options and functions per
 * `exec` but shares `shopt` options and its command hash table between calls, so one
 * interpreter would carry `shopt -s dotglob` into the next call. A new one is cheap beside the
 * command (`npm run bench -- deepagents`, the `execute(...)` rows).
 */
const newBash = (): Bash => new Bash({
  fs,
  cwd: "/",
  env: { ...settings.env, HOME: "/", PATH: "/usr/bin:/bin" },
  commands: [...GRANTED_COMMANDS],
  customCommands: Object.entries(PROGRAM_COMMANDS).map(([name, program]) => programCommand(name, program)),
  executionLimits: {
    // Output the interpreter may hold: past it a command stops (the caller's own, smaller
    // cap is applied by the host, which keeps the first bytes).
    maxOutputSize: settings.maxShellOutputBytes,
    // The host's timer ends a command; the interpreter's own deadline is set per command.
    maxExecutionTimeMs: Number.POSITIVE_INFINITY,
    // Time governs loops, as in a real shell (a loop that never ends exits 124 at the
    // command's limit); these counts only stop a runaway that time would stop anyway.
    maxCommandCount: 100_000_000,
    maxLoopIterations: 100_000_000,
    maxAwkIterations: 100_000_000,
    maxSedIterations: 100_000_000,
    maxJqIterations: 100_000_000,
  },
});

async function execute(message: Extract<HostToShell, { type: "exec" }>): Promise<void> {
  if (message.sync.reset) await fs.reset(message.sync.changes.upserts);
  else await fs.applyFromHost(message.sync.changes);
  const run: RunningCommand = { id: message.id, abort: new AbortController(), nextCallId: 1, calls: new Map(), inFlight: 0, waiting: [] };
  // A stopped command line does not wait for answers the host will not send: programs
  // waiting for a slot or for their outcome end at once (exit 130), so the interpreter
  // returns and the thread is kept.
  run.abort.signal.addEventListener("abort", () => {
    for (const wake of run.waiting.splice(0)) wake();
    for (const resolve of [...run.calls.values()]) resolve(STOPPED);
    run.calls.clear();
  });
  running = run;
  // The interpreter stops at a statement boundary when this fires; the host kills the
  // thread shortly after if it does not.
  const deadline = setTimeout(() => run.abort.abort(), message.timeoutMs);
  let result: { stdout: string; stderr: string; exitCode: number };
  try {
    result = await newBash().exec(message.command, { signal: run.abort.signal, rawScript: true });
  } catch (error) {
    result = { stdout: "", stderr: `bash: ${error instanceof Error ? error.message : String(error)}\n`, exitCode: 2 };
  } finally {
    clearTimeout(deadline);
    running = undefined;
  }
  const changes = await fs.collectChanges();
  post({ type: "exec-done", id: message.id, stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode, changes });
}

port.on("message", (message: HostToShell) => {
  switch (message.type) {
    case "exec":
      void execute(message);
      return;
    case "abort":
      if (running?.id === message.id) running.abort.abort();
      return;
    case "program-done": {
      const resolve = running?.id === message.id ? running.calls.get(message.callId) : undefined;
      running?.calls.delete(message.callId);
      resolve?.(message.outcome);
      return;
    }
  }
});

// Load the interpreter's lazily loaded parts before saying ready, so the first command does
// not pay for them.
await newBash().exec("true");
post({ type: "ready" });
