#!/usr/bin/env node
/**
 * `codegen-sandbox` command line. Each subcommand lives in its own module and is loaded only
 * when asked for, so `exec` never pays for LangChain's import time.
 */
import type { Command } from "./command.js";
import { UsageError } from "./usage-error.js";
import { nearestName } from "../options/nearest-name.js";
import { PEERS, requirePeers, type PeerEntry } from "../peers.js";

const commands: Record<string, () => Promise<Command>> = {
  // Subcommands register here: name -> lazy loader.
  eval: async () => (await import("./eval.js")).evalCommand,
  exec: async () => (await import("./exec.js")).execCommand,
  solve: async () => (await import("./solve.js")).solveCommand,
  demo: async () => (await import("./demo.js")).demoCommand,
  mcp: async () => (await import("./mcp.js")).mcpCommand,
};

function usage(): string {
  const names = Object.keys(commands).sort();
  return `usage: codegen-sandbox <${names.join("|")}> [options]   (codegen-sandbox --help lists every command and its options)`;
}

/** The whole help: every command's summary and options (the command modules load no LangChain). */
async function fullHelp(): Promise<string> {
  const names = Object.keys(commands).sort();
  const loaded = await Promise.all(names.map(async (name) => [name, await commands[name]!()] as const));
  const list = loaded.map(([name, command]) => `  ${name.padEnd(6)} ${command.summary}`).join("\n");
  const details = loaded.map(([name, command]) => `=== codegen-sandbox ${name}\n${command.help}`).join("\n\n");
  return `${usage()}\n\ncommands:\n${list}\n\nExit codes: 0 success, 1 the task or code failed (or no usable model), 2 a usage error.\n\n${details}`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write((name === undefined ? usage() : await fullHelp()) + "\n");
    return name === undefined ? 2 : 0;
  }
  const load = commands[name];
  if (!load) {
    const near = nearestName(name, Object.keys(commands));
    throw new UsageError(`unknown command "${name}"${near === undefined ? "" : `; did you mean "${near}"?`} ${usage()}`);
  }
  // The LangChain peers are checked before a command that runs the graph loads them.
  const peers = name === "mcp" ? "codegen-sandbox/mcp" : `codegen-sandbox ${name}`;
  if (peers in PEERS) requirePeers(peers as PeerEntry);
  const command = await load();
  return command.run(rest);
}

main(process.argv.slice(2))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      if (error instanceof UsageError) {
        process.stderr.write(`codegen-sandbox: ${error.message}\n`);
        process.exitCode = 2;
        return;
      }
      // A fault of the host or a misuse error from the library: one line, no stack.
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      process.stderr.write(`codegen-sandbox: ${message}\n`);
      process.exitCode = 1;
    },
  );
