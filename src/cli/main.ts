#!/usr/bin/env node
/**
 * `codegen-sandbox` command line. Each subcommand lives in its own module and is loaded only
 * when asked for, so `exec` never pays for LangChain's import time.
 */
import type { Command } from "./command.js";
import { UsageError } from "./usage-error.js";

const commands: Record<string, () => Promise<Command>> = {
  // Subcommands register here: name -> lazy loader.
  eval: async () => (await import("./eval.js")).evalCommand,
  exec: async () => (await import("./exec.js")).execCommand,
  solve: async () => (await import("./solve.js")).solveCommand,
  demo: async () => (await import("./demo.js")).demoCommand,
};

function usage(): string {
  const names = Object.keys(commands).sort();
  return `usage: codegen-sandbox <${names.join("|")}> [options]   (codegen-sandbox <command> --help for its options)`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(usage() + "\n");
    return name === undefined ? 2 : 0;
  }
  const load = commands[name];
  if (!load) throw new UsageError(`unknown command "${name}". ${usage()}`);
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
