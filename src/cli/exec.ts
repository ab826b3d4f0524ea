/**
 * `codegen-sandbox exec [FILE|-]`: runs a file (or stdin) in the sandbox and prints its output and
 * the value of its last expression.
 * Exit codes: 0 the run succeeded, 1 the run failed (any other status), 2 usage error.
 */
import { readFile } from "node:fs/promises";
import type { Command } from "./command.js";
import { UsageError } from "./usage-error.js";
import { languageFlag, numberFlag, parseCommandArgs } from "./args.js";
import { InvalidOptionError } from "../errors.js";
import { integerRule } from "../options/index.js";
import { LIMIT_RULES, MAX_MEMORY_LIMIT_BYTES } from "../sandbox/options.js";
import type { ExecutionResult, Language } from "../sandbox/types.js";

const HELP = `usage: codegen-sandbox exec [FILE|-] [options]
Runs FILE (or stdin when FILE is "-" or missing) in the sandbox and prints its output, then the
value of its last expression (a string as it is, anything else as JSON; nothing for undefined/None).
  --language javascript|typescript|python   default: from the file extension, else javascript
  --timeout-ms N                            wall-clock limit in ms (default 5000, at most 2000000000)
  --memory-mb N                             memory limit in MiB (default 64, at most 4096)
  --package NAME                            Python: a package of Pyodide's lock, e.g. numpy (repeatable)
  --package-index URL|DIR                   Python: where package files come from (default Pyodide's CDN)
  --json                                    print the whole result as JSON
Exit code: 0 success, 1 the code failed (syntax, runtime, limit, forbidden), 2 usage error.`;

const EXTENSION_LANGUAGES: Record<string, Language> = {
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".ts": "typescript",
  ".mts": "typescript",
  ".py": "python",
};

/** `--memory-mb`: `memoryLimitBytes` in MiB, with the same ceiling (4 GiB). */
const MEMORY_MB_RULE = integerRule({ min: 1, max: MAX_MEMORY_LIMIT_BYTES / 1024 ** 2, unit: "MiB", maxReason: "4 GiB: the engines are 32-bit WebAssembly" });

async function readSource(file: string | undefined): Promise<string> {
  if (file === undefined || file === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "there is no such file" : code === "EISDIR" ? "it is a directory" : code === "EACCES" ? "it cannot be read (permission denied)" : (error as Error).message;
    throw new UsageError(`exec: ${new InvalidOptionError("FILE", file, `a file to run, or "-" for stdin (${why})`).message}`);
  }
}

/**
 * The language of `file`: `--language` when given, else its extension; a file without one is
 * JavaScript, a file with another extension is refused (it would run as the wrong language).
 */
function languageOf(flag: string | undefined, file: string | undefined): Language {
  const chosen = languageFlag("exec", flag);
  if (chosen !== undefined) return chosen;
  const base = file?.slice(file.lastIndexOf("/") + 1) ?? "";
  const dot = base.lastIndexOf(".");
  if (file === undefined || file === "-" || dot <= 0) return "javascript";
  const language = EXTENSION_LANGUAGES[base.slice(dot)];
  if (language !== undefined) return language;
  const known = Object.keys(EXTENSION_LANGUAGES).join(", ");
  throw new UsageError(
    `exec: ${new InvalidOptionError("FILE", file, `a file ending in ${known} (javascript, typescript, python), or --language to say which language it is`, { problem: `the sandbox runs javascript, typescript and python, and "${base.slice(dot)}" is none of them` }).message}`,
  );
}

/** The program's value as `node -p` prints one: a string as it is, anything else as JSON. */
function resultLine(value: unknown): string {
  if (typeof value === "string") return value;
  // JSON has no undefined; a value that does not serialise is shown by its type.
  return JSON.stringify(value) ?? String(value);
}

function printHuman(result: ExecutionResult): void {
  process.stdout.write(result.stdout);
  // The value of the program's last expression, after what it printed (None/undefined: nothing).
  if (result.status === "success" && result.result !== undefined && result.result !== null) {
    process.stdout.write(`${result.stdout === "" || result.stdout.endsWith("\n") ? "" : "\n"}${resultLine(result.result)}\n`);
  }
  process.stderr.write(result.stderr);
  if (result.status !== "success") {
    const e = result.error;
    const where = e?.line !== undefined ? ` (line ${e.line}${e.column !== undefined ? `:${e.column}` : ""})` : "";
    process.stderr.write(`[${result.status}] ${e ? `${e.name}: ${e.message}` : ""}${where}\n`);
    if (result.outputTruncated) process.stderr.write("[output truncated]\n");
  }
}

/** The `exec` subcommand. */
export const execCommand: Command = {
  summary: "run a JavaScript/TypeScript/Python file in the sandbox",
  help: HELP,
  async run(argv: string[]): Promise<number> {
    const { values, positionals } = parseCommandArgs("exec", {
      args: argv,
      allowPositionals: true,
      options: {
        language: { type: "string" },
        "timeout-ms": { type: "string" },
        "memory-mb": { type: "string" },
        package: { type: "string", multiple: true },
        "package-index": { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
    if (values.help) {
      process.stdout.write(HELP + "\n");
      return 0;
    }
    if (positionals.length > 1) throw new UsageError(`exec: takes one FILE (or "-"), got ${positionals.length}: ${positionals.join(" ")}`);
    const file = positionals[0];
    const language = languageOf(values.language, file);
    const timeoutMs = numberFlag("exec", "timeout-ms", values["timeout-ms"], LIMIT_RULES.timeoutMs);
    const memoryMb = numberFlag("exec", "memory-mb", values["memory-mb"], MEMORY_MB_RULE);
    const { runCode, disposeDefaultSandbox, createSandbox } = await import("../sandbox/index.js");
    const packages = values.package ?? [];
    if (packages.length === 0 && values["package-index"] !== undefined) throw new UsageError("exec: --package-index applies with --package");
    let own: ReturnType<typeof createSandbox> | undefined;
    if (packages.length > 0) {
      try {
        own = createSandbox({ poolSize: 1, python: { packages, ...(values["package-index"] === undefined ? {} : { packageIndex: values["package-index"] }) } });
      } catch (error) {
        if (error instanceof InvalidOptionError) throw new UsageError(`exec: --package: ${error.message}`);
        throw error;
      }
    }
    // Read after the options are checked: a refused --package does not wait on stdin.
    let code: string;
    try {
      code = await readSource(file);
    } catch (error) {
      await own?.dispose();
      throw error;
    }
    let result: ExecutionResult;
    const runOptions = { language, timeoutMs, memoryLimitBytes: memoryMb === undefined ? undefined : memoryMb * 1024 * 1024 };
    try {
      result = own ? await own.run(code, runOptions) : await runCode(code, runOptions);
    } finally {
      await (own ? own.dispose() : disposeDefaultSandbox());
    }
    if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else printHuman(result);
    return result.status === "success" ? 0 : 1;
  },
};
