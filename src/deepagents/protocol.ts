/**
 * The messages between `ShellHost` (host thread) and the shell's worker thread. Everything the
 * worker sends is made while a guest's command line runs, so the host checks it on receipt
 * (`shell-host.ts`, `file-store.ts`); nothing here is trusted by shape alone.
 */

/** One file or directory as it crosses between the store and the worker's replica. */
export type WireEntry = { kind: "file"; bytes: Uint8Array; modifiedMs: number } | { kind: "dir"; modifiedMs: number };

/** Entries to create or replace, and paths to remove (with everything under them). */
export interface ReplicaChanges {
  upserts: Array<[string, WireEntry]>;
  deletes: string[];
}

/**
 * Program runs one command line may have at once (`xargs -P`, background jobs). The worker
 * waits for a free slot before it copies the files for the next one; the host takes a request
 * past this as a broken protocol (each request carries every file, so unbounded requests would
 * be unbounded host memory).
 */
export const MAX_PROGRAMS_IN_FLIGHT = 4;

/**
 * Most characters of arguments and environment (names, values) one program may be given, as
 * Linux's `ARG_MAX` (2 MiB): past it the command fails with "Argument list too long", exit 126.
 */
export const MAX_PROGRAM_ARGS_CHARS = 2 * 1024 * 1024;

/** The programs the shell forwards to the host's engines. */
export type ProgramName = "python" | "node" | "typescript" | "tsc";

/** A program a command line started, forwarded to the host (`programs.ts`). */
export interface ProgramRequest {
  program: ProgramName;
  /** The command name as typed (`python3`, `ts-node`, ...), for messages. */
  command: string;
  args: string[];
  /** The shell's working directory (a canonical store path). */
  cwd: string;
  /** The shell's exported variables. */
  env: Record<string, string>;
  /** What the command line piped in (UTF-8 text). */
  stdin: string;
  /** Every file of the replica, at the moment the program starts. */
  files: Array<[string, Uint8Array]>;
}

/** How a program ended, in shell terms, and what it did to the files. */
export interface ProgramOutcome {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** True when the program's output passed the cap. */
  truncated: boolean;
  /** Files the program wrote (paths canonical), and the ones it removed. */
  written: Array<[string, Uint8Array]>;
  removed: string[];
}

/** Settings the worker starts with. */
export interface ShellWorkerData {
  /** Bytes of output the interpreter may hold before it stops a command (a memory bound, not the cap the caller sees). */
  maxShellOutputBytes: number;
  maxFileBytes: number;
  maxTotalFileBytes: number;
  env: Record<string, string>;
}

/** Host → worker. */
export type HostToShell =
  | {
      type: "exec";
      id: number;
      command: string;
      /** The interpreter's own deadline (the host kills the thread a little later). */
      timeoutMs: number;
      /** A full copy (`reset`) or the changes since the last command. */
      sync: { reset: boolean; changes: ReplicaChanges };
    }
  | { type: "abort"; id: number }
  | { type: "program-done"; id: number; callId: number; outcome: ProgramOutcome };

/** Worker → host. */
export type ShellToHost =
  | { type: "ready" }
  | { type: "program"; id: number; callId: number; request: ProgramRequest }
  | { type: "exec-done"; id: number; stdout: string; stderr: string; exitCode: number; changes: ReplicaChanges };
